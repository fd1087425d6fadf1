// The device memory a product may take now, for the row batches of spgemm_batched (src/spgemm/batched.cpp).
#include "spgemm/cuda/spgemm_cuda_common.cuh"

namespace spkit::detail {

// Free device memory plus what the SpGEMM pool holds unused (a product allocates from the pool first).
std::uint64_t spgemm_device_free_bytes(int device) {
  cuda::set_device(device);
  std::size_t free_b = 0, total_b = 0;
  SPKIT_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  std::uint64_t reserved = 0, used = 0;
  SPKIT_CUDA_CHECK(cudaMemPoolGetAttribute(cuda::spgemm_pool(device), cudaMemPoolAttrReservedMemCurrent, &reserved));
  SPKIT_CUDA_CHECK(cudaMemPoolGetAttribute(cuda::spgemm_pool(device), cudaMemPoolAttrUsedMemCurrent, &used));
  return free_b + (reserved > used ? reserved - used : 0);
}

}  // namespace spkit::detail
