#pragma once
// Runs one kernel's y = alpha*A*x + beta*y on host vectors, whatever its backend: a CPU kernel directly,
// a CUDA kernel through device copies of x and y on a stream of its own (tests/common/run_on_host_cuda.cu,
// compiled in CUDA builds only), so a kernel that ignores the stream it is given shows as a wrong y.
#include <vector>

#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {

#ifdef SPKIT_HAVE_CUDA
template <class T>
void run_cuda_on_host(SpmvPlan<T>& plan, T alpha, const std::vector<T>& x, T beta, std::vector<T>& y);
#endif

template <class T>
void run_on_host(SpmvPlan<T>& plan, T alpha, const std::vector<T>& x, T beta, std::vector<T>& y) {
  if (plan.backend() == Backend::cpu) return plan.run(alpha, x.data(), beta, y.data(), Stream{});
#ifdef SPKIT_HAVE_CUDA
  run_cuda_on_host(plan, alpha, x, beta, y);
#else
  throw Error("run_on_host: a CUDA kernel in a build without CUDA");
#endif
}

}  // namespace spkit::test
