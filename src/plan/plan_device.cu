// Device side of the Plan API: pointer classification, buffers and stream-ordered copies.
#include "kernels/cuda/cuda_common.cuh"
#include "plan/plan_device.hpp"

namespace spkit::plan_device {

PointerKind pointer_kind(const void* p) {
  cudaPointerAttributes attr{};
  cuda::check_cuda(cudaPointerGetAttributes(&attr, p), "cudaPointerGetAttributes");
  // Managed memory is readable by kernels as it is; unregistered (pageable) and pinned host memory
  // are copied through the plan's device buffers.
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? PointerKind::device
                                                                                  : PointerKind::host;
}

void* allocate(std::size_t bytes, const char* what) { return cuda::device_malloc(bytes, what); }
void release(void* p) noexcept { cuda::device_free(p); }
void upload(void* dst, const void* src, std::size_t bytes, Stream stream) {
  if (bytes > 0) SPKIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cuda::cuda_stream(stream)));
}
void download(void* dst, const void* src, std::size_t bytes, Stream stream) {
  if (bytes > 0) SPKIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cuda::cuda_stream(stream)));
}
void synchronize(Stream stream) { SPKIT_CUDA_CHECK(cudaStreamSynchronize(cuda::cuda_stream(stream))); }
void select_device(int device) { cuda::set_device(device); }

}  // namespace spkit::plan_device
