#pragma once
// The median of a set of timings (the figure every benchmark row and stage reports): the middle value,
// or the mean of the two middle ones; 0 for no samples.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace spkit::detail {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

}  // namespace spkit::detail
