#pragma once
// The measured constants of spkit in one place: launch shapes, thresholds, chunk sizes and cost-model
// efficiencies that were tuned or fitted on a machine, each with what it controls, where it was measured
// and the note that holds the data (docs/perf/...). A constant that is a property of an algorithm rather
// than a measurement (a warp is 32 lanes, a bmSparse block is 8x8) stays where it is used. The SpMM constants are in
// tuning_spmm.hpp, included at the end.
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
// cpu.bsr.omp: the block size must store at most this many entries per non-zero (explicit zeros in the
// blocks): at 1.25 a 3x3 float block moves (1.25 * 4 + 4/9) = 5.4 bytes per non-zero, still below CSR
// with 16-bit columns (6), and its x reads are one per block column. Dense dof blocks have fill 1.00.
inline constexpr double kCpuBsrMaxFill = 1.25;
// cpu.bsr.omp's cost model: fraction of the copy bandwidth over its own bytes. On the DRAM-resident
// fem_mesh (36M non-zeros, 3x3 blocks, dev box, 2026-11-27, docs/perf/spmv-cpu.md) it moved its own bytes
// at 0.77x (1 thread) and 0.84x (2 threads) the rate of cpu.csr.omp.spkit: 0.8x the CSR figure.
inline constexpr double kCpuBsrEfficiency = 0.8 * kCsrSpkitEfficiency;

// cpu.sell.omp.simd (SELL-C-sigma, 16 rows per AVX-512 register): rows are sorted by length within windows
// of kCpuSellSimdSigma rows (small enough that a window's rows stay near each other in x); rows of at
// least max(kCpuSellSimdLongRowMin, kCpuSellSimdLongRowFactor x mean length) entries leave the slices and
// run as CSR chunks of about kCpuSellSimdChunkNnz entries (one huge row shared by the threads).
// Dev box A/B, 2026-11-27, docs/perf/spmv-cpu.md.
inline constexpr std::int64_t kCpuSellSimdSigma = 1024;
inline constexpr std::int64_t kCpuSellSimdLongRowMin = 32;
inline constexpr std::int64_t kCpuSellSimdLongRowFactor = 4;
inline constexpr std::int64_t kCpuSellSimdChunkNnz = 4096;
// Its cost model: padding as MatrixStats' SELL-32 estimate but at most kCpuSellSimdPaddingCap (the long
// rows that pad those slices run outside ours: measured 0-9% on the suite's geometric, random, powerlaw
// and circuit against SELL-32's 3-89%), and its efficiency over its own bytes.
inline constexpr double kCpuSellSimdPaddingCap = 0.15;
// (Not fitted: cpu.csr.omp.spkit's figure; per own byte it ran at or above that kernel on all four, 1 thread.)
inline constexpr double kCpuSellSimdEfficiency = kCsrSpkitEfficiency;

// Fixed cost per product of the CPU kernels' models, microseconds: fork-join (and merge-path carries)
// kCpuForkJoinUs + kCpuPerThreadUs per thread; the DIA kernels' measured figures.
inline constexpr double kCpuForkJoinUs = 2;
inline constexpr double kCpuPerThreadUs = 0.5;
inline constexpr double kDiaSerialLaunchUs = 1;
inline constexpr double kDiaOmpLaunchUs = 5;

// =============================================================================================
// CUDA SpMV kernels (src/kernels/cuda)
// =============================================================================================

// Efficiencies of the cost models (KernelInfo::cost): own bytes over median time as a fraction of the
// device's copy bandwidth, net of the launch, fp64 / fp32. Unless said otherwise: H100, 16M non-zeros per
// matrix, docs/perf/data/gpu-bench-h100-large.csv, fit in docs/perf/selector.md.
struct CudaEfficiency {
  double f64, f32;
};

// Long CSR rows cut into fixed chunks (cuda.csr.subwarp's long rows, cuda.csr.binned's long-row bin): one
// block of kCudaChunkThreads threads per chunk, kCudaChunkItems independent loads in flight per thread, so
// a chunk is 2048 non-zeros; a row of a million entries is spread over ~500 blocks instead of one.
// docs/perf/cuda-csr-binned.md.
inline constexpr int kCudaChunkThreads = 256;
inline constexpr int kCudaChunkItems = 8;

// cuda.csr.subwarp: lanes per row = the largest power of two <= mean row length / kCudaSubwarpEntriesPerLane
// (each lane about four non-zeros: few idle lanes, short reductions); rows longer than
// kCudaSubwarpLongRowPerLane x lanes go to chunks (16 iterations per lane), so one long row cannot hold a
// warp of short ones.
inline constexpr double kCudaSubwarpEntriesPerLane = 4.0;
inline constexpr int kCudaSubwarpLongRowPerLane = 16;
// 95% / 89% on regular rows of >= 5 entries (lap3d7, fem, banded, lap2d), x 0.95 / 0.85 below 4 per row
// (road: 2 lanes half idle); / (1 + 0.05 irregularity): a group waits for the longest row of its warp.
inline constexpr CudaEfficiency kCudaSubwarpEfficiency{0.95, 0.89};
inline constexpr CudaEfficiency kCudaSubwarpShortRowFactor{0.95, 0.85};

// cuda.csr.adaptive (Greathouse & Daga's CSR-adaptive): kCudaAdaptiveProductsPerThread products per thread
// in the CSR-stream phase (enough bytes in flight per block; shared memory threads x 4 x sizeof(T) well
// under the per-block limit). 83% / 68% on regular rows (one thread per row in the reduction caps it).
inline constexpr int kCudaAdaptiveProductsPerThread = 4;
inline constexpr CudaEfficiency kCudaAdaptiveEfficiency{0.83, 0.68};

// cuda.csr.merge (Merrill & Garland's merge-path): tiles of kCudaMergeThreads x items (7 fp64 / 9 fp32: the
// shared memory of 20 resp. 12 bytes per item fills a block's share). Efficiency measured before the batched
// loads (docs/perf/cuda-csr-sell.md): 52% / 64% on stencil and FEM rows (mean >= 16), 30% / 25% else.
inline constexpr int kCudaMergeThreads = 256;
inline constexpr int kCudaMergeItemsF64 = 7;
inline constexpr int kCudaMergeItemsF32 = 9;
inline constexpr CudaEfficiency kCudaMergeLongRowEfficiency{0.52, 0.64};
inline constexpr CudaEfficiency kCudaMergeShortRowEfficiency{0.30, 0.25};

// cuda.csr.binned: rows over kCudaBinnedLongRow non-zeros (32 per lane of a warp) go to chunks; stream mode
// (cuda.csr.binned_stream) gives a warp up to kCudaStreamEntries non-zeros of consecutive short rows.
// docs/perf/cuda-csr-binned.md has both measurements.
inline constexpr std::int64_t kCudaBinnedLongRow = 1024;
inline constexpr int kCudaStreamEntries = 128;
// Binned cost: a little under subwarp on regular rows (predicted within ~5% on circuit, power-law, rmat,
// geometric, fem_mesh), x 0.95 / 0.85 below 4 per row; rows of 16-1024 non-zeros in tiles with whole-line
// loads measured 1.25-1.29x (fp64) and 1.10-1.19x (fp32) the kernel before on fem, fem_mesh, lap3d 27-pt.
inline constexpr CudaEfficiency kCudaBinnedEfficiency{0.90, 0.82};
inline constexpr CudaEfficiency kCudaBinnedShortRowFactor{0.95, 0.85};
inline constexpr CudaEfficiency kCudaBinnedTileGain{1.25, 1.11};
// Warp streams over binned, same runs (13 generated families, two rounds): 1.14 (the median) where the mean
// row is under 16 and few rows are empty, 0.97 on longer rows, 0.98 with many empty rows (rmat).
inline constexpr double kCudaStreamShortRowGain = 1.14;
inline constexpr double kCudaStreamLongRowGain = 0.97;
inline constexpr double kCudaStreamEmptyRowGain = 0.98;
// Columns renumbered by degree over binned, fitted on rmat (hub share 0.43), rising linearly from a hub share
// of 0.25 to 0.4 (with the tiled rows, 2026-11-24 night): 0.82x in fp64, 1.06x in fp32.
inline constexpr CudaEfficiency kCudaBinnedDegreeGain{0.82, 1.06};

// cuda.sell.c32 / cuda.sell.delta16 on their own bytes (docs/perf/cuda-csr-sell.md; H100, 16M nnz, with the
// window sort's permutation): 27-point stencil and FEM (mean row >= 16) 76-84% (c32) / 70-78% (delta16) fp64,
// 74-83% / 59-68% fp32; random 8 per row (x gathers) 50% fp64, 36% fp32, either index width.
inline constexpr CudaEfficiency kCudaSellC32Efficiency{0.80, 0.78};
inline constexpr CudaEfficiency kCudaSellDelta16Efficiency{0.74, 0.63};
inline constexpr CudaEfficiency kCudaSellShortRowEfficiency{0.50, 0.36};

// cuda.bmsparse.base: efficiency min(cap, base + slope x non-zeros per 8x8 block) in fp64, x fp32 factor in
// fp32 (38% of copy on banded at 29 nz/block, 37% fem (15), 31% lap3d27 (10), 23% lap2d (5.7)); a long row's
// blocks run in turn, ~0.95 us per 8 entries of the longest row past 64 (circuit's 941k-entry row: 112 ms).
inline constexpr double kCudaBmBaseEfficiencyCap = 0.42;
inline constexpr double kCudaBmBaseEfficiencyBase = 0.18;
inline constexpr double kCudaBmBaseEfficiencyPerBlockNnz = 0.011;
inline constexpr double kCudaBmBaseF32Factor = 0.7;
inline constexpr double kCudaBmBaseUsPerLongRowBlock = 0.95;
// cuda.bmsparse.warp: min(cap, slope x non-zeros per block), fp64 / fp32 (docs/perf/cuda-dia-bm.md).
inline constexpr CudaEfficiency kCudaBmWarpEfficiencyCap{0.54, 0.38};
inline constexpr CudaEfficiency kCudaBmWarpEfficiencyPerBlockNnz{0.035, 0.025};

// cuda.ell.col_major: 102% / 95% on the stencils and FEM (reads alone reach 104% of copy).
inline constexpr CudaEfficiency kCudaEllEfficiency{1.02, 0.95};
// cuda.hll.col_major: 95% / 75% on the regular matrices (the fp32 gap to ELL is index arithmetic).
inline constexpr CudaEfficiency kCudaHllEfficiency{0.95, 0.75};
// cuda.hyb: COO part (warp-segmented sums, one atomicAdd per segment) fitted to power-law; each segment's
// atomic costed as 48 bytes of traffic (road: 1.6M overflowing rows of 1-2 entries made HYB 40% slower than
// its bytes); the atomics of one long row serialize at ~7 ns per 32 entries (circuit's 941k-entry row: +0.2 ms).
inline constexpr double kCudaHybCooEfficiency = 0.9;
inline constexpr double kCudaHybAtomicBytes = 48;
inline constexpr double kCudaHybAtomicUsPer32 = 0.007;
// cuda.dia / cuda.dia.sym on 16M-nnz stencils and bands (docs/perf/cuda-dia-bm.md; launch overhead weighs
// more in fp32).
inline constexpr CudaEfficiency kCudaDiaEfficiency{0.88, 0.70};
inline constexpr CudaEfficiency kCudaDiaSymEfficiency{0.80, 0.60};

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

// Reordering inside the plan (src/plan/auto_plan.cpp, PlanSettings::ordering "auto").
// A matrix whose mean |col - row| is under this fraction of n counts as well numbered and is not
// renumbered: randomly numbered matrices sit at 23-37% (fem_mesh, road_planar --ordering random, random,
// powerlaw), Morton-, BFS- and naturally numbered meshes, grids and roads of the generators at 0.003-3.2%
// (fem_mesh sfc 3D: 2.3%, and 3.2% after RCM; lap3d 0.7%), measured with spkit::locality on the dev box.
inline constexpr double kReorderWellNumberedDistance = 0.05;
// ... and an ordering is kept (ordering "auto") only when it at least halves that mean distance: RCM
// made circuit (15%) worse (31%), which the model, seeing only 8x8-block statistics, might not notice.
inline constexpr double kReorderMinDistanceGain = 0.5;
// Host wall time of computing an ordering, P A P^T and its statistics, per stored entry: RCM on
// fem_mesh / road_planar --ordering random at 1.6-8.3M non-zeros on the 2-core dev box (other builds
// running) took 200-460 ns per entry end to end (hub sorting: 230); the estimate decides whether to
// compute one at all.
inline constexpr double kReorderNsPerNonzero = 300.0;
// The most a renumbering is assumed to save of a product (the measurements: 1.05-1.53x on
// meshes and roads, i.e. at most ~35%): an ordering whose estimated cost exceeds this share of the
// expected products' predicted time is not computed.
inline constexpr double kReorderMaxSaving = 0.35;
// Hub sorting instead of RCM when the 1% most used columns hold at least this share of the non-zeros
// (MatrixStats::hub_column_share: 0.01-0.05 on meshes and roads, 0.3+ on power-law graphs).
inline constexpr double kHubsortMinHubShare = 0.2;
// Fixed cost per product of the gather and scatter passes: two extra launches on the GPU (~2 us each on
// the H100), two OpenMP loops on the CPU.
inline constexpr double kGpuPermuteLaunchUs = 4.0;
inline constexpr double kCpuPermuteLaunchUs = 2.0;

// Measuring selection (src/plan/tuner.cpp, PlanSettings::tuning). "auto" measures from this many
// expected products: a candidate costs a conversion plus ~30 products to time, which 1000 products
// amortise within a few percent while the model's mis-picks cost 10-20% per product (issue: 1.20x).
inline constexpr std::int64_t kTuneMinProducts = 1000;
// Default bound on the tuning time: this share of the predicted time of all expected products, and never
// more than the cap (a plan a user waits for; FFTW's "measure" planner takes seconds). The time goes
// mostly to building the candidates' formats, not to timing them: on the H100 at 16M non-zeros a 500 ms
// cap built only 3 of 6 candidates on geometric and road_planar randomly numbered (2026-11-27), so the
// cap is 2 s.
inline constexpr double kTuneBudgetShare = 0.1;
inline constexpr double kTuneBudgetCapMs = 2000.0;
// Candidates timed per ordering: the model's top kernels (its first pick always among them). Three
// missed the fastest kernel on road_planar randomly numbered in fp32 (cuda.csr.binned_stream, the
// model's fourth: 258 against the picked cuda.csr.scalar's 214 GFLOPS, H100, 2026-11-27).
inline constexpr int kTuneTopKernels = 4;
// The CPU's (a conversion costs tens of ms): every costed kernel. With four, cpu.hyb.omp (the model's fifth)
// was never timed on random 8M fp32 (dev box, 2026-11-28): 2.48 GFLOPS against auto's sell.omp.simd 1.94.
inline constexpr int kTuneTopKernelsCpu = 7;
// Per candidate: one warm-up product, then batches of products timed with one synchronize each; the
// best batch mean is the measurement (batches damp launch jitter and other processes' noise).
inline constexpr int kTuneBatches = 3;
inline constexpr int kTuneProductsPerBatch = 10;
// A batch holds as many products as take about this long (at most kTuneProductsPerBatch, at least one),
// sized by the warm-up product: a 20 ms product (8M non-zeros, one thread) is timed on 1 + 3 products,
// not 31, so the budget reaches more candidates (before: 3 of 4 timed in 1.9 s on random 8M).
inline constexpr double kTuneBatchTargetMs = 10.0;
// Bounds on the factor that calibrates the model's product times by the first measured candidate (a
// guard against a first measurement disturbed by another process).
inline constexpr double kTuneScaleMin = 0.05;
inline constexpr double kTuneScaleMax = 20.0;

// =============================================================================================
// SpGEMM (src/spgemm)
// =============================================================================================

namespace spgemm {

// --- CPU kernels (src/spgemm/cpu), measured on the 2-core dev box (docs/perf/spgemm.md) ---

// Gustavson with a dense accumulator emits a row of C by scanning its presence bytes, with no sort,
// when the row's 64-column blocks times this cost are at most the n log2 n steps of sorting its n
// columns (banded, FEM, 27-point rows: dense bands, scanned); else it sorts the row's column list.
// Dev box, 1 thread, CPU time at 500K non-zeros, 2026-11-27: 4 against the earlier rule (scan up to 4
// blocks per entry) took lap2d 12.3 -> 8.7 ms, road 16.0 -> 12.9, road_planar 16.1 -> 11.8, lap3d7
// 13.9 -> 12.7 (their rows of C: 5-24 entries over 12-100 blocks), FEM, banded, 27-point and power-law
// unchanged; 1 and 2 scanned lap3d7 (2x slower at 1), 8 and 16 sorted FEM and power-law rows (+5-10 %).
constexpr int kDenseScanBlockCost = 4;
// The dense accumulator handles up to three consecutive entries of A together when their rows of B hold
// the same columns (FEM's dof blocks: 2 of 3 consecutive rows of B), if at least this share of sampled
// pairs of consecutive rows of B do. fem 3-dof, 1 thread: 30 % less CPU time per product; stencils,
// road, banded (no such rows) paid 3-10 % for looking, hence the sample (docs/perf/spgemm-cpu.md).
constexpr double kDenseGroupMinShare = 0.25;
// OpenMP dynamic-schedule chunks: rows of C per chunk in Gustavson's two phases, block rows of C per
// chunk in the CPU bmSparse product (whose block rows each hold 8 rows and many block products).
constexpr int kGustavsonRowsPerChunk = 64;
// Rows per dynamic chunk of the two-pass route's row products (a sum of row lengths per row: cheap
// rows, so big chunks; dynamic so that a descheduled thread stalls the others one chunk at most).
constexpr int kBoundRowsPerChunk = 4096;
// Gustavson's one-pass route with several threads cuts the rows into this many chunks of equal work
// per thread: thread 0 writes its chunks straight into C, the others' chunks are appended afterwards,
// or taken over by thread 0 when still running once the claims meet (one more chunk of work at most).
constexpr int kOnePassChunksPerThread = 16;
// ... from this many threads on, the chunks are assembled into C by all threads past a barrier
// (one_pass.hpp, assemble_in_parallel) instead of appended by thread 0. Device host (16 cores,
// 2026-11-27), FEM 3-dof fp64, C of 7M entries: thread 0's appends 37.6 ms at 16 threads against 157.5
// at 1, MKL's sp2m 23.0; assembled, 22.4 ms against 31.0 for the appends in one later call (MKL 18.1).
// The barrier-free route stays for the 2-core dev box, where a descheduled thread is common; 4 and 8
// threads were measured only on a noisy host (docs/PERFORMANCE.md, CPU SpGEMM).
constexpr int kOnePassAssembleMinThreads = 4;
// ... a thread computing a chunk checks every this many rows whether thread 0 took it over.
constexpr int kOnePassStealCheckRows = 64;
// ... while thread 0 appends the other threads' chunks to C, thread 1 faults in C's pages ahead of it in
// steps of this many bytes of values (the kernel zeroes fresh pages at their first touch: a quarter of
// the product's time on the dev box).
constexpr std::int64_t kOnePassPopulateBytes = std::int64_t(2) << 20;
// Rows of C of at most this many entries are written through a buffer of kOnePassRowBufferEntries
// (12-24 KB: L1) and appended to C in batches, longer ones in place (a vector resize each). Dev box, 1
// thread, CPU time, 500K non-zeros, medians of 3 against all in place: road 11.9 -> 10.7 ms, road_planar
// 10.5 -> 9.9; banded (21 per row), FEM, stencils within noise; 16 and 32 alike (docs/perf/spgemm-cpu.md).
constexpr std::int64_t kOnePassBufferedRowEntries = 32;
constexpr std::int64_t kOnePassRowBufferEntries = 2048;
// Gustavson writes C in one pass, into arrays reserved at its bound (a row's products, at most B.cols),
// while that bound takes at most this share of the memory available; else it counts C's rows exactly
// first. The reservation is address space: only the pages written are ever touched.
constexpr double kOnePassMemoryShare = 0.5;
// Gustavson's output arrays of at least this many bytes ask for transparent huge pages: first-touch
// page faults of C were a third of the product on the dev box (4 KiB faults ~3 us each on its VM).
constexpr std::int64_t kHugePageMinBytes = std::int64_t(4) << 20;
constexpr int kBmsparseBlockRowsPerChunk = 16;
// cpu.dia.spgemm (src/spgemm/cpu/dia.cpp) takes A and B with at most this many diagonals (distinct
// column - row offsets). Not a measured crossover: it bounds the structure scan's work per run of rows and
// the product's diagonal table (64 x 64 lanes); banded at half-bandwidth 5 has 11, the 27-point stencil 27
// (refused anyway: its diagonals have gaps at the grid's edges).
constexpr std::int64_t kCpuDiaMaxDiagonals = 64;

// --- CUDA kernels (src/spgemm/cuda), measured on an H100 (docs/perf/spgemm-gpu.md) ---

// Task lists below this many tasks are sorted by one radix sort of (i, k) instead of the segmented
// sort over block rows (Berger et al.'s adaptive sort; SpgemmOptions::sort_threshold overrides it).
// Sort sweep: the radix sort took 55-70 ps per task at every size from 0.7M to 20M tasks; the segmented
// sort 120-470 ps per task on the block-rich lists (FEM, 27-point: 150-600 tasks per block row), and won
// only on random matrices, whose block rows hold ~2,300 tasks (37 ps per task at 57M-144M tasks, ~50 ps
// at 2.8M). 2^25 keeps every block-rich list measured on the radix path and sends the very large lists,
// where the segmented sort's lower per-task cost shows, to the segmented path.
constexpr std::int64_t kRadixSortBelowTasks = std::int64_t{1} << 25;
// Grid-stride kernels launch at most this many waves of resident thread blocks.
constexpr int kGridWaves = 4;
// cuda.csr.hash: rows of at most this many products (roads: ~9) go one thread each, a sorted list.
constexpr int kHashTinyRowProducts = 16;
// ... rows of at most this many products one warp each, a hash table of 32-512 slots in shared memory.
constexpr int kHashShortRowProducts = 256;
// ... a row whose table does not fit shared memory gets one thread block per this many products (one
// block per row left a single long row of a power-law matrix running alone).
constexpr std::int64_t kHashHugeRowProductsPerBlock = 4096;
// ... thread blocks per SM for the mid and huge rows, and for copying the sorted rows back.
constexpr int kHashRowBlocksPerSm = 8;
constexpr int kHashCopyBlocksPerSm = 16;

// cuda.csr.binned (src/spgemm/cuda/csr_binned*.cu). Bins from the row statistics of the matrices
// (docs/perf/spgemm-gpu.md, "cuda.csr.binned"): rmat (138,889 rows) has 59K rows of <= 32 products, 36K
// rows of > 4,096 products carrying 96% of its 1.1e9 products and up to 75K columns per row of C;
// fem_mesh P1/P2 (random ordering) rows hold 2-37K products but only 240-1,950 columns of C.
// Rows whose output range (last - first column) fits this many columns, or whose columns may not fit
// the largest shared hash table, are accumulated densely in shared memory per window of this many
// columns, one warp per window (2 warps per block: 2 x 16 KiB of doubles).
constexpr int kBinnedWindowColumns = 2048;
// ... a window of at most 256 / 1,024 columns (its symbolic count) accumulates its numeric pass in that
// many shared slots instead of 2,048 (csr_binned_window.cuh), from the symbolic bitmaps kept in device
// memory (256 B a window) where they take at most 1 / kBinnedWindowBitsShare of the memory left. H100,
// 2026-11-27, R-MAT (138,889 rows): the dense fp64 accumulator's numeric windows took 43.9 ms, the fp32
// one (twice the warps per SM) 24.9 ms, the symbolic walk 11.0 ms.
constexpr std::uint64_t kBinnedWindowBitsShare = 8;
// ... a row whose range fits one window goes dense once it may hold more than this many columns.
constexpr std::int64_t kBinnedDenseMinColumns = 128;
// ... other rows of at most this many products whose column bound exceeds 1,024 try the 4,096-slot
// shared table first (fem_mesh P2: 7.6K products, 774 columns per row at the median) and fall back to
// windows when it fills beyond 3/4; rows with more products (one warp would walk them alone for
// longer than the rest of the product takes) go to windows directly.
constexpr std::int64_t kBinnedHashTryMaxProducts = std::int64_t{1} << 14;
// ... from this many such rows per SM, 2,048 keys are tried first and the numeric pass adds 1,536- and
// 3,072-slot tables (more warps per SM): fem_mesh P2 three dofs random (59K rows) 23.9 -> 20.2 ms, H200;
// power-law (~1.6K rows) lost 5-13 % with them (docs/perf/spgemm-gpu.md, 2026-11-28).
constexpr std::int64_t kBinnedCompactTablesMinRowsPerSm = 64;
// ... rows whose column bound exceeds 1,024 and whose range spans at most this many windows go to
// windows (sorted output for free) rather than to a 4,096-slot table that must be sorted.
constexpr std::int64_t kBinnedWideRowMaxWindows = 16;
// ... a windowed row whose windows x entries exceed this many times its products (hub rows of
// power-law graphs and circuits: 16K entries of short rows of B over 122 windows, 13x their 145K
// products; 2M nnz power-law: 114M entry visits per pass for 9.7M products) is expanded, sorted and
// compressed instead (csr_binned_expand.cuh); rmat's hub rows, whose rows of B are long, and one-window
// rows keep their windows. Against per-window entry lists (the previous route for these rows), H100,
// 2026-11-27: power-law 5.11 / 4.72 ms against 6.31 / 5.56, circuit 8.62 / 7.36 against 9.82 / 9.53
// (fp64 / fp32; docs/perf/spgemm-gpu.md).
constexpr std::int64_t kBinnedExpandMinWalkRatio = 4;
// ... rows of A of at most this many entries whose C rows have at most this many products, and at most
// kBinnedMergeMaxProductsPerEntry per entry, are merged by one thread each (csr_binned_merge.cuh) instead
// of a group of lanes with a hash table. H100, 2026-11-27, 2M non-zeros, fp64 / fp32: road_planar
// random (4 per row, ~14 products) 0.49 / 0.44 ms against 0.94 / 0.97 with the hash groups; random (8 per
// row, 64 products) 1.09 / 0.94 against 1.22 / 1.07 (H100, earlier run). Power-law's short rows that meet
// hub rows of B (up to 512 products from 2-3 entries) ran 2x slower merged than in hash groups: one
// lane's long merge holds its warp, hence the bound per entry (random: 8).
constexpr std::int64_t kBinnedMergeMaxEntries = 16;
constexpr std::int64_t kBinnedMergeMaxProducts = 512;
constexpr std::int64_t kBinnedMergeMaxProductsPerEntry = 8;
// ... and each warp of merged rows takes one product a step (csr_binned_merge.cuh) when its longest
// merge's products are at most num/den times its longest row of C, one column a step otherwise. H200,
// 2026-11-29, 2M non-zeros, fp64, numeric stage ms with every warp one product / one column a step (in
// brackets a warp's products per column, counted with scipy): random (1.0) 0.53 / 0.66, circuit (1.2-1.4)
// 0.79 / 0.91, power-law (1.0) 0.87 / 0.95, road_planar in BFS order (1.7-2.1) 0.137 / 0.100.
// Between 1.4 and 1.7 unmeasured: 3/2 (docs/perf/spgemm-gpu.md, stop 50).
struct MergeRatio {
  std::int64_t num, den;
};
constexpr MergeRatio kBinnedMergeOneHeadMaxRatio{3, 2};

// --- Auto-selection (src/select/spgemm_selector.cpp): crossovers measured on the H100 and the 2-core
// CPU (docs/perf/spgemm-gpu.md, docs/perf/spgemm.md) ---

// Non-zeros per 8x8 block of A from which bmSparse beats CSR SpGEMM on the GPU (road, 5.8: no;
// 27-point, 8.3: yes) ...
constexpr double kGpuBmsparseMinBlockFill = 8.0;
// ... when rows are at least this long: geometric (2M nnz, 8.8 per block, 9.0 per row) lost to
// cusparseSpGEMM (0.79-0.86x, H100, 2026-11-27, docs/PERFORMANCE.md), banded with 11 per row won 3.2-9.4x.
constexpr double kGpuBmsparseMinRowLength = 10.0;
// ... and on the CPU, where dense block products cost more (banded: 2.1x MKL in fp32).
constexpr double kCpuBmsparseMinBlockFill = 24.0;
// Even rows (longest <= kGpuBinnedMaxRowSpread x mean) of at most this many entries on average go to
// cuda.csr.binned first, whose merge path takes them (kBinnedMergeMaxProductsPerEntry): H100, 2026-11-27,
// 2M non-zeros, cuSPARSE's best / binned, fp64 and fp32: road_planar random 1.53 / 1.51x (csr.hash 1.15 /
// 0.93x), random 8 per row 1.18 / 1.19x; geometric (9 per row, 9 products per entry: not merged) 0.87 / 0.79x.
constexpr double kGpuBinnedMaxShortRowLength = 8.0;
// A row holding at least this share of A's non-zeros sends A to cuda.csr.binned first, which expands and
// sorts such hub rows (csr_binned_expand.cuh): circuit (one row of 117,647 of 2M, 5.9 %) 2.55 / 1.79x
// cuSPARSE's best (fp64 / fp32, H100, 2026-11-27); power-law (longest 0.8 %, many mid-length rows in the
// 4,096-slot tables) 0.75 / 0.67x and rmat (0.5 %) stay with cusparseSpGEMM first. One family measured: a
// boundary between 0.8 % and 5.9 %, not a swept crossover.
constexpr double kGpuBinnedMinHubRowShare = 0.02;
// Mean row length of uneven road-like matrices, on which cuda.csr.hash beat cusparseSpGEMM (1.14-1.31x).
constexpr double kGpuHashMaxRowLength = 4.0;
// Short even rows: the longest at most this many times the mean (roads, random graphs); longer rows
// (power-law 0.27x with the first binned kernel, heavy hubs walk many column windows) go to cusparseSpGEMM
// first (docs/perf/spgemm-gpu.md).
constexpr double kGpuBinnedMaxRowSpread = 4.0;
// Meshes (block-poor, rows of kGpuBinnedMinRowLength to kGpuBinnedMaxRowLength entries on average, the
// longest at most kGpuBinnedMeshMaxRowSpread x the mean) go to cuda.csr.binned first. H100, 2026-11-27,
// cuSPARSE's best / binned, fp64 / fp32 (docs/perf/data/spgemm-gpu/fem-dof1-2026-11-27.csv): fem_mesh
// P1 one dof per node (14.7 per row, longest 27) 2.36 / 2.00x numbered at random, 2.61 / 1.92x along its
// curve; P2 one dof (27.8, longest 125: 4.5x the mean) 1.73 / 2.32x and 2.11 / 2.76x; P1 three dofs
// (42.9, longest 81) 2.0 / 2.4x; P2 three dofs (80.6, longest 375) 1.18 / 1.15x with compact tables
// (H200, 2026-11-28; 0.92 / 0.94x before). Outside: geometric (9 per row) 0.82 / 0.71x.
constexpr double kGpuBinnedMinRowLength = 12.0;
constexpr double kGpuBinnedMaxRowLength = 96.0;
constexpr double kGpuBinnedMeshMaxRowSpread = 5.0;
// A's mean row length over its band's width (2 x max |col - row| + 1) from which the CPU rule tries the
// diagonal product first. banded (fill 1.0): cpu.dia.spgemm 2.6x (fp64) and 3.5x (fp32) MKL sp2m at 1
// thread, 500K non-zeros, 1.9x and 1.6x cpu.bmsparse.blocks (dev box, 2026-11-27, docs/perf/spgemm-cpu.md);
// lap2d, lap3d, fem (fill < 0.1) are refused by it anyway. Half full: a one-sided band still qualifies.
constexpr double kCpuDiaMinBandFill = 0.5;
// Columns of B past which a dense accumulator per thread is wasteful: the hash accumulator instead.
constexpr std::int64_t kCpuDenseMaxColumns = std::int64_t{1} << 24;

// --- Memory-bounded products (src/spgemm/batched.cpp): not measured, bounds read off the kernels' allocations ---

// Working bytes a kernel takes per byte of the C it produces: cuda.csr.hash holds C twice while sorting
// (its segmented sort writes a copy), plus the download's slack; the CPU kernels hold C once and a
// compacted copy when entries cancel. 3 covers both with room for cuSPARSE's buffers, which it sizes from
// the intermediate products rather than from C.
constexpr double kBatchWorkBytesPerCByte = 3.0;
// Per row of A in a batch: products, bins, row lengths and row pointers of the GPU kernels (8 bytes each).
constexpr std::uint64_t kBatchBytesPerRow = 64;
// cusparseSpGEMM's CUSPARSE_SPGEMM_ALG3 computes the product in chunks of this fraction of its
// intermediate products (NVIDIA's sample uses 0.2): smaller chunks bound its memory, larger ones run fewer.
constexpr float kCusparseAlg3ChunkFraction = 0.2f;

}  // namespace spgemm

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
// The harness's pause before timing a CPU cell of fewer threads than the one before it (harness/timing.hpp:
// settle_threads): libgomp's idle threads spin ~300,000 rounds before they sleep, at a lowered shared clock.
inline constexpr int kThreadSettleMs = 50;

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

#include "tuning_spmm.hpp"  // the SpMM constants, in their own file
