// THE list of SpMM kernels: one line per registration function (one per file), as for SpMV
// (src/kernels/registry.cpp) and SpGEMM (src/spgemm/registry.cpp).
#include "spkit/config.hpp"
#include "spkit/spmm.hpp"

namespace spkit {

void register_cpu_csr_spmm(SpmmRegistry&);            // src/spmm/cpu/csr.cpp
void register_cpu_dia_spmm(SpmmRegistry&);            // src/spmm/cpu/dia.cpp
void register_cpu_spmv_columns_spmm(SpmmRegistry&);   // src/spmm/cpu/spmv_columns.cpp
#ifdef SPKIT_HAVE_CUDA
void register_cuda_csr_rowmajor_spmm(SpmmRegistry&);  // src/spmm/cuda/csr_rowmajor.cu
void register_cuda_csr_nnzsplit_spmm(SpmmRegistry&);  // src/spmm/cuda/csr_nnzsplit.cu
void register_cuda_csr_colmajor_spmm(SpmmRegistry&);  // src/spmm/cuda/csr_colmajor.cu
void register_cuda_csr_colmajor_gather_spmm(SpmmRegistry&);  // src/spmm/cuda/csr_colmajor_gather.cu
void register_cuda_cusparse_spmm(SpmmRegistry&);      // src/spmm/cuda/cusparse.cu
void register_cuda_spmv_columns_spmm(SpmmRegistry&);  // src/spmm/cuda/spmv_columns.cu
#endif
#ifdef SPKIT_HAVE_MKL
void register_ref_mkl_spmm(SpmmRegistry&);            // src/spmm/ref/mkl.cpp
#endif

const SpmmRegistry& spmm_registry() {
  static const SpmmRegistry instance = [] {
    SpmmRegistry reg;
    register_cpu_csr_spmm(reg);
    register_cpu_dia_spmm(reg);
    register_cpu_spmv_columns_spmm(reg);
#ifdef SPKIT_HAVE_CUDA
    register_cuda_csr_rowmajor_spmm(reg);
    register_cuda_csr_nnzsplit_spmm(reg);
    register_cuda_csr_colmajor_spmm(reg);
    register_cuda_csr_colmajor_gather_spmm(reg);
    register_cuda_cusparse_spmm(reg);
    register_cuda_spmv_columns_spmm(reg);
#endif
#ifdef SPKIT_HAVE_MKL
    register_ref_mkl_spmm(reg);
#endif
    return reg;
  }();
  return instance;
}

}  // namespace spkit
