// The SpGEMM auto-selector: which kernel `spkit spgemm --variant auto` runs, from A's statistics. The rules
// are the crossovers measured on the H100 and the 2-core CPU (docs/perf/spgemm-gpu.md, docs/perf/spgemm.md):
//   GPU: bmSparse wins wherever 8x8 blocks are well filled (fem 3-dof, 27-pt stencil, banded: 2.3-5.5x
//        cusparseSpGEMM) and loses badly where blocks hold ~1 non-zero (one task per block pair whatever
//        its fill); our CSR hash kernel wins on short, local rows (road: 1.14-1.31x); elsewhere (power-law,
//        random) cusparseSpGEMM is faster than both, and auto says so and runs it.
//   CPU: block products pay only when blocks are nearly full (banded: 2.1x MKL in fp32); otherwise the
//        dense-accumulator Gustavson, or the hash one when B is too wide for a dense row per thread.
#include <string>

#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

// The crossovers, measured on the H100 and the dev box (their provenance is in tuning.hpp).
using tuning::spgemm::kCpuBmsparseMinBlockFill;
using tuning::spgemm::kCpuDenseMaxColumns;
using tuning::spgemm::kGpuBmsparseMinBlockFill;
using tuning::spgemm::kGpuHashMaxRowLength;

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

SpgemmSelection select_spgemm_kernel(const MatrixStats& a, std::int64_t b_cols, Backend backend, Precision precision) {
  SpgemmSelection s;
  const std::string fill = fmt(a.bm_nnz_per_block) + " non-zeros per 8x8 block";
  if (backend == Backend::cuda) {
    if (a.bm_nnz_per_block >= kGpuBmsparseMinBlockFill) {
      s.kernel = precision == Precision::f64 && spgemm_registry().find("cuda.bmsparse.tc_fp64") ? "cuda.bmsparse.tc_fp64"
                                                                                              : "cuda.bmsparse.cc";
      s.reason = fill + " (>= " + fmt(kGpuBmsparseMinBlockFill) + "): bmSparse block products";
    } else if (a.row_nnz_mean <= kGpuHashMaxRowLength) {
      s.kernel = "cuda.csr.hash";
      s.reason = fill + ", " + fmt(a.row_nnz_mean) + " per row (<= " + fmt(kGpuHashMaxRowLength) + "): CSR hash SpGEMM";
    } else {
      s.kernel = "cuda.cusparse.spgemm";
      s.reason = fill + ", " + fmt(a.row_nnz_mean) + " per row: no spkit kernel is faster here, cusparseSpGEMM";
    }
  } else {
    if (a.bm_nnz_per_block >= kCpuBmsparseMinBlockFill) {
      s.kernel = "cpu.bmsparse.blocks";
      s.reason = fill + " (>= " + fmt(kCpuBmsparseMinBlockFill) + "): bmSparse block products";
    } else if (b_cols > kCpuDenseMaxColumns) {
      s.kernel = "cpu.csr.gustavson_hash";
      s.reason = fill + ", B has " + std::to_string(b_cols) + " columns: hash accumulator";
    } else {
      s.kernel = "cpu.csr.gustavson_dense";
      s.reason = fill + ": Gustavson with a dense accumulator";
    }
  }
  if (!spgemm_registry().find(s.kernel))
    throw NotApplicable("SpGEMM auto-selector picked " + s.kernel + ", which this build does not have");
  return s;
}

}  // namespace spkit
