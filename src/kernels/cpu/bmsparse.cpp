// CPU kernels for bmsparse (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cpu_bmsparse_kernels(Registry&) {}
}  // namespace spkit
