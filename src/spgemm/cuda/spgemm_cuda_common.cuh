#pragma once
// Shared machinery of the GPU SpGEMM kernels (bmSparse pipeline, cuSPARSE, CSR hash): a stream-ordered
// pool allocator (every kernel, cuSPARSE included, allocates its temporaries and C from the same pool,
// inside the timed region), per-stage CUDA-event timing with medians, and the registration functions.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_common.cuh"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::cuda {

// The device's private memory pool for SpGEMM temporaries: keeps freed memory (release threshold
// "never") so that repeated products reuse it instead of re-mapping; trimmed by trim_spgemm_pool().
cudaMemPool_t spgemm_pool(int device);
void trim_spgemm_pool(int device);
void* pool_malloc(std::size_t bytes, const char* what);  // on the legacy stream; TooLarge when out of memory
void pool_free(void* p) noexcept;
// Throws TooLarge (naming `what` and the bytes) unless `bytes` fit in the current device's free memory
// plus what the pool holds unused, with 5% headroom.
void check_spgemm_fits(std::uint64_t bytes, const std::string& what);

// RAII array of n T from the pool (stream-ordered on the legacy stream).
template <class T>
class PoolBuffer {
 public:
  PoolBuffer() = default;
  explicit PoolBuffer(std::size_t n, const char* what) : n_(n) {
    if (n_ > 0) p_ = static_cast<T*>(pool_malloc(n_ * sizeof(T), what));
  }
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  PoolBuffer(PoolBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  PoolBuffer& operator=(PoolBuffer&& o) noexcept {
    if (this != &o) {
      pool_free(p_);
      p_ = o.p_, n_ = o.n_;
      o.p_ = nullptr, o.n_ = 0;
    }
    return *this;
  }
  ~PoolBuffer() { pool_free(p_); }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::vector<T> to_host(std::size_t n) const {
    std::vector<T> h(n);
    if (n > n_) throw Error("PoolBuffer::to_host: " + std::to_string(n) + " elements from " + std::to_string(n_));
    if (n > 0) SPKIT_CUDA_CHECK(cudaMemcpy(h.data(), p_, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// Reads one element of a device array (synchronizes): sizes the host needs to allocate the next stage.
template <class T>
T read_device_value(const T* p) {
  T v{};
  SPKIT_CUDA_CHECK(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// Threads per block of the SpGEMM kernels, and the grid for a grid-stride loop over `items` handled
// `threads_per_item` threads at a time (capped at a few waves of resident blocks).
constexpr int kSpgemmThreads = 256;
inline int spgemm_grid(std::int64_t items, int threads_per_item, int device, int block_threads = kSpgemmThreads) {
  const DeviceProps& p = device_props(device);
  const std::int64_t want = (std::max<std::int64_t>(items, 1) * threads_per_item + block_threads - 1) / block_threads;
  const std::int64_t cap = static_cast<std::int64_t>(p.sm_count) * (p.max_threads_per_sm / block_threads) * 4;
  return static_cast<int>(std::max<std::int64_t>(1, std::min(want, cap)));
}

// Runs a CUB algorithm twice (size query, then the work) with its temporary storage from the pool.
template <class F>
void cub_run(const char* what, F&& f) {
  std::size_t bytes = 0;
  check_cuda(f(nullptr, bytes), what);
  PoolBuffer<unsigned char> temp(std::max<std::size_t>(bytes, 1), what);
  check_cuda(f(temp.get(), bytes), what);
}

// Per-stage timing of a multi-stage product on the legacy stream. Stages are contiguous: each mark()
// ends the current stage and starts the next, so the stage times add up to the total (allocations and
// host round trips between kernels included: the events are timestamped when the GPU reaches them).
class StageTimer {
 public:
  explicit StageTimer(std::vector<std::string> names);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;
  void start();           // before the first stage
  void mark();            // end of the current stage
  void finish(bool keep);  // after the last stage: synchronizes; keep = a timed (not warm-up) run
  // Stage medians (in_total = true) and each kept run's total, appended to `stages` / `total_ms`.
  void report(std::vector<SpgemmStage>& stages, std::vector<double>& total_ms) const;

 private:
  std::vector<std::string> names_;
  std::vector<cudaEvent_t> events_;
  std::size_t next_ = 0;
  std::vector<std::vector<double>> stage_ms_;  // [stage][kept run]
  std::vector<double> total_ms_;
};

// A host-side stage (conversion, upload, download, to CSR), timed with a steady clock.
template <class F>
double host_ms(F&& f);

// FP16 inputs overflow above 65504: the fp16 kernels refuse such matrices (NotApplicable).
template <class T>
void require_fp16_range(const Csr<T>& m, const char* which, const std::string& kernel);

// Drops exact zeros of a host CSR in place (cuSPARSE and the CSR hash kernel keep structural zeros
// on the device, as CSR SpGEMM libraries do) and sorts columns of rows that are not sorted.
template <class T>
void drop_zeros_and_sort(Csr<T>& c);

// Registration (one per file), called by register_cuda_spgemm_kernels().
void register_bmsparse_spgemm_kernels(SpgemmRegistry& reg);
void register_cusparse_spgemm_kernel(SpgemmRegistry& reg);
void register_csr_hash_spgemm_kernel(SpgemmRegistry& reg);

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_spgemm_kernels(SpgemmRegistry& reg);
}

#include <chrono>
template <class F>
double spkit::cuda::host_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
