#pragma once
// The plan-once library API: build a Plan once from a CSR matrix (format, kernel and device buffers
// chosen by the auto-selector or named), then run y = alpha*A*x + beta*y as many times as needed, on
// host or device pointers, in float or double.
//
//   spkit::Csr<double> a = spkit::load_matrix("A.mtx");
//   spkit::PlanSettings settings;
//   settings.backend = spkit::Backend::cuda;   // kernel "auto" (the default) or a registry name
//   settings.expected_products = 500;
//   spkit::Plan<double> plan(a, settings);
//   plan.apply(x, y);                    // y = A x       (x, y host or device pointers)
//   plan.apply(x, y, 2.0, 1.0);          // y = 2 A x + y
//   plan.apply_transpose(u, v);          // v = A^T u   (settings.expected_transpose_products > 0)
//
// The selector (spkit/select.hpp: select_kernel) reads cheap statistics of the matrix (spkit/stats.hpp)
// and the number of products the caller expects, so that a conversion that costs more than it saves is
// not chosen. Each apply is one kernel run computing alpha*A*x + beta*y directly: no scratch vector, no
// second pass, unless the plan keeps the matrix renumbered (PlanSettings::ordering, spkit/reorder.hpp):
// then every apply also gathers x into the plan's numbering and scatters y back (two passes, counted in
// bytes_moved). With enough expected products, "auto" times its top candidates (PlanSettings::tuning);
// selection() says what was measured and what the renumbering and the tuning cost.
//
// Iterative solvers that apply A hundreds of times to vectors they own can keep those vectors in the
// plan's numbering and pay the two passes once per solve instead of once per product:
//
//   plan.to_plan_numbering(b, bp);                 // once
//   ... plan.apply_in_plan_numbering(p, q); ...    // y' = (P A P^T) x': the kernel alone
//   plan.from_plan_numbering(xp, x);               // once
//
// Dot products, norms and axpys give the same results in either numbering (up to summation order).
// Set PlanSettings::vectors_in_plan_numbering so that "auto" ranks orderings without the passes.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/select.hpp"
#include "spkit/stats.hpp"

namespace spkit {

// What kernel "auto" builds for `a`: the selector's pick on the matrix as given or renumbered
// (settings.ordering), chosen by the cost model or by timing the top candidates (settings.tuning);
// `selection` receives why. Plan<T> runs it; the harness's auto rows time it like any kernel. `stats`:
// the statistics of `a` when the caller already has them (computed here otherwise). Throws spkit::Error
// on bad settings, NotApplicable when no kernel accepts the matrix.
template <class T>
std::unique_ptr<SpmvPlan<T>> plan_auto(const Csr<T>& a, const PlanSettings& settings, Selection& selection,
                                       const MatrixStats* stats = nullptr);

template <class T>
class Plan {
 public:
  // Converts, partitions and uploads once. Throws spkit::Error (NotApplicable, TooLarge, DeviceError)
  // with a message a user can act on.
  Plan(const Csr<T>& a, const PlanSettings& settings = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // y = alpha*A*x + beta*y. x has cols() and y rows() elements. For a CUDA plan, x and y may be host
  // or device pointers (both of one kind); for a CPU plan they must be host pointers. With beta == 0,
  // y is not read (it may hold NaN). Returns when y is written, except for a CUDA plan on device
  // pointers, whose product runs asynchronously on the legacy default stream.
  void apply(const T* x, T* y, T alpha = T(1), T beta = T(0));
  // The same on a CUDA stream (a cudaStream_t in Stream::handle). Device pointers: the product is
  // enqueued on `stream` and apply returns without synchronizing. Host pointers: the copies and the
  // product are enqueued on `stream`, which apply then synchronizes. CPU plans ignore the stream.
  void apply(const T* x, T* y, T alpha, T beta, Stream stream);

  // y = alpha*A^T*x + beta*y: x has rows() and y cols() elements, pointers and stream as for apply.
  // Needs PlanSettings::expected_transpose_products > 0 (throws Error otherwise): with enough of them the
  // plan holds A^T and runs its kernel on it, with few it scatters A's rows (on the GPU with atomic adds,
  // not bit-reproducible between runs); transpose_detail() says which.
  void apply_transpose(const T* x, T* y, T alpha = T(1), T beta = T(0));
  void apply_transpose(const T* x, T* y, T alpha, T beta, Stream stream);

  // Y = alpha*A*X + beta*Y on a block of k vectors, row-major: X(j, c) = x[j * ldx + c] (cols() rows),
  // Y(i, c) = y[i * ldy + c] (rows() rows), ldx, ldy >= k; entries between k and ld are not touched.
  // k >= 2: one product of the SpMM kernel `auto` picks for the plan's backend (spkit/spmm.hpp), A read
  // once for all k columns, planned on the first block of each k (the two most recent kept); the plan
  // keeps a copy of A for it. A renumbered plan whose rows average 16 or more entries runs it on P A P^T,
  // X's rows gathered into the plan's numbering and Y's rows scattered back (two passes of rows x k values,
  // for the locality it renumbered for); with shorter rows the passes cost what they save, and it runs on A.
  // k = 1: the plan's own kernel (through a contiguous copy of a strided column). Pointers and stream as
  // for apply. CPU, beta = 0, run by cpu.csr.spmm_rowmajor on A: a Y of 4 MB or more on a 64-byte
  // boundary, ldy a multiple of 64 bytes, is written with streaming stores (no read of Y's lines first).
  void apply(const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, T alpha = T(1),
             T beta = T(0), Stream stream = {});

  // -- Vectors in the plan's numbering (a renumbered plan keeps P A P^T; see the top of this file) --
  // True when the plan keeps A renumbered (selection().ordering != "none"); a rectangular plan never is.
  bool renumbered() const;
  // Plan row (and column) i is user row (and column) numbering()[i]; empty when the plan is not renumbered.
  const std::vector<std::int64_t>& numbering() const;
  // plan[i] = user[numbering()[i]], for a vector of n elements, n == rows() or n == cols(); a plain copy
  // when the plan is not renumbered. Host or device pointers as for apply (both of one kind; a CUDA plan
  // permutes device vectors on the GPU on `stream`, without synchronizing). user and plan must not
  // overlap (spkit::Error).
  void to_plan_numbering(const T* user, T* plan, std::int64_t n, Stream stream = {});
  // The inverse: user[numbering()[i]] = plan[i].
  void from_plan_numbering(const T* plan, T* user, std::int64_t n, Stream stream = {});
  // y = alpha*(P A P^T)*x + beta*y with x and y in the plan's numbering: the kernel alone, no gather or
  // scatter (for a plan that is not renumbered, exactly apply). Pointers, stream and beta == 0 as for apply.
  void apply_in_plan_numbering(const T* x, T* y, T alpha = T(1), T beta = T(0));
  void apply_in_plan_numbering(const T* x, T* y, T alpha, T beta, Stream stream);

  std::int64_t rows() const;
  std::int64_t cols() const;
  const std::string& kernel() const;       // the registry name running
  Backend backend() const;
  const Selection& selection() const;      // why this kernel (for "auto"; the named kernel otherwise)
  double plan_ms() const;                  // wall time of the constructor
  std::uint64_t bytes_moved() const;       // per apply, as the kernel counts them (the passes included)
  std::uint64_t bytes_moved_in_plan_numbering() const;  // per apply_in_plan_numbering: the kernel alone
  // The SpMM kernel of the most recent block apply of k >= 2 vectors ("" before the first), and whether
  // block applies run on P A P^T with the row passes (see apply above).
  std::string block_kernel() const;
  bool block_renumbered() const;
  // How apply_transpose runs: "none", "scatter" or "cached A^T" (with the kernel's detail).
  std::string transpose_detail() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spkit
