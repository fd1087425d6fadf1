// THE list of SpGEMM kernels: one line per format x backend registration function, as for SpMV
// (src/kernels/registry.cpp). Each file registers its kernels in its register_* function.
#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit {

// Registration functions (one per file) are declared and called here.
void register_cpu_csr_spgemm(SpgemmRegistry&);
void register_cpu_bmsparse_spgemm(SpgemmRegistry&);
void register_cpu_dia_spgemm(SpgemmRegistry&);
void register_cpu_bsr_spgemm(SpgemmRegistry&);
#ifdef SPKIT_HAVE_CUDA
void register_cuda_spgemm_kernels(SpgemmRegistry& reg);  // src/spgemm/cuda/spgemm_cuda_common.cu
#endif
#ifdef SPKIT_HAVE_MKL
void register_ref_mkl_spgemm(SpgemmRegistry&);
#endif

const SpgemmRegistry& spgemm_registry() {
  static const SpgemmRegistry instance = [] {
    SpgemmRegistry reg;
    register_cpu_csr_spgemm(reg);
    register_cpu_bmsparse_spgemm(reg);
    register_cpu_dia_spgemm(reg);
    register_cpu_bsr_spgemm(reg);
#ifdef SPKIT_HAVE_CUDA
    register_cuda_spgemm_kernels(reg);
#endif
#ifdef SPKIT_HAVE_MKL
    register_ref_mkl_spgemm(reg);
#endif
    return reg;
  }();
  return instance;
}

}  // namespace spkit
