// Dense vectors as Matrix Market files: written as `array real general` n x 1; read from an
// n x 1 or 1 x n array file (or a coordinate file of that shape, missing entries zero).
#include "spkit/io/vector.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "io/io_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit {

std::vector<double> read_vector(const std::string& path) {
  ReadOptions opts;
  opts.expand_symmetry = false;
  const MmMatrix m = read_matrix_market(path, opts);
  const MmHeader& h = m.header;
  if (h.rows != 1 && h.cols != 1)
    throw Error(path + ": a vector file must be n x 1 or 1 x n, this one is " + std::to_string(h.rows) + " x " +
                std::to_string(h.cols));
  if (h.symmetry != MmSymmetry::general && !(h.rows == 1 && h.cols == 1))
    throw Error(path + ": a vector file must be 'general', not " + std::string(to_string(h.symmetry)));
  const std::int64_t n = h.rows == 1 ? h.cols : h.rows;
  std::vector<double> v(static_cast<std::size_t>(n), 0.0);
  const auto& coo = m.coo;
  for (std::int64_t k = 0; k < coo.nnz(); ++k) v[static_cast<std::size_t>(h.rows == 1 ? coo.col_idx[k] : coo.row_idx[k])] += coo.values[k];
  return v;
}

template <class T>
void write_vector(const std::string& path, const T* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(static_cast<double>(v[i])))
      throw Error("cannot write '" + path + "': element " + std::to_string(i) + " is not finite");
  io_detail::AtomicFile file(path);
  std::string out = "%%MatrixMarket matrix array real general\n" + std::to_string(n) + " 1\n";
  out.reserve(out.size() + std::min<std::size_t>(n, std::size_t(1) << 20) * 26);
  char buf[40];
  for (std::size_t i = 0; i < n; ++i) {
    char* e = std::to_chars(buf, buf + sizeof(buf), v[i]).ptr;  // shortest exact text
    *e++ = '\n';
    out.append(buf, static_cast<std::size_t>(e - buf));
    if (out.size() > (std::size_t(1) << 24)) {
      file.write(out.data(), out.size());
      out.clear();
    }
  }
  file.write(out.data(), out.size());
  file.commit();
}

void write_vector(const std::string& path, const std::vector<double>& v) { write_vector(path, v.data(), v.size()); }

template void write_vector<float>(const std::string&, const float*, std::size_t);
template void write_vector<double>(const std::string&, const double*, std::size_t);

}  // namespace spkit
