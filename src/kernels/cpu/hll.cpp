// CPU kernels for hll (placeholder until its kernels land).
#include "spkit/kernel.hpp"

namespace spkit {
void register_cpu_hll_kernels(Registry&) {}
}  // namespace spkit
