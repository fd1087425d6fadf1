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

// cpu.csr.omp.dynamic: schedule(dynamic, chunk) with chunk = kCsrDynamicNzPerChunk / mean row length, so
// a chunk holds about this many non-zeros whatever the row lengths (the OpenMP CSR comparison of
// docs/PERFORMANCE.md, "CPU CSR schedules").
inline constexpr std::int64_t kCsrDynamicNzPerChunk = 8192;

// cpu.csr.omp.spkit: merge-path shares per thread (with more than one thread), handed out dynamically:
// equal non-zeros are not equal time when gathers from x miss the cache unevenly (random and power-law
// matrices on the 16-core device host; unchanged on the 2-core dev box). docs/PERFORMANCE.md, the
// "8 merge-path shares per thread" run.
inline constexpr int kCsrSpkitSharesPerThread = 8;

// cpu.csr.omp.spkit, AVX-512 rows: rows of at most this many entries run as scalar code (cheaper than a
// masked gather plus a horizontal reduction); a higher threshold helps power-law matrices but costs road
// networks (2-4 entries per row) branch mispredictions. A/B-measured on powerlaw and road: docs/perf/cpu.md.
inline constexpr int kCsrSpkitScalarRowMax = 1;

// Cost models of the CPU kernels: fraction of the copy bandwidth each reaches over its own bytes when the
// matrix is far larger than the caches (L3-resident matrices run faster, as every kernel does). From the
// interleaved 1-thread runs of docs/perf/selector.md unless said otherwise.
inline constexpr double kCsrSpkitEfficiency = 0.9;
// Row-major ELL gathers row by row: about 0.6x of cpu.hll.omp.guided per byte.
inline constexpr double kEllOmpEfficiency = 0.55;
// Per byte within 0.8-1.25x of cpu.csr.omp.spkit, so the same figure.
inline constexpr double kHllOmpEfficiency = 0.9;
// cpu.hyb.omp: its ELL part at about 0.55x of cpu.hll.omp.guided per byte; its COO part is a scalar
// scatter (power-law: 2x slower than CSR).
inline constexpr double kHybOmpEllEfficiency = 0.5;
inline constexpr double kHybOmpCooEfficiency = 0.3;
// DIA kernels, from the quiet dev-box runs of docs/PERFORMANCE.md (2 threads, fp64): the tiled kernel
// streamed its own bytes at ~21-22 GB/s, the symmetric one at 18.8 GB/s (its mirror reads come from
// cache), i.e. about the machine's streaming rate (partly from L3): 1.0 and 0.87 of it. Serial: half.
inline constexpr double kDiaSerialEfficiency = 0.5;
inline constexpr double kDiaOmpEfficiency = 1.0;
inline constexpr double kDiaOmpSymEfficiency = 0.87;
// Fixed cost per product of the CPU kernels' models, microseconds: fork-join (and merge-path carries)
// kCpuForkJoinUs + kCpuPerThreadUs per thread; the DIA kernels' measured figures.
inline constexpr double kCpuForkJoinUs = 2;
inline constexpr double kCpuPerThreadUs = 0.5;
inline constexpr double kDiaSerialLaunchUs = 1;
inline constexpr double kDiaOmpLaunchUs = 5;

// =============================================================================================
// CUDA SpMV kernels (src/kernels/cuda)
// =============================================================================================



// =============================================================================================
// Auto-selection (src/select)
// =============================================================================================

// Copy bandwidth the selector divides bytes by. GPU: the device's theoretical bandwidth (memory clock x
// bus width) x kGpuCopyOfPeak, the ratio measured on the H100 (2838 GB/s copy of 3352 peak); without a
// device, kGpuDefaultCopyGBs (the H100's measurement, docs/perf/cuda.md). CPU: kCpuCopyGBsPerThread per
// thread up to kCpuCopyGBsMax (2 threads: 13 GB/s, the STREAM copy figure of the 2-core dev box; 16
// threads on the device host: 80 GB/s measured), a fixed default so the choice is deterministic and costs
// no measurement. docs/perf/selector.md.
inline constexpr double kGpuDefaultCopyGBs = 2840;
inline constexpr double kGpuCopyOfPeak = 2838.0 / 3352;
inline constexpr double kCpuCopyGBsPerThread = 6.5;
inline constexpr double kCpuCopyGBsMax = 80;

// Conversion rate (convert_bytes per second) of a plan: CPU: median over the conversions of
// cpu.ell/hll/hyb.omp on 9 generated matrices on the 2-core dev box; GPU: median over ELL, HLL, HYB and
// bmSparse on the H100 large bench, plan time minus the upload-only plan time of cuda.csr.subwarp.
// docs/perf/selector.md.
inline constexpr double kCpuConvertGBs = 2.5;
inline constexpr double kCudaConvertGBs = 2.5;

// x gathers the formats' bytes do not count (cost::with_gathers): extra bytes moved per non-zero alone in
// its 8x8 block. GPU: fitted on the H100 (on random rows every kernel reached ~50% / ~36% of copy over its
// own bytes in fp64 / fp32); CPU: one 64-byte line, the DRAM-resident case. docs/perf/selector.md.
inline constexpr double kGpuIsolatedGatherBytes = 12.0;
inline constexpr double kCpuIsolatedGatherBytes = 64.0;

// =============================================================================================
// SpGEMM (src/spgemm)
// =============================================================================================



// =============================================================================================
// Benchmark suite (src/harness)
// =============================================================================================



}  // namespace spkit::tuning
