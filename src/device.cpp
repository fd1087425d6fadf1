// Fallback for builds without CUDA; with CUDA, src/kernels/cuda/device.cu defines these.
#include "spkit/config.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"

#ifndef SPKIT_HAVE_CUDA
namespace spkit {
bool cuda_compiled() { return false; }
int gpu_count() { return 0; }
GpuInfo gpu_info(int) { throw Error("this spkit was built without CUDA support"); }
GpuBandwidth measure_gpu_bandwidth(int) { throw Error("this spkit was built without CUDA support"); }
}  // namespace spkit
#endif
