// CUDA kernels for hyb (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cuda_hyb_kernels(Registry&) {}
}  // namespace spkit
