// Comparison kernel: eigen (placeholder until it lands).
#include "spkit/kernel.hpp"

namespace spkit {
void register_ref_eigen_kernels(Registry&) {}
}  // namespace spkit
