// THE list of kernels: one line per format x backend. Each file registers its own kernels with
// add_kernel<...>() in its register_* function. Adding a kernel to an existing file needs no edit
// here; adding a file adds one line.
#include "spkit/config.hpp"
#include "spkit/kernel.hpp"

namespace spkit {

void register_cpu_csr_kernels(Registry&);
void register_cpu_ell_kernels(Registry&);
void register_cpu_hll_kernels(Registry&);
void register_cpu_hyb_kernels(Registry&);
void register_cpu_bmsparse_kernels(Registry&);
void register_cpu_dia_kernels(Registry&);
void register_cpu_sell_kernels(Registry&);
void register_cpu_sell_simd_kernels(Registry&);
void register_cpu_bsr_kernels(Registry&);
#ifdef SPKIT_HAVE_CUDA
void register_cuda_csr_scalar_kernels(Registry&);
void register_cuda_csr_vector_kernels(Registry&);
void register_cuda_csr_subwarp_kernels(Registry&);
void register_cuda_csr_adaptive_kernels(Registry&);
void register_cuda_csr_merge_kernels(Registry&);
void register_cuda_csr_binned_kernels(Registry&);
void register_cuda_ell_kernels(Registry&);
void register_cuda_hll_kernels(Registry&);
void register_cuda_hyb_kernels(Registry&);
void register_cuda_bmsparse_kernels(Registry&);
void register_cuda_cusparse_kernels(Registry&);
void register_cuda_dia_kernels(Registry&);
void register_cuda_sell_kernels(Registry&);
void register_cuda_bsr_kernels(Registry&);
#endif
#ifdef SPKIT_HAVE_MKL
void register_ref_mkl_kernels(Registry&);
#endif
#ifdef SPKIT_HAVE_EIGEN
void register_ref_eigen_kernels(Registry&);
#endif
#ifdef SPKIT_HAVE_LIBRSB
void register_ref_librsb_kernels(Registry&);
#endif

const Registry& registry() {
  static const Registry instance = [] {
    Registry reg;
    register_cpu_csr_kernels(reg);
    register_cpu_ell_kernels(reg);
    register_cpu_hll_kernels(reg);
    register_cpu_hyb_kernels(reg);
    register_cpu_bmsparse_kernels(reg);
    register_cpu_dia_kernels(reg);
    register_cpu_sell_kernels(reg);
    register_cpu_sell_simd_kernels(reg);
    register_cpu_bsr_kernels(reg);
#ifdef SPKIT_HAVE_CUDA
    register_cuda_csr_scalar_kernels(reg);
    register_cuda_csr_vector_kernels(reg);
    register_cuda_csr_subwarp_kernels(reg);
    register_cuda_csr_adaptive_kernels(reg);
    register_cuda_csr_merge_kernels(reg);
    register_cuda_csr_binned_kernels(reg);
    register_cuda_ell_kernels(reg);
    register_cuda_hll_kernels(reg);
    register_cuda_hyb_kernels(reg);
    register_cuda_bmsparse_kernels(reg);
    register_cuda_cusparse_kernels(reg);
    register_cuda_dia_kernels(reg);
    register_cuda_sell_kernels(reg);
    register_cuda_bsr_kernels(reg);
#endif
#ifdef SPKIT_HAVE_MKL
    register_ref_mkl_kernels(reg);
#endif
#ifdef SPKIT_HAVE_EIGEN
    register_ref_eigen_kernels(reg);
#endif
#ifdef SPKIT_HAVE_LIBRSB
    register_ref_librsb_kernels(reg);
#endif
    return reg;
  }();
  return instance;
}

}  // namespace spkit
