#pragma once
// Host-callable device helpers of the Plan API (src/plan/plan_device.cu). Declared without CUDA types so
// plan.cpp compiles in every build; call them only when SPKIT_HAVE_CUDA is defined.
#include <cstddef>
#include <cstdint>

namespace spkit::plan_device {

// Where a pointer lives, as cudaPointerGetAttributes reports it: device (or managed) memory that a
// kernel can read directly, or host memory (pageable or pinned) that needs a copy.
enum class PointerKind { host, device };
PointerKind pointer_kind(const void* p);

// Raw device allocations, owned by an RAII wrapper in plan.cpp. Throw TooLarge / DeviceError.
void* allocate(std::size_t bytes, const char* what);
void release(void* p) noexcept;
void upload(void* dst, const void* src, std::size_t bytes);
void download(void* dst, const void* src, std::size_t bytes);
void select_device(int device);
// Theoretical memory bandwidth of `device` from its memory clock and bus width (GB/s, 2 transfers per
// clock); 0 when the device cannot be queried.
double peak_memory_gbs(int device);

// y = alpha * t + beta * y over n elements in one pass on the legacy stream; with beta == 0 y is
// only written (y = alpha * t), so NaN in y does not propagate. t may equal y only when beta == 0.
template <class T>
void axpby(std::int64_t n, T alpha, const T* t, T beta, T* y);

}  // namespace spkit::plan_device
