// `auto` for SpMM: one kernel per (backend, layout), every one of which already adapts to k and the rows
// at plan time, so the rule reads only the layout:
//   CPU, row-major    cpu.csr.spmm_rowmajor  (register tiles sized to k)
//   CPU, column-major cpu.csr.spmm_colmajor  (X copied into row-major panels, the same tiles)
//   GPU, row-major    cuda.csr.spmm_rowmajor (lanes over columns from k, sub-groups over entries from the mean row)
//   GPU, column-major cuda.csr.spmm_colmajor (X transposed, then the row-major row splitting)
// The baselines (MKL, cuSPARSE) are never picked. The reason line names the k and layout read.
#include <string>

#include "spkit/error.hpp"
#include "spkit/spmm.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit {

SpmmSelection select_spmm_kernel(const MatrixStats& stats, const SpmmShape& shape, Backend backend) {
  const bool row = shape.layout == DenseLayout::row_major;
  SpmmSelection s;
  const std::string k = "k = " + std::to_string(shape.k);
  if (backend == Backend::cpu) {
    s.kernel = row ? "cpu.csr.spmm_rowmajor" : "cpu.csr.spmm_colmajor";
    s.reason = row ? k + ", row-major: register tiles of Y's row sized to k, A read once"
                   : k + ", column-major: X copied into row-major panels, register tiles, A read once per panel";
  } else {
    s.kernel = row ? "cuda.csr.spmm_rowmajor" : "cuda.csr.spmm_colmajor";
    if (row)
      s.reason = k + ", row-major: A's rows loaded coalesced and shuffle-broadcast, lanes over columns in 16-byte "
                     "vectors, a block per row of over " + std::to_string(tuning::kSpmmCudaLongRowNnz) + " non-zeros";
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
