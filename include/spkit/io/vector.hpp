#pragma once
// Dense vectors as Matrix Market `array` files (n x 1, real general), for x and y.
#include <string>
#include <vector>

namespace spkit {

std::vector<double> read_vector(const std::string& path);
void write_vector(const std::string& path, const std::vector<double>& v);
template <class T>
void write_vector(const std::string& path, const T* v, std::size_t n);

}  // namespace spkit
