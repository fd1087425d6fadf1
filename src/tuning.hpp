#pragma once
// The measured constants of spkit in one place: launch shapes, thresholds, chunk sizes and cost-model
// efficiencies that were tuned or fitted on a machine, each with what it controls, where it was measured
// and the note that holds the data (docs/perf/...). A constant that is a property of an algorithm rather
// than a measurement (a warp is 32 lanes, a bmSparse block is 8x8) stays where it is used.
#include <cstdint>

namespace spkit::tuning {

// =============================================================================================
// CPU SpMV kernels (src/kernels/cpu)
// =============================================================================================



// =============================================================================================
// CUDA SpMV kernels (src/kernels/cuda)
// =============================================================================================



// =============================================================================================
// Auto-selection (src/select)
// =============================================================================================



// =============================================================================================
// SpGEMM (src/spgemm)
// =============================================================================================



// =============================================================================================
// Benchmark suite (src/harness)
// =============================================================================================

// The matrix size up to which a bench cell gets all its timed repetitions (--reps, default 20): beyond
// kFullRepsNnz non-zeros a cell gets proportionally fewer, never under kMinSuiteReps. A product on 2M
// non-zeros takes ~1-3 ms on a 2-core box, where medians of 20 runs repeat within a few percent
// (docs/BENCH.md); large matrices run long enough that 5 suffice.
inline constexpr double kFullRepsNnz = 2e6;
inline constexpr int kMinSuiteReps = 5;
// CUDA rows take at least this many timed products (launch jitter is large against sub-millisecond
// kernels, and GPU products are cheap).
inline constexpr int kMinGpuSpmvReps = 30;

// The bandwidth sweep that decides where the caches end (harness/cache_sweep.hpp): copy working sets
// from kSweepMinBytes to kSweepMaxBytes, doubling; the first size past which every larger one stays
// within kSweepPlateauTolerance of the largest size's bandwidth is "out of cache". 15%: on the 2-core
// dev VM (sysfs: a 480 MiB L3) the copy curve reads ~57 GB/s to 64 MiB, 35 at 128 MiB, 28 at 256 MiB,
// 25 at 512 MiB-1 GiB; run to run the plateau moves by ~10%, so a tighter bound would chase noise.
inline constexpr std::uint64_t kSweepMinBytes = std::uint64_t(1) << 20;
inline constexpr std::uint64_t kSweepMaxBytes = std::uint64_t(1) << 30;
inline constexpr double kSweepPlateauTolerance = 0.15;

// Formats that degenerate on a matrix are not timed by default (spkit bench --all-cells times them):
// ELL/HLL storing over kMaxPaddedBytesRatio x the bytes of CSR, bmSparse blocks holding under
// kMinBmNnzPerBlock non-zeros on average. On an R-MAT graph such cells took minutes each on the dev box.
inline constexpr double kMaxPaddedBytesRatio = 4.0;
inline constexpr double kMinBmNnzPerBlock = 1.5;

// The SpGEMM section's budget of intermediate products per A A: the `small` suite's stencils, FEM,
// banded and road matrices (<= ~65M products each) fit; power-law-like matrices whose heavy rows meet
// heavy rows do not. At ~1-2 GFLOPS per kernel on 2 cores that keeps the section to 10-30 s per matrix.
inline constexpr std::int64_t kSpgemmBenchMaxProducts = 100'000'000;

}  // namespace spkit::tuning
