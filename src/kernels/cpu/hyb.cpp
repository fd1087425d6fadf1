// CPU kernels for hyb (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cpu_hyb_kernels(Registry&) {}
}  // namespace spkit
