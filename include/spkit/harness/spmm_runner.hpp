#pragma once
// SpMM Y = alpha A X + beta Y from outside the library: time_spmm (the methodology of time_spmv: warm-up,
// timed products, a steady clock on the CPU, CUDA events on the harness's own stream), validate_spmm
// (every entry of Y against the double product of the same rounded inputs, and the padding between k
// and the leading dimension untouched) and run_spmm, which plans, times and validates registered SpMM
// kernels for `spkit spmm`.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/harness/device_select.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/spmm.hpp"
#include "spkit/validate.hpp"

namespace spkit::harness {

// Host X and Y in the plan's layout with leading dimensions ldx, ldy (row-major: cols x ldx and rows x ldy
// elements; column-major: k x ldx and k x ldy). Runs opts.warmup + opts.reps products
// Y = alpha A X + beta Y, each on the Y the one before left (the caller poisons Y with NaN for beta = 0;
// with beta != 0 pass warmup 0, reps 1 for a single product), leaves Y in host_y, returns each timed
// product's milliseconds. CUDA plans: X and Y uploaded once, Y downloaded at the end.
template <class T>
std::vector<double> time_spmm(SpmmPlan<T>& plan, std::int64_t rows, std::int64_t cols, const SpmmShape& shape,
                              const T* host_x, std::int64_t ldx, T* host_y, std::int64_t ldy,
                              const TimingOptions& opts, T alpha = T(1), T beta = T(0));

// Elements of a dense operand of `rows` (rows of A for Y, columns of A for X) with leading dimension ld.
std::int64_t dense_elements(std::int64_t rows, const SpmmShape& shape, std::int64_t ld);

// Checks Y = alpha A X + beta Y0 (one product) entry by entry: the double product of the same rounded
// inputs, tolerance from the error bound of a sum of n products in any order plus the scaling,
// (gamma(n + 3) u_T + gamma(n + 3) u_double) (|alpha| sum_j |a_ij x_jc| + |beta y0_ic|); NaN fails; an
// entry of the padding that differs from Y0 (bitwise) fails. bad_rows counts bad entries, first_bad_row
// is the row of the first. Errors are reported against y_exact (rows x k, row-major) when given.
template <class T>
Validation validate_spmm(const Csr<T>& a, const SpmmShape& shape, const std::vector<T>& x, std::int64_t ldx, T alpha,
                         T beta, const std::vector<T>& y0, const std::vector<T>& y, std::int64_t ldy,
                         const std::vector<double>* y_exact = nullptr);

struct SpmmRunOptions {
  std::string kernels = "all";  // comma-separated globs over spmm_registry() names, and/or "auto"
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions{Precision::f64};
  std::vector<int> threads;     // for parallel CPU kernels; empty: {max threads}
  std::vector<std::int64_t> ks{1, 4, 16, 64};
  std::vector<DenseLayout> layouts{DenseLayout::row_major};
  TimingOptions timing;
  bool include_comparison = true;  // ref.mkl.* and cuda.cusparse.*
  std::uint64_t seed = 1;          // X random in [-1, 1)
  // Time k SpMVs with the SpMV kernel spkit's selector picks (per backend, precision, threads) for the
  // "vs k SpMVs" column: one extra timed SpMV per such group.
  bool compare_spmv = true;
  // The auto rows: "none" times the SpMM kernel auto picks on A as given; any other ordering (auto, rcm,
  // hubsort, community) times spkit::Plan's block apply (row-major only) as a solver gets it: the plan
  // decides (auto) or is told the ordering for expected_products products and, when it renumbers, runs the
  // SpMM on P A P^T with X's rows gathered and Y's scattered in every timed product; its build
  // (ordering, tuning, conversion) is the row's conversion time.
  std::string ordering = "none";
  std::int64_t expected_products = 1000000;
  std::function<void(const SpmmKernelInfo&, Precision, const SpmmShape&, int threads, std::size_t index,
                     std::size_t total)> on_cell;
};

struct SpmmResult {
  std::string kernel, format, backend, precision, layout;
  std::int64_t k = 1;
  int threads = 1;
  double conversion_ms = 0, optimize_ms = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0;
  double gflops = 0;             // 2 nnz k / median
  double gbytes_per_s = 0;       // bytes_moved / median
  double bytes_per_column = 0;   // bytes_moved / k
  std::uint64_t bytes_moved = 0;
  double vs_spmv = 0;            // k x (the SpMV's median) / median; 0: not measured
  std::string spmv_kernel;       // the SpMV kernel vs_spmv compares with
  double speedup = 0;            // over cpu.csr.spmm_serial (CPU) or the fastest cuda.cusparse.* (GPU), same cell
  std::string speedup_over;
  double rel_l2_error = 0, max_abs_error = 0;
  bool valid = false;
  bool comparison = false;
  std::string status;            // "ok", "FAILED", "skipped"
  std::string note;
  std::string picked, pick_reason;  // rows of "auto"
  std::string ordering;             // auto rows through Plan: the ordering the plan kept ("none" or a name)
};

std::vector<SpmmResult> run_spmm(const Csr<double>& a, const SpmmRunOptions& opts);
std::vector<SpmmResult> run_spmm(const SpmmRegistry& reg, const Csr<double>& a, const SpmmRunOptions& opts);
std::string spmm_results_to_json(const std::vector<SpmmResult>& rows);

}  // namespace spkit::harness
