// Comparison kernel: mkl (placeholder until it lands).
#include "spkit/kernel.hpp"

namespace spkit {
void register_ref_mkl_kernels(Registry&) {}
}  // namespace spkit
