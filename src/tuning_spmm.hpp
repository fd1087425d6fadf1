#pragma once
// The SpMM constants of spkit::tuning (see tuning.hpp, which includes this file): launch shapes, thresholds and
// orderings of the CPU and CUDA SpMM kernels, each with where it was measured.
#include <cstdint>

namespace spkit::tuning {

// =============================================================================================
// SpMM Y = alpha A X + beta Y (src/spmm)
// =============================================================================================

// cpu.csr.spmm_rowmajor / spmm_colmajor: the widest register tile of Y's row, in bytes (tiles follow k, 16 bytes
// up). Eight 512-bit accumulators, half the AVX-512 registers, leave room for X's loads (fixed 256-byte tiles
// wasted most lanes at k = 4).
inline constexpr int kSpmmCpuMaxTileBytes = 512;
// cpu.csr.spmm_colmajor: X's columns are copied, kSpmmCpuColPanelBytes of each row at a time, into a
// row-major panel (contiguous rows for the register tiles, instead of one gather per column and
// non-zero); A is read once per panel. Measured 2026-11-27 on the 2-core Xeon dev box (lap3d 27-point,
// 1.4M nnz, fp64, k = 64, 1 thread, thread CPU time, 2 interleaved rounds): 512 bytes 20-22 ms, 256
// bytes 14-15 ms, 128 bytes 13-15 ms: 64 column streams of X and Y at once cost more than re-reading A.
inline constexpr int kSpmmCpuColPanelBytes = 256;
// cpu.dia.spmm: rows per tile of the diagonals ([tile][diagonal][row], one sequential block per tile, as
// cpu.dia.omp's 64), and the bytes of Y a row-major register block keeps across the diagonals: 1 KB, 16
// of the 32 AVX-512 registers (16 rows at k = 4 doubles, 2 rows at k = 64), the rest for X's rows.
// Set from the register count, as the CSR tiles; not swept.
inline constexpr std::int64_t kSpmmCpuDiaTileRows = 64;
inline constexpr int kSpmmCpuDiaAccumulatorBytes = 1024;
// cpu.dia.spmm, column-major: rows per panel each group of columns runs down (one stream per column and panel,
// the panel's diagonals in L2). lap2d fp64 k = 64, 1 thread: 27-28 ms against 28.6 tile by tile; not swept.
inline constexpr std::int64_t kSpmmCpuDiaColPanelRows = 1024;
// cpu.csr.spmm_rowmajor: Y of this many bytes or more (64-byte aligned, rows of whole lines, beta = 0) gets streaming
// stores: 7-25 % faster from 1.4 MB of Y up (dev box, 2026-11-29, docs/perf/spmm-cpu.md); smaller stays in cache.
inline constexpr std::int64_t kSpmmCpuStreamingMinBytes = std::int64_t{4} << 20;
// Column-major SpMM (cpu.dia.spmm, cpu.csr.spmm_colmajor): Y of this many bytes or more (beta = 0) is streamed, and
// by cpu.dia.spmm only on a matrix of at most kSpmmCpuDiaColStreamingMaxDiagonals. 2026-11-29 (docs/perf/spmm-cpu.md,
// "stop 48"), 16-core host. DIA, k = 16/64, medians of 6 rounds: Y of 147-205 MB (lap2d, lap3d 7-pt fp64 k = 64)
// 1.31-1.42x faster at 1 thread, 1.07-1.28x at 16; Y of 37-102 MB 1.00-1.27x at 1 thread but 0.74-1.30x at 16 (the
// 300 MB L3 kept part of Y between products); the dev box, Y of 72-102 MB, 1.11-1.37x at 1-2 threads. Banded (11
// diagonals) and lap3d 27-pt (27), bound by their FMAs: 0.74-1.06x at 16 threads. CSR, fp64 k = 64 on random,
// power-law, geometric, road_planar numbered at random (4M non-zeros, Y 227-512 MB): 1.11-2.0x faster at 1 thread,
// 1.16-1.36x at 16, every round; smaller Y not timed.
inline constexpr std::int64_t kSpmmCpuColStreamingMinBytes = std::int64_t{128} << 20;
inline constexpr std::int64_t kSpmmCpuDiaColStreamingMaxDiagonals = 8;
// SpMM auto takes cpu.dia.spmm for row-major X and Y only up to this k (column-major: every k). Dev box, 2026-11-27
// (docs/perf/spmm-cpu.md, 1 thread, MKL / ours): k = 4 DIA beat the CSR tiles on lap2d, lap3d 7-pt, banded, road
// (0.88-0.99 -> 1.13-1.77); k = 16 mixed (fp64 0.80-1.02 against 0.90-1.09); k = 64 worse (0.76-0.97 vs 0.90-1.10).
inline constexpr std::int64_t kSpmmCpuDiaRowMajorMaxK = 8;
// cpu.spmv.per_column and SpMM auto's DIA rule ask the SpMV selector for its pick over this many products,
// so that conversion time does not count: the fastest product, as the "vs k SpMVs" yardstick of `spkit spmm`.
inline constexpr std::int64_t kSpmmSpmvExpectedProducts = 1000000;
// cuda.csr.spmm_colmajor_gather: lanes per row from the mean row length: the largest power of two (4..32)
// not above mean / kSpmmCudaEntriesPerLane, as for cuda.csr.subwarp (tuning::kCudaSubwarpEntriesPerLane).
// Timed with this value on an H200, 2026-11-27 (docs/perf/spmm-gpu.md); not swept.
inline constexpr double kSpmmCudaEntriesPerLane = 2.0;
// cuda.csr.spmm_colmajor_gather: the most columns one pass over A gathers (register partial sums per
// lane: 32 doubles are 64 registers); wider k takes more passes, each reading A again.
inline constexpr int kSpmmCudaColMajorTile = 32;
// cuda.csr.spmm_rowmajor: sub-groups over a row's entries (GN, 1..8, while GC x GN lanes fit a warp) as
// long as each still gets this many entries of a mean row; the lanes over columns (GC) follow k. Few
// sub-groups keep the groups small (less of a chunk of L entries wasted at a row's end), more hold fewer
// rows of unequal length per warp. The rule of cuda.csr.subwarp scaled to the GC-entry chunks each
// sub-group walks; timed with this value on an H200, 2026-11-27 (docs/perf/spmm-gpu.md: 1.1-2.8x
// cuSPARSE's best on lap3d, fem_mesh, random, road_planar at k = 4 and 16), not swept.
inline constexpr double kSpmmCudaEntriesPerSubgroup = 8.0;
// cuda.csr.spmm_rowmajor / spmm_colmajor: groups of at least this many lanes (GN raised) on rows averaging at
// least kSpmmCudaMinGroupRowMean entries. H200, 2026-11-29, 16M, k = 4 (GC 1-2): random fp32 0.225 -> 0.171 ms,
// lap3d 27-pt fp32 0.094 -> 0.072; road_planar (4 per row) forced to 4 lanes 21 % slower (docs/perf/spmm-gpu.md).
inline constexpr int kSpmmCudaMinGroupLanes = 4;
inline constexpr double kSpmmCudaMinGroupRowMean = 8.0;
// cuda.csr.spmm_rowmajor: and only while a mean row still spans this many chunks of the group's GC x GN
// lanes. Sub-groups put fewer rows in a warp but make each chunk wider: fem_mesh numbered at random (43.5
// entries per row, 16M non-zeros, H100, 2026-11-27) ran fp64 k = 16 (GC 8) in 0.372 / 0.432 / 0.458 ms with
// 1 / 2 / 4 sub-groups (0.235 / 0.269 / 0.299 renumbered by RCM), fp32 k = 16 (GC 4) in 0.237 / 0.217 /
// 0.218 / 0.250 with 1 / 2 / 4 / 8: the best shapes have groups of 8 lanes, 5.4 chunks per row.
inline constexpr double kSpmmCudaMinChunksPerRow = 4.0;
// cuda.csr.spmm_* (row splitting and the gather): rows of more than this many times the mean row length
// (and more than 32 non-zeros) take a whole warp from a list instead of a narrower group, which would hold
// its warp (and the other rows in it) for the longest row. H200, 2026-11-27, powerlaw 16M, fp64, k = 4: 2 lanes
// for every row took 1.02 ms (cuSPARSE CSR_ALG1 0.70 ms). The value 4 is not swept.
inline constexpr double kSpmmCudaWarpRowMeans = 4.0;
// cuda.csr.spmm_* (row splitting and the gather): rows with more non-zeros than this take a block of 256
// threads each (power-law hubs), so that one row does not hold one warp for the whole product. At 1024 a
// warp already walks 32 chunks of 32 entries; the regular families (lap3d, fem, road, random) have no
// such row; powerlaw at 16M non-zeros has 1332. Not swept.
inline constexpr std::int64_t kSpmmCudaLongRowNnz = 1024;
// cuda.csr.spmm_rowmajor / spmm_colmajor: rows over kSpmmCudaLongRowNnz are cut into equal chunks of at most this
// many entries, a block each, summed in chunk order (one block per hub row held the product: powerlaw 16M, 45,254
// entries). At 2048 a block's 8 warps walk 8 pieces of 32 entries each; powerlaw's 6.5M hub entries make ~3,200
// blocks (~24 per H100 SM). Not swept.
inline constexpr std::int64_t kSpmmCudaRowChunkNnz = 2048;
// cuda.csr.spmm_rowmajor / spmm_colmajor: a full chunk of a row (GC x GN entries) runs without a test per entry,
// its loads of X in flight together, when GC is at most this. H100, 2026-11-27, 16M, fp64, against the per-entry
// loop: lap3d 27-pt k = 16 (GC 8) 0.296 -> 0.269 ms, fem_mesh random 0.48 -> 0.47; GC 32 (k = 64): lap3d 0.61 ->
// 0.73-0.83, road_planar 3.70 -> 4.04-4.35 (unrolled by 32 or 8); GC 16 (random fp32 k = 64) 1.547 -> 1.634.
inline constexpr int kSpmmCudaFullChunkMaxLanes = 8;
// cuda.csr.spmm_nnzsplit: each group of lanes walks a span of A's non-zeros (a power of two from kSpmmCudaSpanMin
// to kSpmmCudaSpanMax, at least kSpmmCudaSpanMeanRows mean rows: the cut rows' slots, two rows of k per span at
// most, stay under 1/8 of Y), kSpmmCudaSpanBatch entries' loads of X at a time, kSpmmCudaSpanMinBlocks blocks
// of 256 a SM (64 registers). The gather alone at power-law's columns (H200, 2026-11-29, 16M, fp64 k = 64, 8 GB):
// 1.77 ms one load a lane at 64 warps a SM, 2.54 at 32; 1.70 with four a lane at 32 (docs/perf/spmm-gpu.md).
inline constexpr std::int64_t kSpmmCudaSpanMin = 128, kSpmmCudaSpanMax = 1024;
inline constexpr double kSpmmCudaSpanMeanRows = 16.0;
inline constexpr int kSpmmCudaSpanBatch = 4, kSpmmCudaSpanMinBlocks = 4;
// SpMM auto on the GPU, row-major: cuda.csr.spmm_nnzsplit where row lengths vary this much (std / mean), no row
// holds kSpmmCudaSpanMaxRowShare of the non-zeros (one hub among even rows: the row split's chunks serve it), and a
// row of X holds kSpmmCudaSpanMinRowBytes or more (k x the value's bytes). H200, 2026-11-29, 16M
// (docs/perf/spmm-gpu.md, stops 46 and 49): power-law (std/mean 23) and rmat (6.8) 1.0-1.43x the row split at
// k = 16/64 and 1.06-1.41x at k = 8/12 in both precisions (rmat fp64 k = 12: 1.13 -> 1.43x cuSPARSE's best); at
// k = 4 fp64 (32-byte rows) 1.06-1.22x but fp32 (16 bytes) 0.51-0.70x; random, road, fem_mesh, lap3d (<= 0.4) and
// circuit (69, one row 6 %) 0.3-1.1x.
inline constexpr double kSpmmCudaSpanMinRowCv = 2.0, kSpmmCudaSpanMaxRowShare = 0.02;
inline constexpr std::int64_t kSpmmCudaSpanMinRowBytes = 32;
// SpMM auto on the GPU: column-major blocks of at most this many columns run as k SpMVs
// (cuda.spmv.per_column) when the CUDA SpMV selector picks a DIA kernel. H100, 2026-11-27, lap3d 27-pt (16M
// non-zeros) fp32 column-major: the SpMM ran at 0.63x four cuda.dia.sym SpMVs at k = 4 and 2.2x sixteen at
// k = 16 (docs/perf/data/spmm-gpu/h100-now-2026-11-27.csv); row-major k = 4 was already 1.23x.
inline constexpr std::int64_t kSpmmCudaDiaColumnsMaxK = 4;
// Plan::apply on k >= 2 vectors of a renumbered plan: the SpMM runs on P A P^T (X's rows gathered, Y's scattered)
// only when A's rows average at least this many entries. H100, 2026-11-27, 16M, fp64, RCM against A as given:
// fem_mesh random (43 per row) 0.47 -> 0.40 ms at k = 16, 1.39 -> 1.04 at k = 64; road_planar random (4 per row)
// 1.14 -> 1.82 and 4.35 -> 6.95 ms: the value lies between the two.
inline constexpr double kBlockApplyRenumberMinRowMean = 16.0;
// The row-major CSR SpMM kernels visit a badly numbered matrix's rows in RCM order (src/spmm/row_order.hpp)
// when rows average at least this many entries (as kBlockApplyRenumberMinRowMean: fem_mesh, 43 per row) and
// a row of X spans at least kSpmmRowOrderCpuLineBytes (CPU, 32 bytes) or a sector (GPU, 32 bytes).
inline constexpr double kSpmmRowOrderMinRowMean = 16.0;
// CPU: from 32 bytes since stop 50 (half a line: two rows of X share a line, still far fewer lines than at
// random; dev box, 1M-2M, 1 and 2 threads, min of 3 rounds, k = 4 doubles / 8 floats against the 64-byte rule:
// geometric random 1.19-1.90x, fem_mesh P1 / P2 one dof random 1.20-1.48x, three dofs (X in L2) 0.97-0.99x;
// docs/perf/data/spmm-cpu/row-order-32-devbox-2026-11-30.csv). 16-byte rows run as slices (spmm_sliced.hpp).
inline constexpr int kSpmmRowOrderCpuLineBytes = 32;
inline constexpr int kSpmmRowOrderGpuLineBytes = 32;
// Shorter rows are ordered too from this many bytes of X's row, on a symmetric pattern whose RCM order is well
// numbered (data: docs/perf/data/spmm-gpu/short-row-order-2026-11-28.csv, spmm-cpu/short-row-order-devbox-2026-11-29
// .csv). GPU: a warp per row (32 x 16 bytes); H100, 16M, fp64, forced RCM against none: road_planar random 3.69 ->
// 2.73 ms at k = 64, 1.134 -> 1.125 at k = 16; random 0.366 -> 1.346 at k = 4 floats; power-law 3.485 -> 3.604 at
// k = 64. CPU: 32 bytes where rows average 8+ entries (a line until stop 50; above), else 512 bytes (X's rows
// reused less than Y's are written out of order); dev box, 2M, 1 thread: geometric random (9 per row) fp64 k = 16
// 24.0 -> 16.7 ms, k = 64 83.4 -> 44.4; road_planar random (4 per row) k = 64 151 -> 111, 128-byte rows 0.81-1.0x.
inline constexpr int kSpmmRowOrderGpuWarpRowBytes = 512;
inline constexpr int kSpmmRowOrderCpuShortRowBytes = 32, kSpmmRowOrderCpuSparseRowBytes = 512;
inline constexpr std::int64_t kSpmmRowOrderCpuShortRowMinMean = 8;

}  // namespace spkit::tuning
