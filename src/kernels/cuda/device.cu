// Device queries for host code. A missing driver or device means 0 GPUs, not an error.
#include <cuda_runtime.h>

#include "spkit/device.hpp"
#include "spkit/error.hpp"

namespace spkit {

bool cuda_compiled() { return true; }

int gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

GpuInfo gpu_info(int device) {
  if (device < 0 || device >= gpu_count()) throw Error("no CUDA device " + std::to_string(device));
  cudaDeviceProp p{};
  cudaError_t err = cudaGetDeviceProperties(&p, device);
  if (err != cudaSuccess) throw DeviceError("cudaGetDeviceProperties", cudaGetErrorString(err));
  GpuInfo g;
  g.name = p.name;
  g.sm_count = p.multiProcessorCount;
  g.compute_major = p.major;
  g.compute_minor = p.minor;
  g.global_memory_bytes = p.totalGlobalMem;
  g.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  g.max_shared_per_block = static_cast<int>(p.sharedMemPerBlockOptin);
  return g;
}

}  // namespace spkit

namespace spkit {
// placeholder until the CUDA work lands
GpuBandwidth measure_gpu_bandwidth(int) { throw Error("GPU bandwidth measurement not implemented yet"); }
}  // namespace spkit
