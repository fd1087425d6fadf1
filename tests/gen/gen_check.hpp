#pragma once
// Shared by the generator tests (tests/gen/): options for a family, exact equality, element access,
// the symmetric families' promises (symmetry, strict diagonal dominance), degrees and bandwidth.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/gen.hpp"

namespace spkit::test {

inline GenOptions opts(const std::string& family, std::int64_t n, std::uint64_t seed = 42) {
  GenOptions o;
  o.family = family;
  o.n = n;
  o.seed = seed;
  return o;
}

inline bool same(const Csr<double>& a, const Csr<double>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

// Value at (i, j) or 0 when not stored (binary search: columns are sorted).
inline double at(const Csr<double>& a, std::int64_t i, std::int64_t j) {
  auto b = a.col_idx.begin() + a.row_ptr[i], e = a.col_idx.begin() + a.row_ptr[i + 1];
  auto it = std::lower_bound(b, e, static_cast<std::int32_t>(j));
  return (it != e && *it == j) ? a.values[it - a.col_idx.begin()] : 0.0;
}

inline void expect_no_zero_values(const Csr<double>& a) {
  for (double v : a.values) ASSERT_NE(v, 0.0);
}

// Symmetric in structure and values, positive diagonal larger than the off-diagonal absolute sum.
inline void expect_symmetric_dominant(const Csr<double>& a) {
  ASSERT_EQ(a.rows, a.cols);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double diag = 0, off = 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int64_t j = a.col_idx[k];
      if (j == i) {
        diag = a.values[k];
      } else {
        off += std::abs(a.values[k]);
        ASSERT_EQ(at(a, j, i), a.values[k]) << "not symmetric at (" << i << ", " << j << ")";
      }
    }
    ASSERT_GT(diag, off) << "row " << i << " not strictly diagonally dominant";
  }
}

// Off-diagonal degree of each row (dof 1).
inline std::vector<std::int64_t> degrees(const Csr<double>& a) {
  std::vector<std::int64_t> d(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i) d[i] = a.row_length(i) - (at(a, i, i) != 0.0);
  return d;
}

inline std::int64_t bandwidth(const Csr<double>& a) {
  std::int64_t b = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) b = std::max<std::int64_t>(b, std::abs(a.col_idx[k] - i));
  return b;
}

// The message of the spkit::Error that generate(o) throws, or "" when it throws none.
inline std::string error_of(const GenOptions& o) {
  try {
    generate(o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace spkit::test
