#pragma once
// An SpmvPlan over P A P^T that takes x and returns y in the caller's numbering: every product gathers
// x' = P x, runs the inner kernel y' = alpha A' x' (beta 0), and scatters y = P^T y' + beta y. The two
// passes are part of every product and counted in bytes_moved(); on CUDA all three are enqueued on the
// caller's stream, nothing synchronizes. Plan<T> reaches the inner kernel and the two passes through
// RenumberedPlan for callers that keep their vectors in the plan's numbering (Plan::
// apply_in_plan_numbering): they pay the passes once per solve instead of once per product.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spkit/config.hpp"
#include "spkit/kernel.hpp"
#include "spkit/reorder.hpp"

namespace spkit::plan_detail {

// What a permuted plan exposes besides SpmvPlan: the kernel on P A P^T and the two passes. Pointers are
// host pointers for a CPU plan, device pointers for a CUDA plan (work enqueued on `stream`).
template <class T>
class RenumberedPlan {
 public:
  virtual ~RenumberedPlan() = default;
  virtual SpmvPlan<T>& inner() = 0;  // y' = alpha (P A P^T) x' + beta y', both in the plan's numbering
  virtual const std::vector<std::int32_t>& old_of_new() const = 0;  // plan row i is user row old_of_new()[i]
  virtual const std::vector<std::int32_t>& new_of_old() const = 0;  // user row j is plan row new_of_old()[j]
  // plan[i] = user[old_of_new[i]]
  virtual void gather(const T* user, T* plan, Stream stream) = 0;
  // user[old_of_new[i]] = plan[i] + beta * user[old_of_new[i]] (beta == 0: user is not read)
  virtual void scatter(const T* plan, T beta, T* user, Stream stream) = 0;
  // The same on row-major blocks of k vectors, for the block apply: plan(i, :) = user(old_of_new[i], :) and
  // user(old_of_new[i], :) = plan(i, :) + beta user(old_of_new[i], :); the plan's block has ld = k, the
  // user's ld_user >= k (its entries past k are not touched).
  virtual void gather_rows(const T* user, std::int64_t ld_user, std::int64_t k, T* plan, Stream stream) = 0;
  virtual void scatter_rows(const T* plan, std::int64_t k, T beta, T* user, std::int64_t ld_user, Stream stream) = 0;
};

// The RenumberedPlan behind `plan`, or null when it runs on A as given.
template <class T>
RenumberedPlan<T>* as_renumbered(SpmvPlan<T>& plan) {
  return dynamic_cast<RenumberedPlan<T>*>(&plan);
}
// The kernel a product in the plan's numbering runs: the inner one of a permuted plan, else `plan`.
template <class T>
SpmvPlan<T>& kernel_in_plan_numbering(SpmvPlan<T>& plan) {
  RenumberedPlan<T>* r = as_renumbered(plan);
  return r ? r->inner() : plan;
}

// Wraps `inner` (planned on permute_symmetric(A, p)). CPU: the passes run on `threads` OpenMP threads;
// CUDA: the permutation is uploaded to `device` (throws TooLarge / DeviceError).
template <class T>
std::unique_ptr<SpmvPlan<T>> make_permuted_plan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p,
                                                Ordering ordering, int threads, int device);

// Bytes the gather and the scatter move per product for n rows in precision T (x, x', y', y and the
// permutation read twice): what bytes_moved() adds to the inner kernel's.
template <class T>
std::uint64_t permutation_bytes(std::int64_t n) {
  return static_cast<std::uint64_t>(n) * (4 * sizeof(T) + 2 * sizeof(std::int32_t));
}

// p.new_of_old, or the inverse of p.old_of_new where the Permutation was built without it.
std::vector<std::int32_t> inverse_of(const Permutation& p);

// "<inner detail>; rcm ordering (x gathered, y scattered)"
std::string permuted_detail(const std::string& inner_detail, Ordering ordering);

// The two passes on host vectors, on `threads` OpenMP threads (CUDA plans use them for host pointers). Both
// read at random and write in order: the scatter runs over the user's rows, user[j] = plan[new_of_old[j]]
// + beta user[j], because a scattered store costs a whole line (read for ownership, written back) where a
// scattered load costs its read (dev box, 4.8M doubles, 1 thread: 66-77 against 58-64 ms).
template <class T>
void gather_host(const std::vector<std::int32_t>& old_of_new, const T* user, T* plan, int threads);
template <class T>
void scatter_host(const std::vector<std::int32_t>& new_of_old, const T* plan, T beta, T* user, int threads);
// Their row-block forms (RenumberedPlan::gather_rows / scatter_rows) on host blocks.
template <class T>
void gather_rows_host(const std::vector<std::int32_t>& old_of_new, const T* user, std::int64_t ld_user, std::int64_t k,
                      T* plan, int threads);
template <class T>
void scatter_rows_host(const std::vector<std::int32_t>& new_of_old, const T* plan, std::int64_t k, T beta, T* user,
                       std::int64_t ld_user, int threads);

#ifdef SPKIT_HAVE_CUDA
template <class T>
std::unique_ptr<SpmvPlan<T>> make_cuda_permuted_plan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p,
                                                     Ordering ordering, int device);
#endif

}  // namespace spkit::plan_detail
