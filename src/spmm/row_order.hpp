#pragma once
// The order in which the row-major CSR SpMM kernels (cpu.csr.spmm_rowmajor, cuda.csr.spmm_rowmajor) visit
// A's rows. On a matrix numbered at random (a mesh as a mesher numbered it), rows visited together reach
// X's rows from all over memory: at k = 16 doubles each entry gathers a 128-byte row of X, 2 GB for 16M
// entries, most of it past the caches. Visited in reverse Cuthill-McKee order, consecutive rows are mesh
// neighbours and reach the same rows of X, which then come from L1/L2. Only the order of the visits
// changes: A, X and Y stay as given (no gather, no scatter), each row of Y is written where it belongs.
// Where a row of X spans whole cache lines (CPU) or sectors (GPU) this captures most of what renumbering
// the matrix would (fem_mesh numbered at random, 2M non-zeros, 1 thread, k = 64 doubles: A as given 26.8
// ms, rows in RCM order 14.6, the RCM-renumbered matrix 12.5; H100, 16M non-zeros, k = 64 doubles: 1.35
// -> 0.73 ms; docs/perf/spmm-cpu.md, docs/perf/spmm-gpu.md).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/reorder.hpp"
#include "tuning.hpp"

namespace spkit::spmm_detail {

struct RowOrder {
  std::vector<std::int32_t> rows;  // A's rows in visiting order; empty: natural order
  std::string reason;              // why, for the plan's detail (empty with the natural order)
};

// RCM visiting order for k columns of T where it pays: square A, rows of X of at least `line_bytes`
// (a partial line wastes the locality of neighbours numbered apart), a badly numbered matrix (locality's
// relative distance at least tuning::kReorderWellNumberedDistance), and either rows averaging
// tuning::kSpmmRowOrderMinRowMean entries or, where `short_row_bytes` > 0, rows of X of at least that many
// bytes on a symmetric pattern whose RCM order is itself well numbered (tuning::kSpmmRowOrderGpuWarpRowBytes
// and kSpmmRowOrderCpuShortRowBytes say why).
template <class T>
RowOrder locality_row_order(const Csr<T>& a, std::int64_t k, int line_bytes, int short_row_bytes = 0) {
  RowOrder o;
  if (a.rows != a.cols || a.rows < 2 || a.nnz() == 0) return o;
  const std::int64_t row_bytes = k * static_cast<std::int64_t>(sizeof(T));
  if (row_bytes < line_bytes) return o;
  const double mean = static_cast<double>(a.nnz()) / static_cast<double>(a.rows);
  const bool long_rows = mean >= tuning::kSpmmRowOrderMinRowMean;
  if (!long_rows && (short_row_bytes <= 0 || row_bytes < short_row_bytes)) return o;
  const Locality loc = locality(a);
  if (loc.relative_distance < tuning::kReorderWellNumberedDistance) return o;
  if (!long_rows && !has_symmetric_pattern(a)) return o;  // a directed graph: RCM's search would be wasted
  Permutation p = compute_ordering(a, Ordering::rcm);
  if (!long_rows) {
    const double after = locality(a, p).relative_distance;
    if (after >= tuning::kReorderWellNumberedDistance) return o;  // no order to find (a random graph)
    o.reason = "short rows visited in reverse Cuthill-McKee order (badly numbered: " + to_string(loc) +
               "; relative distance " + std::to_string(after).substr(0, 6) + " in that order)";
  } else {
    o.reason = "rows visited in reverse Cuthill-McKee order (badly numbered: " + to_string(loc) + ")";
  }
  o.rows = std::move(p.old_of_new);
  return o;
}

}  // namespace spkit::spmm_detail
