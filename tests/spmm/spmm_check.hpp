#pragma once
// One SpMM product checked entry by entry against the serial double reference, shared by the SpMM tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/harness/spmm_runner.hpp"
#include "spkit/spmm.hpp"

namespace spkit::test {

// One product Y = alpha A X + beta Y0 through the harness (host or device alike), checked entry by entry.
// tight: leading dimensions exactly k (or the rows), as the harness and most callers pass them, which is
// where kernels take 16-byte vectors; otherwise padded.
template <class T>
inline void check_product(SpmmPlan<T>& plan, const Csr<T>& a, const SpmmShape& shape, T alpha, T beta, int ld_multiple_bytes,
                          bool tight = false) {
  const bool row = shape.layout == DenseLayout::row_major;
  // Leading dimensions beyond the minimum, so the padding is there to be (wrongly) touched; rounded up to
  // what the kernel requires (cuSPARSE CSR_ALG3: 16 bytes).
  const std::int64_t step = ld_multiple_bytes > 0 ? ld_multiple_bytes / static_cast<std::int64_t>(sizeof(T)) : 1;
  const auto round = [&](std::int64_t ld) { return (ld + step - 1) / step * step; };
  const std::int64_t pad_x = tight ? 0 : 3, pad_y = tight ? 0 : 5;
  const std::int64_t ldx = std::max<std::int64_t>(round((row ? shape.k : a.cols) + pad_x), 1),
                     ldy = std::max<std::int64_t>(round((row ? shape.k : a.rows) + pad_y), 1);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(std::string(tight ? "tight" : "padded") + " leading dimensions, seed " + std::to_string(seed) + ", alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta));
  const std::int64_t x_lines = row ? a.cols : shape.k, y_lines = row ? a.rows : shape.k;
  const auto xd = random_vector(x_lines * ldx, seed);
  const std::vector<T> x(xd.begin(), xd.end());
  std::vector<T> y0(static_cast<std::size_t>(y_lines * ldy));
  if (beta == T(0)) {
    const auto yd = random_vector(y0.size(), seed + 1);
    for (std::size_t i = 0; i < y0.size(); ++i) y0[i] = std::numeric_limits<T>::quiet_NaN();
    // Padding holds numbers, so an untouched pad is distinguishable from a written one.
    for (std::int64_t l = 0; l < y_lines; ++l)
      for (std::int64_t q = row ? shape.k : a.rows; q < ldy; ++q) y0[l * ldy + q] = static_cast<T>(yd[l * ldy + q]);
  } else {
    const auto yd = random_vector(y0.size(), seed + 1);
    y0.assign(yd.begin(), yd.end());
  }
  std::vector<T> y = y0;
  harness::TimingOptions once;
  once.warmup = 0;
  once.reps = 1;
  harness::time_spmm(plan, a.rows, a.cols, shape, x.data(), ldx, y.data(), ldy, once, alpha, beta);
  const Validation v = harness::validate_spmm(a, shape, x, ldx, alpha, beta, y0, y, ldy);
  EXPECT_TRUE(v.valid) << v.bad_rows << " bad entries, first in row " << v.first_bad_row << ", max abs error "
                       << v.max_abs_error;
}

}  // namespace spkit::test
