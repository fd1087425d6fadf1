// CUDA kernels for cusparse (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cuda_cusparse_kernels(Registry&) {}
}  // namespace spkit
