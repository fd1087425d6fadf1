#pragma once
// References for COO -> CSR and for readers that produce CSR: a dense map of summed entries, the
// conversion done the slow way (stable sort, duplicates summed one after the other in input order),
// values whose sums depend on that order, and bit-exact CSR equality.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "spkit/formats/coo.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit::csr_test {

// A fresh seed per run (tests print it with SCOPED_TRACE, so a failure can be replayed).
inline std::uint64_t seed_now() { return std::random_device{}() * 2654435761ULL + 12345; }

// (row, col) -> summed value, the reference for any reader/converter output.
using Dense = std::map<std::pair<std::int64_t, std::int64_t>, double>;

inline Dense dense_of(const Csr<double>& a) {
  Dense d;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[{i, a.col_idx[k]}] += a.values[k];
  return d;
}

inline void expect_same(const Csr<double>& a, const Csr<double>& b) {
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.cols, b.cols);
  ASSERT_EQ(a.row_ptr, b.row_ptr);
  ASSERT_EQ(a.col_idx, b.col_idx);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t k = 0; k < a.values.size(); ++k) ASSERT_EQ(a.values[k], b.values[k]) << "entry " << k;  // bitwise-exact
}

// The reference for COO -> CSR: entries stably sorted by (row, column), duplicates summed one after
// the other in input order (or all kept, in input order).
struct Entry {
  std::int64_t row, col;
  double value;
};

inline Csr<double> reference_csr(std::int64_t rows, std::int64_t cols, std::vector<Entry> entries, bool sum_duplicates) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (sum_duplicates && k > 0 && entries[k].row == entries[k - 1].row && entries[k].col == entries[k - 1].col) {
      a.values.back() += entries[k].value;
      continue;
    }
    a.col_idx.push_back(static_cast<std::int32_t>(entries[k].col));
    a.values.push_back(entries[k].value);
    ++a.row_ptr[entries[k].row + 1];
  }
  for (std::int64_t i = 0; i < rows; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
  return a;
}

inline Coo<double> coo_of(std::int64_t rows, std::int64_t cols, const std::vector<Entry>& entries) {
  Coo<double> coo;
  coo.rows = rows;
  coo.cols = cols;
  for (const Entry& e : entries) {
    coo.row_idx.push_back(static_cast<std::int32_t>(e.row));
    coo.col_idx.push_back(static_cast<std::int32_t>(e.col));
    coo.values.push_back(e.value);
  }
  return coo;
}

// Values whose sums depend on the order they are added in (magnitudes 1e-9 .. 1e9, both signs), so
// the comparison with the reference checks "summed in input order", bit for bit.
inline double order_sensitive_value(std::mt19937_64& rng) {
  const double mantissa = std::uniform_real_distribution<double>(-1, 1)(rng);
  return std::ldexp(mantissa, static_cast<int>(rng() % 60) - 30);
}

}  // namespace spkit::csr_test
