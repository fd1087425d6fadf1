// THE list of SpGEMM kernels: one line per format x backend registration function, as for SpMV
// (src/kernels/registry.cpp). Each file registers its kernels in its register_* function.
#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit {

// Registration functions (one per file) are declared and called here.
#ifdef SPKIT_HAVE_CUDA
void register_cuda_spgemm_kernels(SpgemmRegistry& reg);  // src/spgemm/cuda/spgemm_cuda_common.cu
#endif

void SpgemmRegistry::add(SpgemmKernelInfo info) {
  if (find(info.name)) throw Error("SpGEMM kernel registered twice: " + info.name);
  kernels_.push_back(std::move(info));
}

const SpgemmKernelInfo* SpgemmRegistry::find(std::string_view name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<const SpgemmKernelInfo*> SpgemmRegistry::match(std::string_view patterns) const {
  std::vector<const SpgemmKernelInfo*> out;
  for (const auto& k : kernels_)
    if (matches_any(patterns, k.name)) out.push_back(&k);
  return out;
}

const SpgemmRegistry& spgemm_registry() {
  static const SpgemmRegistry instance = [] {
    SpgemmRegistry reg;
#ifdef SPKIT_HAVE_CUDA
    register_cuda_spgemm_kernels(reg);
#endif
    return reg;
  }();
  return instance;
}

}  // namespace spkit
