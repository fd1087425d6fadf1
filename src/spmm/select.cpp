// `auto` for SpMM: one kernel per (backend, layout), every one of which already adapts to k and the rows
// at plan time, except where the SpMV side knows better:
//   CPU, k = 1        cpu.spmv.per_column    (the SpMV selector's pick: one column has no reuse to gain)
//   CPU, DIA matrices cpu.dia.spmm           (where the SpMV selector runs the matrix in DIA: stencils, bands;
//                                           row-major up to k = tuning::kSpmmCpuDiaRowMajorMaxK)
//   CPU, row-major    cpu.csr.spmm_rowmajor  (register tiles sized to k)
//   CPU, column-major cpu.csr.spmm_colmajor  (X copied into row-major panels, the same tiles)
//   GPU, k = 1        cuda.spmv.per_column   (the CUDA SpMV selector's pick)
//   GPU, DIA matrices cuda.spmv.per_column   (column-major, k <= tuning::kSpmmCudaDiaColumnsMaxK: k DIA SpMVs)
//   GPU, row-major    cuda.csr.spmm_rowmajor (lanes over columns from k, sub-groups over entries from the mean row)
//   GPU, row-major    cuda.csr.spmm_nnzsplit (rows of very unequal length, no single hub row, rows of X of 32
//                                             bytes or more: equal spans of non-zeros per group)
//   GPU, column-major cuda.csr.spmm_colmajor (X transposed, then the row-major row splitting)
// The DIA rule is the SpMV selector's own (select_kernel's cost models, spkit/select.hpp), not a copy of it.
// The baselines (MKL, cuSPARSE) are never picked. The reason line names the k and layout read.
#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/format_costs.hpp"
#include "spkit/error.hpp"
#include "spkit/select.hpp"
#include "spkit/spmm.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

// The SpMV kernel spkit's selector picks for the fastest product (CPU: on all threads), "" when none applies.
// In double: DIA's bytes against CSR's are then at their least favourable (8 of 12 bytes per non-zero, 4 of
// 8 in float), so a DIA pick here is one in float too, and cpu.dia.spmm accepts the matrix in both.
std::string spmv_pick(const MatrixStats& stats, Backend backend) {
  PlanSettings settings;
  settings.backend = backend;
  settings.expected_products = tuning::kSpmmSpmvExpectedProducts;
  try {
    return select_kernel(stats, settings, Precision::f64).kernel;
  } catch (const Error&) {  // nothing applies, or no device to ask: the CSR kernels then
    return {};
  }
}

// Whether cpu.dia.spmm, which stores every diagonal, accepts the matrix: the DIA kernels' rule on the
// full diagonals (the SpMV pick may be the symmetric kernel, which stores half of them).
bool all_diagonals_pay(const MatrixStats& stats) {
  if (stats.nnz > 0 && stats.diagonals == 0) return false;  // statistics without the pattern's: no rule to follow
  return dia_cost(stats, Precision::f64, false, 0, 1.0, 0.0).applicable;
}

// Whether `spmv` names a registered SpMV kernel in DIA ("" names none).
bool is_dia_kernel(const std::string& spmv) {
  const KernelInfo* info = spmv.empty() ? nullptr : registry().find(spmv);
  return info && info->format == Format::dia;
}

}  // namespace

SpmmSelection select_spmm_kernel(const MatrixStats& stats, const SpmmShape& shape, Backend backend,
                                 Precision precision) {
  const bool row = shape.layout == DenseLayout::row_major;
  SpmmSelection s;
  const std::string k = "k = " + std::to_string(shape.k);
  if (backend == Backend::cpu) {
    const std::string spmv = shape.k > 1 ? spmv_pick(stats, Backend::cpu) : std::string();
    if (shape.k == 1) {
      s.kernel = "cpu.spmv.per_column";
      s.reason = "k = 1: one product with the SpMV kernel spkit's selector picks (one column: no reads of A to share)";
    } else if (is_dia_kernel(spmv) && all_diagonals_pay(stats) &&
               (!row || shape.k <= tuning::kSpmmCpuDiaRowMajorMaxK)) {
      s.kernel = "cpu.dia.spmm";
      s.reason = k + ", " + std::string(row ? "row" : "column") + "-major: the SpMV selector runs this matrix in DIA (" +
                 spmv + "), so the diagonals, read once without column indices, with Y's tiles in registers";
    } else {
      s.kernel = row ? "cpu.csr.spmm_rowmajor" : "cpu.csr.spmm_colmajor";
      s.reason = row ? k + ", row-major: register tiles of Y's row sized to k, A read once"
                     : k + ", column-major: X copied into row-major panels, register tiles, A read once per panel";
    }
  } else if (shape.k == 1) {
    s.kernel = "cuda.spmv.per_column";
    s.reason = "k = 1: one product with the CUDA SpMV kernel spkit's selector picks";
  } else if (const std::string spmv = !row && shape.k <= tuning::kSpmmCudaDiaColumnsMaxK
                                          ? spmv_pick(stats, Backend::cuda) : std::string();
             is_dia_kernel(spmv)) {
    s.kernel = "cuda.spmv.per_column";
    s.reason = k + ", column-major: the SpMV selector runs this matrix in DIA (" + spmv +
               "), whose products read less than the SpMM's CSR at so few columns";
  } else if (row &&
             shape.k * static_cast<std::int64_t>(cost::value_bytes(precision)) >= tuning::kSpmmCudaSpanMinRowBytes &&
             stats.row_nnz_mean > 0 &&
             stats.row_nnz_std >= tuning::kSpmmCudaSpanMinRowCv * stats.row_nnz_mean &&
             static_cast<double>(stats.row_nnz_max) < tuning::kSpmmCudaSpanMaxRowShare * static_cast<double>(stats.nnz)) {
    s.kernel = "cuda.csr.spmm_nnzsplit";
    s.reason = k + ", row-major: row lengths vary widely (std " + std::to_string(static_cast<long long>(stats.row_nnz_std + 0.5)) +
               " around a mean of " + std::to_string(static_cast<long long>(stats.row_nnz_mean + 0.5)) +
               "), so equal spans of non-zeros per group of lanes (merge-based SpMM, Yang, Buluç and Owens 2018)";
  } else {
    s.kernel = row ? "cuda.csr.spmm_rowmajor" : "cuda.csr.spmm_colmajor";
    if (row)
      s.reason = k + ", row-major: A's rows loaded coalesced and shuffle-broadcast, lanes over columns in 16-byte "
                     "vectors, rows of over " + std::to_string(tuning::kSpmmCudaLongRowNnz) + " non-zeros cut into chunks of a block";
    else
      s.reason = k + ", column-major: X transposed into a row-major copy, then the row-major row splitting "
                     "(mean row " + std::to_string(static_cast<long long>(stats.row_nnz_mean + 0.5)) + ")";
  }
  if (!spmm_registry().find(s.kernel))
    throw NotApplicable("no SpMM kernel for the " + std::string(to_string(backend)) + " in this build (" + s.kernel +
                        " is not registered)");
  return s;
}

}  // namespace spkit
