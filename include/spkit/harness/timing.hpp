#pragma once
// Timing an SpMV plan from outside: the harness runs the kernel's own run(1, x, 0, y, stream) between
// clock readings, so the library carries no timing loop. CPU plans are timed with a steady clock around
// each product; CUDA plans with events on a stream of the harness's own, x uploaded once and y poisoned
// with NaN first, L2 optionally evicted (untimed) before each timed product.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "spkit/kernel.hpp"

namespace spkit::harness {

struct TimingOptions {
  int warmup = 3;            // untimed products first (page faults, caches, GPU clocks)
  int reps = 30;             // timed products; at least one is always timed
  bool flush_cache = false;  // GPU: evict L2 between runs (untimed) to measure cold-cache SpMV
  int device = 0;            // GPU: the device the plan was made on (PlanOptions::device)
  // Products per timed sample: each sample is `batch` back-to-back products / batch (on the GPU launched
  // without waiting in between, as vendor and published benchmarks time, so a product's launch latency,
  // 3.6-7.3 us on an H200 (docs/perf/spmv-gpu.md, stop 49), is hidden as in a solver that does not wait
  // for each product). 1: one synchronised product per sample, as a caller that waits for each pays it.
  // With flush_cache every sample is one product.
  int batch = 1;
};

// Runs opts.warmup + opts.reps products y = A x of `plan` (a matrix of `rows` x `cols`) on host x, leaves
// A x in host y and returns each timed product's milliseconds. Throws what the plan throws, and
// DeviceError for a CUDA plan in a build without CUDA.
template <class T>
std::vector<double> time_spmv(SpmvPlan<T>& plan, std::int64_t rows, std::int64_t cols, const T* host_x, T* host_y,
                              const TimingOptions& opts);

// The order in which to time cells of these thread counts: narrowest team first, stable otherwise. On a
// many-core host a product timed right after a wider team's ran slower: the team's threads still spin
// and the cores share a lowered clock (device host, 16 cores, 2026-11-27: cpu.dia.omp_sym on lap3d27 fp32,
// 1 thread, 0.77 ms in a process of its own, 0.95 / 1.54 ms after 16-thread cells with / without
// OMP_PROC_BIND).
std::vector<std::size_t> narrowest_first(const std::vector<int>& threads);
// Before timing a CPU cell of `threads` threads: waits tuning::kThreadSettleMs when the last cell timed in
// this process ran a wider team, for that team's threads to stop spinning.
void settle_threads(int threads);
// Calls run(i) for every cell i, narrowest team first, settling before each CPU cell (threads[i] > 0;
// GPU cells pass 0).
template <class Run>
void run_narrowest_first(const std::vector<int>& threads, Run&& run) {
  for (const std::size_t i : narrowest_first(threads)) {
    if (threads[i] > 0) settle_threads(threads[i]);
    run(i);
  }
}

}  // namespace spkit::harness
