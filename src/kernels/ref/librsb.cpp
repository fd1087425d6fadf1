// Comparison kernel: librsb (placeholder until it lands).
#include "spkit/kernel.hpp"

namespace spkit {
void register_ref_librsb_kernels(Registry&) {}
}  // namespace spkit
