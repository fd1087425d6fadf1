// Device side of the selector: the theoretical memory bandwidth of a CUDA device.
#include <cuda_runtime.h>

#include "select/gpu_peak_bandwidth.hpp"

namespace spkit::select_detail {

double gpu_peak_memory_gbs(int device) {
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    cudaGetLastError();  // clear the error, so that the next CUDA call does not report it
    return 0;
  }
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

}  // namespace spkit::select_detail
