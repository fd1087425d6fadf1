// time_spmm (a steady clock around each product on the CPU; CUDA plans go to spmm_timing.cu) and
// validate_spmm, the entry-by-entry check of Y against the double product of the same rounded inputs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/spmm_runner.hpp"
#if SPKIT_HAVE_CUDA
#include "harness/spmm_cuda_timing.hpp"
#endif

namespace spkit::harness {

std::int64_t dense_elements(std::int64_t rows, const SpmmShape& shape, std::int64_t ld) {
  if (rows == 0 || shape.k == 0) return 0;
  // The last row (row-major) or column (column-major) needs only its own entries, not a whole ld.
  return shape.layout == DenseLayout::row_major ? (rows - 1) * ld + shape.k : (shape.k - 1) * ld + rows;
}

template <class T>
std::vector<double> time_spmm(SpmmPlan<T>& plan, std::int64_t rows, std::int64_t cols, const SpmmShape& shape,
                              const T* host_x, std::int64_t ldx, T* host_y, std::int64_t ldy,
                              const TimingOptions& opts, T alpha, T beta) {
  check_spmm_leading_dims(rows, cols, shape, ldx, ldy);
  if (plan.backend() == Backend::cuda) {
#if SPKIT_HAVE_CUDA
    return cuda_timing::time_cuda_spmm(plan, dense_elements(cols, shape, ldx), dense_elements(rows, shape, ldy), host_x,
                                       ldx, host_y, ldy, opts, alpha, beta);
#else
    throw DeviceError("time_spmm", "a CUDA plan, but this spkit was built without CUDA");
#endif
  }
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < opts.warmup; ++i) plan.run(alpha, host_x, ldx, beta, host_y, ldy, Stream{});
  const int reps = std::max(opts.reps, 1);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const auto t0 = clock::now();
    plan.run(alpha, host_x, ldx, beta, host_y, ldy, Stream{});
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
  }
  return ms;
}

namespace {
double gamma_bound(double n, double u) {
  const double nu = n * u;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}
}  // namespace

template <class T>
Validation validate_spmm(const Csr<T>& a, const SpmmShape& shape, const std::vector<T>& x, std::int64_t ldx, T alpha,
                         T beta, const std::vector<T>& y0, const std::vector<T>& y, std::int64_t ldy,
                         const std::vector<double>* y_exact) {
  const double u_t = std::numeric_limits<T>::epsilon() / 2, u_d = std::numeric_limits<double>::epsilon() / 2;
  const bool row = shape.layout == DenseLayout::row_major;
  const std::int64_t k = shape.k;
  auto xat = [&](std::int64_t j, std::int64_t c) { return static_cast<double>(x[row ? j * ldx + c : c * ldx + j]); };
  auto yidx = [&](std::int64_t i, std::int64_t c) { return static_cast<std::size_t>(row ? i * ldy + c : c * ldy + i); };
  if (static_cast<std::int64_t>(y.size()) != static_cast<std::int64_t>(y0.size()) ||
      static_cast<std::int64_t>(y.size()) < dense_elements(a.rows, shape, ldy))
    throw Error("validate_spmm: Y and Y0 must both hold the rows x k operand with its leading dimension");
  Validation v;
  auto bad = [&](std::int64_t i) {
    if (v.bad_rows++ == 0) v.first_bad_row = i;
  };
  double diff2 = 0, ref2 = 0;
  // Rows in parallel (the products checked reach 16M non-zeros x k = 64): each thread keeps its own
  // counts, merged after (the first bad row is the smallest of theirs).
#pragma omp parallel if (a.nnz() * k > (std::int64_t(1) << 18))
  {
    double my_diff2 = 0, my_ref2 = 0, my_max = 0;
    std::int64_t my_bad = 0, my_first = -1;
    std::vector<double> sum(static_cast<std::size_t>(k)), abs_sum(static_cast<std::size_t>(k));
#pragma omp for schedule(dynamic, 256) nowait
    for (std::int64_t i = 0; i < a.rows; ++i) {
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
      for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
        for (std::int64_t c = 0; c < k; ++c) {
          const double term = static_cast<double>(a.values[p]) * xat(a.col_idx[p], c);
          sum[c] += term;
          abs_sum[c] += std::fabs(term);
        }
      const double n = static_cast<double>(a.row_ptr[i + 1] - a.row_ptr[i]);
      for (std::int64_t c = 0; c < k; ++c) {
        const double old = beta != T(0) ? static_cast<double>(y0[yidx(i, c)]) : 0.0;
        const double expect = static_cast<double>(alpha) * sum[c] + static_cast<double>(beta) * old;
        const double scale = std::fabs(static_cast<double>(alpha)) * abs_sum[c] + std::fabs(static_cast<double>(beta) * old);
        const double tol = (gamma_bound(n + 3, u_t) + gamma_bound(n + 3, u_d)) * scale;
        const double got = static_cast<double>(y[yidx(i, c)]);
        if (!(std::fabs(got - expect) <= tol) && my_bad++ == 0) my_first = i;
        const double ref = y_exact ? (*y_exact)[static_cast<std::size_t>(i * k + c)] : expect;
        const double err = std::fabs(got - ref);
        my_diff2 += err * err, my_ref2 += ref * ref;
        if (!(err <= my_max)) my_max = std::isnan(err) ? std::numeric_limits<double>::quiet_NaN() : err;
      }
    }
#pragma omp critical(spkit_validate_spmm)
    {
      diff2 += my_diff2, ref2 += my_ref2;
      if (my_bad > 0 && (v.bad_rows == 0 || my_first < v.first_bad_row)) v.first_bad_row = my_first;
      v.bad_rows += my_bad;
      if (std::isnan(my_max) || (!std::isnan(v.max_abs_error) && my_max > v.max_abs_error)) v.max_abs_error = my_max;
    }
  }
  // Padding between k (row-major) or the rows (column-major) and ldy: bit for bit as it was.
  const std::int64_t lines = row ? a.rows : k, used = row ? k : a.rows;
  for (std::int64_t l = 0; l < lines; ++l)
    for (std::int64_t q = used; q < ldy && static_cast<std::size_t>(l * ldy + q) < y.size(); ++q) {
      const std::size_t at = static_cast<std::size_t>(l * ldy + q);
      if (std::memcmp(&y[at], &y0[at], sizeof(T)) != 0) bad(row ? l : -1);
    }
  v.rel_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  v.valid = v.bad_rows == 0 && !std::isnan(v.rel_l2_error);
  return v;
}

#define SPKIT_SPMM_TIMING(T)                                                                                        \
  template std::vector<double> time_spmm(SpmmPlan<T>&, std::int64_t, std::int64_t, const SpmmShape&, const T*,      \
                                         std::int64_t, T*, std::int64_t, const TimingOptions&, T, T);             \
  template Validation validate_spmm(const Csr<T>&, const SpmmShape&, const std::vector<T>&, std::int64_t, T, T,     \
                                    const std::vector<T>&, const std::vector<T>&, std::int64_t,                    \
                                    const std::vector<double>*);
SPKIT_SPMM_TIMING(float)
SPKIT_SPMM_TIMING(double)
#undef SPKIT_SPMM_TIMING

}  // namespace spkit::harness
