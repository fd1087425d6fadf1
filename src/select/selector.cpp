// The auto-selector (interim: a fixed choice per backend until the cost model lands).
#include "spkit/error.hpp"
#include "spkit/plan.hpp"

namespace spkit {

Selection select_kernel(const MatrixStats& stats, const SelectOptions& opts) {
  (void)stats;
  Selection s;
  s.kernel = opts.backend == Backend::cpu ? "cpu.csr.omp.spkit" : "cuda.csr.subwarp";
  s.options.threads = opts.threads;
  s.options.device = opts.device;
  s.reason = "interim fixed choice";
  if (!registry().find(s.kernel)) throw NotApplicable("no kernel for backend " + std::string(to_string(opts.backend)));
  return s;
}

template <class T>
Selection select_kernel(const Csr<T>& a, const SelectOptions& opts) {
  if constexpr (sizeof(T) == 8) return select_kernel(compute_stats(a), opts);
  else return select_kernel(compute_stats(csr_cast<double>(a)), opts);
}

template Selection select_kernel(const Csr<float>&, const SelectOptions&);
template Selection select_kernel(const Csr<double>&, const SelectOptions&);

}  // namespace spkit
