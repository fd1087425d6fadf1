#pragma once
// Shared machinery of the GPU SpGEMM kernels (bmSparse pipeline, cuSPARSE, CSR hash): a stream-ordered
// pool allocator (every kernel, cuSPARSE included, allocates its temporaries and C from the same pool,
// inside the product's stages), the stage boundaries (stage_marks.hpp), and the registration functions.
// Everything is enqueued on the kernel's stream (SpgemmOptions::stream; the legacy stream when null).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_common.cuh"
#include "spgemm/stage_marks.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit::cuda {

// The device's private memory pool for SpGEMM temporaries: keeps freed memory (release threshold
// "never") so that repeated products reuse it instead of re-mapping; trimmed by trim_spgemm_pool()
// at the end of a product unless the caller keeps it for the next one (SpgemmOptions::keep_device_pool).
cudaMemPool_t spgemm_pool(int device);
void trim_spgemm_pool(int device, cudaStream_t stream);  // waits for `stream` first
void release_spgemm_pool(const SpgemmOptions& o, cudaStream_t stream);  // trims unless o.keep_device_pool
void* pool_malloc(std::size_t bytes, const char* what, cudaStream_t stream);  // TooLarge when out of memory
void pool_free(void* p, cudaStream_t stream) noexcept;
// Throws TooLarge (naming `what` and the bytes) unless `bytes` fit in the current device's free memory
// plus what the pool holds unused, with 5% headroom.
void check_spgemm_fits(std::uint64_t bytes, const std::string& what);
// Whether bytes fit the device memory that check_spgemm_fits allows (for optional buffers).
bool fits_spgemm_device(std::uint64_t bytes);

// RAII array of n T from the pool, allocated and freed in the order of `stream`.
template <class T>
class PoolBuffer {
 public:
  PoolBuffer() = default;
  PoolBuffer(std::size_t n, const char* what, cudaStream_t stream) : n_(n), stream_(stream) {
    if (n_ > 0) p_ = static_cast<T*>(pool_malloc(n_ * sizeof(T), what, stream_));
  }
  PoolBuffer(const PoolBuffer&) = delete;
  PoolBuffer& operator=(const PoolBuffer&) = delete;
  PoolBuffer(PoolBuffer&& o) noexcept : p_(o.p_), n_(o.n_), stream_(o.stream_) { o.p_ = nullptr, o.n_ = 0; }
  PoolBuffer& operator=(PoolBuffer&& o) noexcept {
    if (this != &o) {
      pool_free(p_, stream_);
      p_ = o.p_, n_ = o.n_, stream_ = o.stream_;
      o.p_ = nullptr, o.n_ = 0;
    }
    return *this;
  }
  ~PoolBuffer() { pool_free(p_, stream_); }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  // Copies the first n elements to the host once the work before it on the stream is done.
  std::vector<T> to_host(std::size_t n) const {
    std::vector<T> h(n);
    if (n > n_) throw Error("PoolBuffer::to_host: " + std::to_string(n) + " elements from " + std::to_string(n_));
    if (n > 0) {
      SPKIT_CUDA_CHECK(cudaMemcpyAsync(h.data(), p_, n * sizeof(T), cudaMemcpyDeviceToHost, stream_));
      SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return h;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
  cudaStream_t stream_ = nullptr;
};

// Reads one element of a device array once the work before it on `stream` is done (synchronizes):
// sizes the host needs to allocate the next stage.
template <class T>
T read_device_value(const T* p, cudaStream_t stream) {
  T v{};
  SPKIT_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof(T), cudaMemcpyDeviceToHost, stream));
  SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

// Threads per block of the SpGEMM kernels, and the grid for a grid-stride loop over `items` handled
// `threads_per_item` threads at a time (capped at tuning::spgemm::kGridWaves waves of resident blocks).
constexpr int kSpgemmThreads = 256;
inline int spgemm_grid(std::int64_t items, int threads_per_item, int device, int block_threads = kSpgemmThreads) {
  const DeviceProps& p = device_props(device);
  const std::int64_t want = (std::max<std::int64_t>(items, 1) * threads_per_item + block_threads - 1) / block_threads;
  const std::int64_t cap = static_cast<std::int64_t>(p.sm_count) * (p.max_threads_per_sm / block_threads) *
                            tuning::spgemm::kGridWaves;
  return static_cast<int>(std::max<std::int64_t>(1, std::min(want, cap)));
}

// Runs a CUB algorithm twice (size query, then the work) with its temporary storage from the pool;
// f passes `stream` on to CUB.
template <class F>
void cub_run(cudaStream_t stream, const char* what, F&& f) {
  std::size_t bytes = 0;
  check_cuda(f(nullptr, bytes), what);
  PoolBuffer<unsigned char> temp(std::max<std::size_t>(bytes, 1), what, stream);
  check_cuda(f(temp.get(), bytes), what);
}

// A CSR matrix on the device, as the kernels read it.
template <class T>
struct CsrDeviceView {
  const std::int64_t* row_ptr;
  const std::int32_t* col_idx;
  const T* values;
};

// A CSR matrix in buffers of the SpGEMM pool, uploaded on `stream`.
template <class T>
struct PoolCsr {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  PoolBuffer<std::int64_t> row_ptr;
  PoolBuffer<std::int32_t> col_idx;
  PoolBuffer<T> values;
  CsrDeviceView<T> view() const { return {row_ptr.get(), col_idx.get(), values.get()}; }
};

// Copies m into pool buffers on `stream` and waits for the copies (the host arrays are pageable and
// may be freed by the caller as soon as this returns).
template <class T>
PoolCsr<T> upload_csr_to_pool(const Csr<T>& m, cudaStream_t stream) {
  PoolCsr<T> d;
  d.rows = m.rows, d.cols = m.cols, d.nnz = m.nnz();
  d.row_ptr = PoolBuffer<std::int64_t>(m.row_ptr.size(), "CSR row_ptr", stream);
  d.col_idx = PoolBuffer<std::int32_t>(m.col_idx.size(), "CSR col_idx", stream);
  d.values = PoolBuffer<T>(m.values.size(), "CSR values", stream);
  const auto copy = [&](void* dst, const void* src, std::size_t bytes) {
    if (bytes > 0) SPKIT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  };
  copy(d.row_ptr.get(), m.row_ptr.data(), m.row_ptr.size() * sizeof(std::int64_t));
  copy(d.col_idx.get(), m.col_idx.data(), m.col_idx.size() * sizeof(std::int32_t));
  copy(d.values.get(), m.values.data(), m.values.size() * sizeof(T));
  SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream));
  return d;
}

// The shape check of a CSR product kernel: Error naming `kernel` unless a.cols == b.rows.
template <class T>
void require_product_shapes(const Csr<T>& a, const Csr<T>& b, const std::string& kernel) {
  if (a.cols != b.rows)
    throw Error(kernel + ": A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols));
}

// A and B of a CSR product kernel in pool buffers; B uploaded only when it is not A.
template <class T>
struct PoolOperands {
  PoolCsr<T> a, b_own;
  bool same = false;
  const PoolCsr<T>& b() const { return same ? a : b_own; }
};

// Checks that A, B and `row_bytes` per row of A (the kernel's own analysis, named by `what`) fit the device
// (TooLarge naming `kernel`), then uploads them on `stream`.
template <class T>
PoolOperands<T> upload_operands(const Csr<T>& a, const Csr<T>& b, const std::string& kernel, std::uint64_t row_bytes,
                                const std::string& what, cudaStream_t stream) {
  PoolOperands<T> in;
  in.same = &a == &b;
  check_spgemm_fits(static_cast<std::uint64_t>(a.nnz() + (in.same ? 0 : b.nnz())) * (4 + sizeof(T)) +
                        static_cast<std::uint64_t>(a.rows + 1 + (in.same ? 0 : b.rows + 1)) * 8 +
                        static_cast<std::uint64_t>(a.rows) * row_bytes,
                    kernel + ": A, B and " + what);
  in.a = upload_csr_to_pool(a, stream);
  if (!in.same) in.b_own = upload_csr_to_pool(b, stream);
  return in;
}

// C = A B in CSR in buffers of the SpGEMM pool, as a CSR product kernel builds it on its stream.
template <class T>
struct PoolCsrProduct {
  std::int64_t nnz = 0;
  PoolBuffer<std::int64_t> row_ptr;
  PoolBuffer<std::int32_t> col_idx;
  PoolBuffer<T> values;
  // C (rows x cols) on the host once the work on the stream is done; exact zeros still in.
  Csr<T> to_host(std::int64_t rows, std::int64_t cols) const {
    Csr<T> h;
    h.rows = rows, h.cols = cols;
    h.row_ptr = row_ptr.to_host(static_cast<std::size_t>(rows) + 1);
    h.col_idx = col_idx.to_host(static_cast<std::size_t>(nnz));
    h.values = values.to_host(static_cast<std::size_t>(nnz));
    return h;
  }
};

// Index r in [0, n) with offsets[r] <= x < offsets[r + 1] (offsets non-decreasing, n + 1 of them, x < offsets[n]).
__device__ __forceinline__ std::int64_t segment_of(const std::int64_t* offsets, std::int64_t n, std::int64_t x) {
  std::int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (offsets[mid] <= x) lo = mid; else hi = mid - 1;
  }
  return lo;
}

// FP16 inputs overflow above 65504: the fp16 kernels refuse such matrices (NotApplicable).
template <class T>
void require_fp16_range(const Csr<T>& m, const char* which, const std::string& kernel);

// Drops exact zeros of a host CSR in place (cuSPARSE and the CSR hash kernel keep structural zeros
// on the device, as CSR SpGEMM libraries do) and sorts columns of rows that are not sorted.
template <class T>
void drop_zeros_and_sort(Csr<T>& c);

// The last mark of a CSR product, before its temporaries are freed (outside the product time): the
// download begins, or, when C is discarded (SpgemmOptions::discard_result), the stages end there.
inline void end_product_stages(const detail::StageMarks& marks, bool discard) {
  if (discard) marks.end(); else marks.host("download", false);
}

// The end of a CSR product kernel, after end_product_stages: C comes to the host (unless discarded: it stays
// on the device, the harness's timed repetitions) with its exact zeros dropped (rows must be sorted), and the
// pool is released. Returns the result with `detail`.
template <class T>
SpgemmResult<T> finish_csr_product(PoolCsrProduct<T>& c, std::int64_t rows, std::int64_t cols, std::string detail,
                                   const detail::StageMarks& marks, const SpgemmOptions& o, cudaStream_t stream) {
  SpgemmResult<T> r;
  r.detail = std::move(detail);
  if (!o.discard_result) {
    r.c = c.to_host(rows, cols);
    marks.host("to CSR", false);
    drop_zeros_and_sort(r.c);  // rows are sorted already: this drops the exact zeros
    marks.end();
  }
  c = PoolCsrProduct<T>();
  release_spgemm_pool(o, stream);
  return r;
}

// Registration (one per file), called by register_cuda_spgemm_kernels().
void register_bmsparse_spgemm_kernels(SpgemmRegistry& reg);
void register_cusparse_spgemm_kernel(SpgemmRegistry& reg);
void register_csr_hash_spgemm_kernel(SpgemmRegistry& reg);
void register_csr_binned_spgemm_kernel(SpgemmRegistry& reg);
void register_csr_dense_blocks_spgemm_kernel(SpgemmRegistry& reg);

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_spgemm_kernels(SpgemmRegistry& reg);
}

