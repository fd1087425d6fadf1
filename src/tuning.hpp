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

namespace spgemm {

// --- CPU kernels (src/spgemm/cpu), measured on the 2-core dev box (docs/perf/spgemm.md) ---

// Gustavson with a dense accumulator emits a row of C by scanning its presence bitmap, with no sort,
// when the row's column span is at most this many 64-column words per entry of the row (stencils, FEM,
// banded rows qualify); wider rows sort their column list instead.
constexpr int kDenseScanWordsPerEntry = 4;
// OpenMP dynamic-schedule chunks: rows of C per chunk in Gustavson's two phases, block rows of C per
// chunk in the CPU bmSparse product (whose block rows each hold 8 rows and many block products).
constexpr int kGustavsonRowsPerChunk = 64;
constexpr int kBmsparseBlockRowsPerChunk = 16;

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
// cuda.csr.hash: rows of at most this many products go one thread each, a sorted list in shared memory
// (road-like rows, ~9 products, would cost a warp each otherwise; road: all rows <= 16 products).
constexpr int kHashTinyRowProducts = 16;
// ... rows of at most this many products one warp each, a hash table of 32-512 slots in shared memory.
constexpr int kHashShortRowProducts = 256;
// ... a row whose table does not fit shared memory gets one thread block per this many products (one
// block per row left a single long row of a power-law matrix running alone).
constexpr std::int64_t kHashHugeRowProductsPerBlock = 4096;
// ... thread blocks per SM for the mid and huge rows, and for copying the sorted rows back.
constexpr int kHashRowBlocksPerSm = 8;
constexpr int kHashCopyBlocksPerSm = 16;

// --- Auto-selection (src/select/spgemm_selector.cpp): crossovers measured on the H100 and the 2-core
// CPU (docs/perf/spgemm-gpu.md, docs/perf/spgemm.md) ---

// Non-zeros per 8x8 block of A from which bmSparse beats CSR SpGEMM on the GPU (road, 5.8: no;
// 27-point, 8.3: yes) ...
constexpr double kGpuBmsparseMinBlockFill = 8.0;
// ... and on the CPU, where dense block products cost more (banded: 2.1x MKL in fp32).
constexpr double kCpuBmsparseMinBlockFill = 24.0;
// Mean row length of road-like matrices, on which cuda.csr.hash beats cusparseSpGEMM (1.14-1.31x).
constexpr double kGpuHashMaxRowLength = 4.0;
// Columns of B past which a dense accumulator per thread is wasteful: the hash accumulator instead.
constexpr std::int64_t kCpuDenseMaxColumns = std::int64_t{1} << 24;

}  // namespace spgemm

// =============================================================================================
// Benchmark suite (src/harness)
// =============================================================================================



}  // namespace spkit::tuning
