#pragma once
// An SpmvPlan over P A P^T that takes x and returns y in the caller's numbering: every product gathers
// x' = P x, runs the inner kernel y' = alpha A' x' (beta 0), and scatters y = P^T y' + beta y. The two
// passes are part of every product and counted in bytes_moved(); on CUDA all three are enqueued on the
// caller's stream, nothing synchronizes.
#include <memory>
#include <string>

#include "spkit/config.hpp"
#include "spkit/kernel.hpp"
#include "spkit/reorder.hpp"

namespace spkit::plan_detail {

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

// "rcm ordering: x gathered, y scattered in 2 passes"
std::string permuted_detail(const std::string& inner_detail, Ordering ordering);

#ifdef SPKIT_HAVE_CUDA
template <class T>
std::unique_ptr<SpmvPlan<T>> make_cuda_permuted_plan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p,
                                                     Ordering ordering, int device);
#endif

}  // namespace spkit::plan_detail
