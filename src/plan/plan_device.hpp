#pragma once
// Host-callable device helpers of the Plan API (src/plan/plan_device.cu). Declared without CUDA types so
// plan.cpp compiles in every build; call them only when SPKIT_HAVE_CUDA is defined.
#include <cstddef>
#include <cstdint>

#include "spkit/kernel.hpp"  // Stream

namespace spkit::plan_device {

// Where a pointer lives, as cudaPointerGetAttributes reports it: device (or managed) memory that a
// kernel can read directly, or host memory (pageable or pinned) that needs a copy.
enum class PointerKind { host, device };
PointerKind pointer_kind(const void* p);

// Raw device allocations, owned by an RAII wrapper in plan.cpp. Throw TooLarge / DeviceError.
void* allocate(std::size_t bytes, const char* what);
void release(void* p) noexcept;
// Copies enqueued on `stream` (null: the legacy default stream); synchronize() waits for them and
// throws DeviceError for a fault of anything enqueued before.
void upload(void* dst, const void* src, std::size_t bytes, Stream stream);
void download(void* dst, const void* src, std::size_t bytes, Stream stream);
void copy(void* dst, const void* src, std::size_t bytes, Stream stream);  // device to device
// count elements of elem_bytes each, from src (every src_stride elements) to dst (every dst_stride
// elements), host or device on either side (unified addressing): the block apply's column gathers.
void copy_strided(void* dst, std::int64_t dst_stride, const void* src, std::int64_t src_stride,
                  std::size_t elem_bytes, std::int64_t count, Stream stream);
void synchronize(Stream stream);
void select_device(int device);

// A device array owned by a plan (x and y for host-pointer applies, the tuner's vectors).
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(std::size_t bytes, const char* what) : bytes_(bytes) {
    if (bytes > 0) p_ = allocate(bytes, what);
  }
  DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr, o.bytes_ = 0; }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      release(p_);
      p_ = o.p_, bytes_ = o.bytes_;
      o.p_ = nullptr, o.bytes_ = 0;
    }
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { release(p_); }
  template <class T>
  T* as() const { return static_cast<T*>(p_); }
  bool empty() const { return p_ == nullptr; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace spkit::plan_device
