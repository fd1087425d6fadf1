// The circuit family (src/gen/circuit.cpp): the diagonal everywhere, dense rows and columns, most
// rows short and most couplings near the diagonal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gen/gen_check.hpp"

namespace spkit::test {
namespace {

TEST(Generate, CircuitDenseRowsAndColumns) {
  const std::int64_t n = 5000;
  auto o = opts("circuit", n);
  o.per_row = 6;
  auto a = generate(o);
  check_csr(a);
  expect_no_zero_values(a);
  std::int64_t max_len = 0, near = 0, off = 0;
  std::vector<std::int64_t> col_count(n, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    max_len = std::max(max_len, a.row_length(i));
    ASSERT_NE(at(a, i, i), 0.0) << "diagonal missing in row " << i;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      ++col_count[a.col_idx[k]];
      if (a.col_idx[k] != i) {
        ++off;
        near += std::abs(a.col_idx[k] - i) <= 16;
      }
    }
  }
  EXPECT_GE(max_len, n / 2) << "a dense row";
  EXPECT_GE(*std::max_element(col_count.begin(), col_count.end()), n / 20) << "a dense column";
  std::vector<std::int64_t> lengths(n);
  for (std::int64_t i = 0; i < n; ++i) lengths[i] = a.row_length(i);
  std::nth_element(lengths.begin(), lengths.begin() + n / 2, lengths.end());
  EXPECT_LE(lengths[n / 2], 2 * o.per_row) << "most rows stay short";
  EXPECT_GT(static_cast<double>(near) / static_cast<double>(off), 0.4) << "mostly near the diagonal";
  for (std::int64_t tiny : {1, 2, 3, 401}) check_csr(generate(opts("circuit", tiny)));
}

}  // namespace
}  // namespace spkit::test
