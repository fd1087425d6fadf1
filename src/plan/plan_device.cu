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
void copy(void* dst, const void* src, std::size_t bytes, Stream stream) {
  if (bytes > 0) SPKIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cuda::cuda_stream(stream)));
}
void copy_strided(void* dst, std::int64_t dst_stride, const void* src, std::int64_t src_stride,
                  std::size_t elem_bytes, std::int64_t count, Stream stream) {
  if (count <= 0) return;
  // One element per "row" of a 2-D copy: the pitches are the strides in bytes.
  SPKIT_CUDA_CHECK(cudaMemcpy2DAsync(dst, static_cast<std::size_t>(dst_stride) * elem_bytes, src,
                                     static_cast<std::size_t>(src_stride) * elem_bytes, elem_bytes,
                                     static_cast<std::size_t>(count), cudaMemcpyDefault, cuda::cuda_stream(stream)));
}
void synchronize(Stream stream) { SPKIT_CUDA_CHECK(cudaStreamSynchronize(cuda::cuda_stream(stream))); }
void select_device(int device) { cuda::set_device(device); }

}  // namespace spkit::plan_device
