// CUDA kernels for csr (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cuda_csr_kernels(Registry&) {}
}  // namespace spkit
