// The SpGEMM auto-selector: which kernel `spkit spgemm --variant auto` runs, from A's statistics. The rules
// are the crossovers measured on the H100 and the 2-core CPU (docs/perf/spgemm-gpu.md, docs/perf/spgemm.md):
//   GPU: bmSparse wins wherever 8x8 blocks are well filled and rows are not short (fem 3-dof, 27-pt
//        stencil, banded: 2.3-5.5x cusparseSpGEMM; geometric, 8.8 per block but 9 per row: 0.8x) and loses
//        badly where blocks hold ~1 non-zero (one task per block pair whatever its fill); our CSR hash
//        kernel wins on short, local rows (road: 1.14-1.31x), the binned CSR kernel on even rows of 16 or
//        more (meshes in random order: 2.0-2.4x); elsewhere (power-law, circuit, random, geometric)
//        cusparseSpGEMM is faster, and auto says so and runs it. Matrices whose rows are all full b x b
//        blocks (three-dof finite elements) go to the dense-block kernel first, ahead of bmSparse too
//        (H200: 6.7x cusparseSpGEMM on a randomly numbered P2 mesh, 2.0-2.5x bmSparse where 8x8 tiles are full).
//   CPU: full dof blocks go to the block-wise Gustavson (1.9-4.1x MKL on 3-dof meshes, dev box); bmSparse's
//        block products pay only when blocks are nearly full (banded: 2.1x MKL in fp32); otherwise the
//        dense-accumulator Gustavson, or the hash one when B is too wide for a dense row per thread. On
//        short rows of C (road, 5- and 7-point stencils) the hash one was 5-31 % faster until the dense
//        one sorted such rows instead of scanning their span; since, the dense one is faster there (lap2d
//        fp32: within 5 %; docs/perf/spgemm-cpu.md), so the rule needs no row-length test. Nearly full
//        bands go to the diagonal product first (banded: 2.6-3.5x MKL at 1 thread), which refuses
//        matrices that are not diagonal-structured (stencils: gaps at the grid's edges).
// spgemm_candidates ranks the rest after the pick: spgemm() runs the next one when a kernel refuses.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "spgemm/spgemm_util.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

// The crossovers, measured on the H100 and the dev box (their provenance is in tuning.hpp).
using tuning::spgemm::kCpuBmsparseMinBlockFill;
using tuning::spgemm::kCpuDenseMaxColumns;
using tuning::spgemm::kCpuDiaMinBandFill;
using tuning::spgemm::kGpuBmsparseMinBlockFill;
using tuning::spgemm::kGpuBinnedMaxRowSpread;
using tuning::spgemm::kGpuBinnedMaxShortRowLength;
using tuning::spgemm::kGpuBinnedMinHubRowShare;
using tuning::spgemm::kGpuBinnedMaxRowLength;
using tuning::spgemm::kGpuBinnedMeshMaxRowSpread;
using tuning::spgemm::kGpuBinnedMinRowLength;
using tuning::spgemm::kGpuBmsparseMinRowLength;
using tuning::spgemm::kGpuHashMaxRowLength;

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::vector<SpgemmSelection> spgemm_candidates(const MatrixStats& a, std::int64_t b_cols, Backend backend,
                                               Precision precision) {
  const std::string fill = fmt(a.bm_nnz_per_block) + " non-zeros per 8x8 block";
  const std::string rows = fmt(a.row_nnz_mean) + " per row";
  std::vector<SpgemmSelection> order;  // the rule's ranking; kernels missing from the build dropped below
  const auto add = [&](const char* kernel, std::string reason) { order.push_back({kernel, std::move(reason)}); };
  if (backend == Backend::cuda) {
    const char* blocks = precision == Precision::f64 && spgemm_registry().find("cuda.bmsparse.tc_fp64")
                             ? "cuda.bmsparse.tc_fp64"
                             : "cuda.bmsparse.cc";
    const bool bm_rich = a.bm_nnz_per_block >= kGpuBmsparseMinBlockFill && a.row_nnz_mean >= kGpuBmsparseMinRowLength;
    if (a.bsr_block >= 2 && a.bsr_fill >= 1.0) {
      // Full b x b dof blocks (finite-element vector problems in any node numbering): one hash key per
      // block of C, ahead of bmSparse even where 8x8 tiles are full (H200, 3 dofs, fp64 / fp32: fem grid
      // 0.57 / 0.46 ms against bmSparse's 1.03 / 1.02; fem_mesh curve order 0.93 / 0.76 against 1.59 / 1.52).
      // When the kernel refuses (B not blocked alike, a block row too wide), the rule for the scalar
      // pattern below picks the next.
      const std::string b = std::to_string(a.bsr_block);
      add("cuda.csr.dense_blocks", fill + ", every row made of full " + b + "x" + b +
                                       " blocks: block-wise Gustavson SpGEMM (one hash key per block of C)");
    }
    if (bm_rich) {
      add(blocks, fill + " (>= " + fmt(kGpuBmsparseMinBlockFill) + "), " + rows + " (>= " +
                      fmt(kGpuBmsparseMinRowLength) + "): bmSparse block products");
      add("cuda.csr.binned", "");
      add("cuda.csr.hash", "");
      add("cuda.cusparse.spgemm", "");
    } else if (static_cast<double>(a.row_nnz_max) <= kGpuBinnedMaxRowSpread * a.row_nnz_mean &&
               a.row_nnz_mean <= kGpuBinnedMaxShortRowLength) {
      // Short even rows (roads in any numbering, random graphs): the binned kernel merges them one thread each.
      add("cuda.csr.binned", fill + ", " + rows + ", longest " + std::to_string(a.row_nnz_max) +
                                 ": short even rows, binned CSR SpGEMM (rows merged one thread each)");
      add("cuda.csr.hash", "");
      add("cuda.cusparse.spgemm", "");
    } else if (a.row_nnz_mean <= kGpuHashMaxRowLength) {
      add("cuda.csr.hash", fill + ", " + rows + " (<= " + fmt(kGpuHashMaxRowLength) + "): CSR hash SpGEMM");
      add("cuda.csr.binned", "");
      add("cuda.cusparse.spgemm", "");
    } else if (static_cast<double>(a.row_nnz_max) <= kGpuBinnedMeshMaxRowSpread * a.row_nnz_mean &&
               a.row_nnz_mean >= kGpuBinnedMinRowLength && a.row_nnz_mean <= kGpuBinnedMaxRowLength) {
      // Block-poor with even rows (meshes in any numbering): the binned CSR kernel.
      add("cuda.csr.binned", fill + ", " + rows + ", longest " + std::to_string(a.row_nnz_max) +
                                 ": block-poor, even rows: binned CSR SpGEMM");
      add("cuda.cusparse.spgemm", "");
      add("cuda.cusparse.spgemm_alg3", "");
      add("cuda.csr.hash", "");
    } else if (a.nnz > 0 &&
               static_cast<double>(a.row_nnz_max) >= kGpuBinnedMinHubRowShare * static_cast<double>(a.nnz)) {
      // One hub row holding a share of A (circuits): the binned kernel expands and sorts it, where
      // cusparseSpGEMM's row-wise schedule waits on that row.
      add("cuda.csr.binned", fill + ", " + rows + ", longest " + std::to_string(a.row_nnz_max) + " (" +
                                 fmt(100.0 * static_cast<double>(a.row_nnz_max) / static_cast<double>(a.nnz)) +
                                 " % of A): a hub row, binned CSR SpGEMM (hub rows expanded and sorted)");
      add("cuda.cusparse.spgemm", "");
      add("cuda.csr.hash", "");
    } else {
      // Heavy rows (power-law, rmat) and short rows of uneven length (geometric): cusparseSpGEMM was
      // the fastest measured; when it refuses (out of resources on rmat), the binned kernel, which computed
      // rmat's 489M-entry C in 75 ms on an H100 (the hash kernel 386 ms), before cuSPARSE's memory-bounded
      // ALG3 (3.5-4.3x slower than its default on power-law and circuit; its ALG2 ran past 68 s on rmat).
      const bool heavy = static_cast<double>(a.row_nnz_max) > kGpuBinnedMaxRowSpread * a.row_nnz_mean;
      add("cuda.cusparse.spgemm", fill + ", " + rows + ", longest " + std::to_string(a.row_nnz_max) +
                                      (heavy ? ": heavy rows" : ": short even rows") +
                                      ", no spkit kernel is faster here: cusparseSpGEMM");
      add("cuda.csr.binned", "");
      add("cuda.csr.hash", "");
      add("cuda.cusparse.spgemm_alg3", "");
    }
    // Last resorts: cuSPARSE's memory-bounded algorithm, then bmSparse (slow on block-poor matrices, but
    // it computes C).
    add("cuda.cusparse.spgemm_alg3", "");
    add("cuda.csr.binned", "");
    add("cuda.bmsparse.cc", "");
  } else {
    // Full b x b dof blocks (finite-element vector problems in any node numbering): one accumulator slot per
    // block of C (2M non-zeros, fp64, 1 thread: fem 68-81 against MKL's 249-258 ms on the dev box, fem_mesh P2
    // in random order 319 against 1,340 on the 16-core host; docs/perf/spgemm-cpu.md). It refuses B not blocked
    // alike.
    if (a.bsr_block >= 2 && a.bsr_fill >= 1.0) {
      const std::string b = std::to_string(a.bsr_block);
      add("cpu.bsr.spgemm", fill + ", every row made of full " + b + "x" + b +
                                " blocks: block-wise Gustavson SpGEMM (one accumulator slot per block of C)");
    }
    // A nearly full band (banded, tridiagonal): the diagonal product first; it refuses, cheaply, matrices
    // whose diagonals have gaps or are too many, and the rule's next kernel runs.
    const double band = 2.0 * static_cast<double>(a.max_diag_distance) + 1.0;
    if (a.nnz > 0 && a.row_nnz_mean >= kCpuDiaMinBandFill * band)
      add("cpu.dia.spgemm", rows + " in a band of " + fmt(band) + " diagonals (>= " +
                                fmt(100 * kCpuDiaMinBandFill) + " % full): diagonal SpGEMM");
    const bool wide = b_cols > kCpuDenseMaxColumns;
    const char* accumulate = wide ? "cpu.csr.gustavson_hash" : "cpu.csr.gustavson_dense";
    const char* other = wide ? "cpu.csr.gustavson_dense" : "cpu.csr.gustavson_hash";
    const std::string why = wide ? fill + ", B has " + std::to_string(b_cols) + " columns: hash accumulator"
                                 : fill + ": Gustavson with a dense accumulator";
    if (a.bm_nnz_per_block >= kCpuBmsparseMinBlockFill) {
      add("cpu.bmsparse.blocks", fill + " (>= " + fmt(kCpuBmsparseMinBlockFill) + "): bmSparse block products");
      add(accumulate, "");
      add(other, "");
    } else {
      add(accumulate, why);
      add(other, "");
      add("cpu.bmsparse.blocks", "");
    }
  }
  std::vector<SpgemmSelection> out;
  std::string missing;
  for (SpgemmSelection& s : order) {
    bool seen = false;
    for (const SpgemmSelection& o : out) seen = seen || o.kernel == s.kernel;
    if (seen) continue;
    if (!spgemm_registry().find(s.kernel)) {
      missing += (missing.empty() ? "" : ", ") + s.kernel;
      continue;
    }
    // The first kernel present says why it runs; a later one says what it stands in for.
    if (s.reason.empty() || !out.empty())
      s.reason = out.empty() ? "the rule's first choice is not in this build (" + missing + "): " + s.kernel
                             : "fallback after " + out.front().kernel;
    out.push_back(std::move(s));
  }
  if (out.empty())
    throw NotApplicable("SpGEMM auto-selector: none of its " + std::string(to_string(backend)) +
                        " candidates is in this build (" + missing + ")");
  return out;
}

SpgemmSelection select_spgemm_kernel(const MatrixStats& a, std::int64_t b_cols, Backend backend, Precision precision) {
  return spgemm_candidates(a, b_cols, backend, precision).front();
}

template <class T>
MatrixStats spgemm_selector_stats(const Csr<T>& a) {
  MatrixStats s;
  s.rows = a.rows, s.cols = a.cols, s.nnz = a.nnz();
  s.row_nnz_mean = a.rows > 0 ? static_cast<double>(s.nnz) / static_cast<double>(a.rows) : 0.0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t p0 = a.row_ptr[i], p1 = a.row_ptr[i + 1];
    s.row_nnz_max = std::max(s.row_nnz_max, p1 - p0);
    if (p1 > p0)  // columns are sorted: the row's first and last entry are its farthest from the diagonal
      s.max_diag_distance = std::max({s.max_diag_distance, std::abs(a.col_idx[p0] - i), std::abs(a.col_idx[p1 - 1] - i)});
  }
  // Distinct 8x8 blocks: per block row, the sorted, distinct block columns of its entries.
  const std::int64_t block_rows = (a.rows + 7) / 8;
  std::int64_t blocks = 0;
#pragma omp parallel reduction(+ : blocks)
  {
    std::vector<std::int32_t> cols;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < block_rows; ++i) {
      cols.clear();
      const std::int64_t end = a.row_ptr[std::min(a.rows, 8 * i + 8)];
      for (std::int64_t p = a.row_ptr[8 * i]; p < end; ++p) cols.push_back(a.col_idx[p] >> 3);
      std::sort(cols.begin(), cols.end());
      blocks += std::unique(cols.begin(), cols.end()) - cols.begin();
    }
  }
  s.bsr_block = detail::full_block_size(a);
  if (s.bsr_block > 0) {
    s.bsr_blocks = s.nnz / (s.bsr_block * s.bsr_block);
    s.bsr_fill = 1.0;
  }
  s.bm_blocks = blocks;
  s.bm_nnz_per_block = blocks > 0 ? static_cast<double>(s.nnz) / static_cast<double>(blocks) : 0.0;
  return s;
}
template MatrixStats spgemm_selector_stats(const Csr<float>&);
template MatrixStats spgemm_selector_stats(const Csr<double>&);

}  // namespace spkit
