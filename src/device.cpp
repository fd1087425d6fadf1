// Fallback for builds without CUDA; with CUDA, src/kernels/cuda/device.cu defines these.
#include "spkit/config.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"

namespace spkit {
const char* no_gpu_reason() {
  return cuda_compiled() ? "no CUDA device on this machine" : "this spkit was built without CUDA";
}
}  // namespace spkit

#ifndef SPKIT_HAVE_CUDA
namespace spkit {
bool cuda_compiled() { return false; }
int gpu_count() { return 0; }
GpuInfo gpu_info(int) { throw Error("this spkit was built without CUDA support"); }
GpuBandwidth measure_gpu_bandwidth(int) { throw Error("this spkit was built without CUDA support"); }
}  // namespace spkit
#endif
