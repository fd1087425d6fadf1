#pragma once
// One SpMM product checked entry by entry against the serial double reference, shared by the SpMM tests; and a
// column-major one into a Y at a chosen offset from a 64-byte boundary (the streamed stores of Y).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>
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

// Column-major Y = alpha A X + beta Y into a buffer `shift` elements past a 64-byte boundary, leading dimension
// ldy, checked against a double product of the same inputs (Y's padding rows untouched).
template <class T>
inline void check_col_major_at(SpmmPlan<T>& plan, const Csr<T>& a, std::int64_t k, std::int64_t ldy,
                               std::int64_t shift, T alpha, T beta) {
  SCOPED_TRACE("k " + std::to_string(k) + ", ldy " + std::to_string(ldy) + ", shift " + std::to_string(shift) +
               ", beta " + std::to_string(beta));
  const auto xd = random_vector(a.cols * k, fresh_seed());
  const std::vector<T> x(xd.begin(), xd.end());
  const std::size_t n = static_cast<std::size_t>(k * ldy + shift);
  std::unique_ptr<T, void (*)(void*)> buf(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64)),
                                          std::free);
  ASSERT_NE(buf, nullptr);
  T* y = buf.get() + shift;
  const auto y0 = random_vector(k * ldy, fresh_seed());
  for (std::int64_t q = 0; q < k * ldy; ++q) y[q] = static_cast<T>(y0[q]);
  plan.run(alpha, x.data(), a.cols, beta, y, ldy, Stream{});
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  std::int64_t bad = 0;
  for (std::int64_t c = 0; c < k; ++c) {
    for (std::int64_t i = 0; i < a.rows; ++i) {
      const double y_in = static_cast<T>(y0[c * ldy + i]);
      double want = 0, mag = std::abs(static_cast<double>(beta) * y_in);
      for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        want += static_cast<double>(a.values[p]) * x[c * a.cols + a.col_idx[p]];
        mag += std::abs(static_cast<double>(a.values[p]) * x[c * a.cols + a.col_idx[p]]);
      }
      want = static_cast<double>(alpha) * want + static_cast<double>(beta) * y_in;
      if (!(std::abs(y[c * ldy + i] - want) <= tol * (std::abs(static_cast<double>(alpha)) * mag + 1))) ++bad;
    }
    for (std::int64_t i = a.rows; i < ldy; ++i) bad += y[c * ldy + i] != static_cast<T>(y0[c * ldy + i]);
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace spkit::test
