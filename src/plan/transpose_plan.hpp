#pragma once
// Transposed products y = alpha*A^T*x + beta*y for Plan<T>::apply_transpose, built once with the plan.
// Two ways, chosen by how many transposed products the caller expects (PlanSettings::
// expected_transpose_products):
//  - cached: A^T is built in CSR once and the plan's own kernel is planned on it, so a transposed
//    product costs what a forward one does on A^T (a second copy of the matrix, in the kernel's format);
//  - scatter (few products): a pass over A's rows that adds a_ij * x_i into y_j. On the CPU each thread
//    scatters into its own partial y (zeroed per product), then one pass sums the partials into
//    alpha*sum + beta*y. Per-thread partials, not atomics: a double atomic add is a compare-and-swap loop
//    on the CPU that hub columns (many rows sharing one column) serialize, while the partials cost a fixed
//    2*buffers*cols of extra traffic, bounded by using fewer buffers when cols is large against nnz. On the
//    GPU, atomic adds are one instruction: a warp per row adds into y directly.
#include <cstdint>
#include <memory>
#include <string>

#include "spkit/config.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/select.hpp"

namespace spkit::plan_detail {

// A^T in CSR (columns sorted within each row), by a counting sort over A's columns: O(nnz + rows + cols).
template <class T>
Csr<T> transpose_csr(const Csr<T>& a);

// Fewest expected transposed products for which a CPU plan caches A^T. Building A^T and planning the
// kernel on it added 7-9 forward products to the plan, and the scatter product ran at 0.4-0.6x the
// forward speed (so it loses about one product each): break-even near 8 (lap3d 7-point n = 60 and
// fem_mesh n = 50 on the 2-core development box, `spkit_example_cg --time-transpose`; docs/PERFORMANCE.md,
// "CG").
inline constexpr std::int64_t kTransposeCacheMinProducts = 8;

// How a plan runs its transposed products.
enum class TransposeMode { none, cached, scatter };
const char* to_string(TransposeMode mode);  // "none", "cached A^T", "scatter"

// Fewest expected transposed products for which a CUDA plan caches A^T; fewer run the scatter with atomic
// adds (make_cuda_scatter_transpose_plan). H100, 2026-11-27 (Python plans on CuPy arrays, docs/PERFORMANCE.md
// "CG"): caching added 65-945 ms to the plan (A^T built on the host, its kernel planned and uploaded), the
// scatter ran at 0.24-0.71x the forward speed and the cached A^T at 0.98-1.20x, so caching paid after about
// 1,000 (power-law, 2M non-zeros), 2,000 (lap3d 7-pt, 28M), 7,400 (random, 2M) and 8,500 (fem_mesh, 28M)
// transposed products.
inline constexpr std::int64_t kCudaTransposeCacheMinProducts = 2000;

// The plan of y = alpha*A^T*x + beta*y for `a` (x has a.rows elements, y a.cols), or none when no
// transposed products are expected. `forward` is the kernel the plan runs on A (its registry name and
// options): the cached way plans that kernel on A^T, or "auto"'s pick for A^T when that kernel refuses it.
template <class T>
std::unique_ptr<SpmvPlan<T>> make_transpose_plan(const Csr<T>& a, const PlanSettings& settings,
                                                 const Selection& forward, TransposeMode& mode);

#ifdef SPKIT_HAVE_CUDA
// The CUDA scatter: y = beta y, then alpha a_ij x_i added into y_j with atomic adds, a warp per row of A
// (src/plan/transpose_scatter.cu). Not bit-reproducible between runs (the adds' order varies).
template <class T>
std::unique_ptr<SpmvPlan<T>> make_cuda_scatter_transpose_plan(const Csr<T>& a, int device);
#endif

}  // namespace spkit::plan_detail
