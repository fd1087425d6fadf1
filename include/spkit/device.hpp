#pragma once
// What GPU this process can use. Host-callable in every build: without CUDA support compiled in,
// gpu_count() is 0 and the rest say so.
#include <cstdint>
#include <string>

namespace spkit {

struct GpuInfo {
  std::string name;
  int sm_count = 0;
  int compute_major = 0, compute_minor = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int max_shared_per_block = 0;
};

bool cuda_compiled();        // this build contains the CUDA kernels
int gpu_count();             // usable CUDA devices (0 without CUDA or without a device/driver)
// Why CUDA kernels cannot run when gpu_count() is 0: no device, or a build without CUDA (one line).
const char* no_gpu_reason();
GpuInfo gpu_info(int device = 0);  // throws spkit::Error when there is no such device

// Device memory bandwidth over buffers far larger than L2, counting bytes read plus bytes written:
// copy (b = a), triad (a = b + s c) and read-only (sum of a). GB/s, medians over repetitions.
struct GpuBandwidth {
  double copy_gbs = 0, triad_gbs = 0, read_gbs = 0;
};
GpuBandwidth measure_gpu_bandwidth(int device = 0);  // throws spkit::Error without a GPU

}  // namespace spkit
