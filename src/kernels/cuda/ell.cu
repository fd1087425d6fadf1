// CUDA kernels for ell (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cuda_ell_kernels(Registry&) {}
}  // namespace spkit
