#pragma once
// Runs registered kernels on one matrix the way `spkit spmv` and `spkit bench` do: plan once
// (timed as conversion), warm up, time R runs, validate against the serial double reference.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/harness/device_select.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"

namespace spkit::harness {

struct SpmvResult;

struct SpmvRunOptions {
  std::string kernels = "all";  // comma-separated globs over registry names
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions{Precision::f64};
  std::vector<int> threads;  // for parallel CPU kernels; empty: {max threads}
  TimingOptions timing;
  bool include_comparison = true;  // ref.* and cuda.cusparse.* kernels
  std::uint64_t seed = 1;          // for random x
  const std::vector<double>* x = nullptr;  // given x (else random in [-1, 1) from seed)
  std::uint64_t memory_budget_bytes = 0;
  int hack_size = 32;
  // Called before each cell runs (kernel, precision, threads, index, total) for progress output.
  std::function<void(const KernelInfo&, Precision, int threads, std::size_t index, std::size_t total)> on_cell;
  // Receives y (in double) of each successful kernel run with its row (kernel "auto" and `picked` for the
  // selector's rows), e.g. for --y-out.
  std::function<void(const SpmvResult& row, const std::vector<double>& y)> on_result_y;
  // Also run, and report, the kernels speedups are measured against when the globs left them out
  // (cpu.<format>.serial* for CPU kernels, cpu.csr.serial* for ref.* kernels, every cuda.cusparse.*
  // for CUDA kernels), so that the speedup column is never empty for want of a baseline.
  bool add_baselines = true;
  // "auto" among the comma-separated kernels adds, per precision, backend and thread count, a row
  // "auto": the kernel select_kernel picks for this matrix (spkit/plan.hpp), run like any other; its
  // conversion_ms includes the statistics and the selection. expected_products goes to the selector.
  std::int64_t expected_products = 100;
  // Auto rows: PlanSettings::ordering, tuning and tuning_budget_ms (spkit/plan.hpp: plan_auto). The
  // defaults keep them on the cost model and the matrix's own numbering, as before these existed.
  std::string ordering = "none";
  std::string tuning = "model";
  double tuning_budget_ms = 0;
  // Renumber the matrix by this ordering (spkit/reorder.hpp: "rcm", "hubsort"; "none": as given) before
  // any kernel plans, so that every kernel, cuSPARSE included, is measured on P A P^T; x is renumbered with
  // it, on_result_y receives y in the given numbering and every row's note names the ordering.
  std::string reorder = "none";
};

struct SpmvResult {
  std::string kernel, format, backend, precision;
  int threads = 1;
  double conversion_ms = 0;     // plan time: conversion + partition + upload + preprocessing
  double optimize_ms = 0;       // of which a library's own preprocessing (mkl_sparse_optimize); 0: none
  double median_ms = 0, mean_ms = 0, min_ms = 0;
  double gflops = 0;            // 2 nnz / median (true non-zeros)
  double gbytes_per_s = 0;      // effective: CSR bytes in this precision / median (common yardstick)
  double own_gbytes_per_s = 0;  // this format's own bytes_moved / median
  double speedup = 0;           // over the serial kernel of the same format, same precision (0: none);
                                // ref.* and formats without a serial kernel: over cpu.csr.serial;
                                // CUDA: over the fastest cuda.cusparse.* row of the run (see speedup_over)
  double efficiency = 0;        // speedup / threads (CPU rows; 0 for CUDA rows)
  double rel_l2_error = 0, max_abs_error = 0;
  bool valid = false;
  std::string status;           // "ok", "FAILED", "skipped"
  std::string note;             // why skipped/failed, or the kernel's detail()
  bool comparison = false;
  std::uint64_t bytes_moved = 0;
  // CUDA kernels on a matrix whose CSR bytes fit in the GPU's L2 run twice: warm (l2_flushed false)
  // and with L2 evicted between runs (l2_flushed true, note says "L2-flushed").
  bool l2_flushed = false;
  std::string speedup_over;     // the kernel `speedup` is relative to (empty: none)
  // Rows of kernel "auto": the registry kernel the selector picked, and its one-line reason.
  std::string picked;
  std::string pick_reason;
  // Auto rows: the renumbering the plan kept ("none" or an ordering), how the pick was made ("model" or
  // "measure"), the ms spent measuring, and the model's first pick as "kernel (ordering)" (when measuring,
  // the first candidate timed: model_pick_won says whether it was also the fastest measured).
  std::string ordering, tuning, model_pick;
  double tuning_ms = 0;
  bool model_pick_won = false;
};

// The common yardstick: bytes CSR must move in precision T with 32-bit row pointers,
// (sizeof(T) + 4) nnz + 4 m + sizeof(T) (m + n)  (12 nnz + 4 m + 8 (m + n) in fp64).
std::uint64_t csr_effective_bytes(const Csr<double>& a, Precision p);

std::vector<SpmvResult> run_spmv(const Csr<double>& a, const SpmvRunOptions& opts);
// The same over any registry (tests use a local one holding a deliberately broken kernel).
std::vector<SpmvResult> run_spmv(const Registry& reg, const Csr<double>& a, const SpmvRunOptions& opts);

// Random x in [-1, 1) as run_spmv draws it from a seed (for reproducing a run).
std::vector<double> random_x(std::int64_t n, std::uint64_t seed);

}  // namespace spkit::harness
