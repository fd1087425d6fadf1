// CPU kernels for ell (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cpu_ell_kernels(Registry&) {}
}  // namespace spkit
