// cuda.csr.hash: row-wise Gustavson SpGEMM on CSR with hash accumulators, for matrices poor in 8x8
// blocks (road, power-law, random) where the bmSparse pipeline pays for mostly empty blocks.
//
//   count      products per row of C (sum of B's row lengths over the row of A); rows with at most
//              kShortProducts products go to a warp each with a 512-slot table in shared memory, the
//              others to a thread block each with a 2048-slot shared table, or, when the row may hold
//              more than 1024 distinct columns, a table of its own in global memory (sized to twice
//              min(products, columns of B), rounded to a power of two)
//   symbolic   distinct columns per row (insertions by atomicCAS); scan to C's row pointers
//   numeric    the same walk accumulating values (atomicAdd into the table), entries written unsorted
//   sort       columns sorted per row (cub segmented sort)
// Like cusparseSpGEMM it keeps entries that cancel to zero on the device; they are dropped on the host.
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <limits>
#include <string>

#include "spgemm/cuda/spgemm_cuda_common.cuh"

namespace spkit::cuda {
namespace {

constexpr int kShortProducts = 256;  // warp rows: at most this many products, so a 512-slot table is half full at most
constexpr int kWarpSlots = 512;
constexpr int kShortWarps = 4;       // warps per block of the short-row kernel (shared: 4 x 512 x (4 + 8) B)
constexpr int kBlockSlots = 2048;    // shared table of the long-row kernel (24 KiB with double values)
constexpr int kLongThreads = 256;

template <class T>
struct CsrView {
  const std::int64_t* row_ptr;
  const std::int32_t* col_idx;
  const T* values;
};

__device__ __forceinline__ unsigned hash_slot(std::int32_t col, unsigned mask) {
  return (static_cast<unsigned>(col) * 2654435761u) & mask;
}

// Inserts col (and adds v in numeric mode); returns 1 when this call created the entry.
template <class T, bool kNumeric>
__device__ __forceinline__ int hash_insert(std::int32_t* keys, T* vals, unsigned mask, std::int32_t col, T v) {
  unsigned h = hash_slot(col, mask);
  for (;;) {
    const std::int32_t k = keys[h];
    if (k == col) {
      if constexpr (kNumeric) atomicAdd(&vals[h], v);
      return 0;
    }
    if (k == -1) {
      const std::int32_t old = atomicCAS(&keys[h], -1, col);
      if (old == -1 || old == col) {
        if constexpr (kNumeric) atomicAdd(&vals[h], v);
        return old == -1;
      }
    }
    h = (h + 1) & mask;
  }
}

__global__ void row_products_kernel(CsrView<float> a_pattern, const std::int64_t* b_row_ptr, std::int64_t rows,
                                    std::int64_t* products) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32; i < rows;
       i += warps) {
    std::int64_t s = 0;
    for (std::int64_t p = a_pattern.row_ptr[i] + lane; p < a_pattern.row_ptr[i + 1]; p += 32) {
      const std::int32_t j = a_pattern.col_idx[p];
      s += b_row_ptr[j + 1] - b_row_ptr[j];
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) products[i] = s;
  }
}

struct IsShort {
  const std::int64_t* products;
  __device__ bool operator()(std::int64_t i) const { return products[i] <= kShortProducts; }
};
struct IsLong {
  const std::int64_t* products;
  __device__ bool operator()(std::int64_t i) const { return products[i] > kShortProducts; }
};

__device__ __forceinline__ std::int64_t table_size_for(std::int64_t products, std::int64_t b_cols) {
  const std::int64_t distinct = products < b_cols ? products : b_cols;
  std::int64_t s = 2;
  while (s < 2 * distinct) s *= 2;
  return s;
}

// Global table slots of each long row (0 when its table fits in shared memory).
__global__ void global_table_sizes_kernel(const std::int64_t* long_rows, std::int64_t n, const std::int64_t* products,
                                          std::int64_t b_cols, std::int64_t* sizes) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r <= n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (r == n) { sizes[r] = 0; continue; }
    const std::int64_t s = table_size_for(products[long_rows[r]], b_cols);
    sizes[r] = s > kBlockSlots ? s : 0;
  }
}

// One warp per short row. Numeric mode writes the row's entries (hash order) at c_row_ptr[i].
template <class T, bool kNumeric>
__global__ void __launch_bounds__(kShortWarps * 32)
    short_rows_kernel(const std::int64_t* rows, std::int64_t n, CsrView<T> a, CsrView<T> b, std::int64_t* c_count,
                      const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val) {
  __shared__ std::int32_t skeys[kShortWarps][kWarpSlots];
  __shared__ T svals[kNumeric ? kShortWarps : 1][kNumeric ? kWarpSlots : 1];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  std::int32_t* keys = skeys[warp];
  T* vals = kNumeric ? svals[warp] : nullptr;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * kShortWarps;
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(kShortWarps) + warp; r < n; r += warps) {
    const std::int64_t i = rows[r];
    for (int s = lane; s < kWarpSlots; s += 32) {
      keys[s] = -1;
      if constexpr (kNumeric) vals[s] = T(0);
    }
    __syncwarp();
    int created = 0;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      const T av = a.values[p];
      for (std::int64_t q = b.row_ptr[j] + lane; q < b.row_ptr[j + 1]; q += 32)
        created += hash_insert<T, kNumeric>(keys, vals, kWarpSlots - 1, b.col_idx[q], av * b.values[q]);
    }
    __syncwarp();
    if constexpr (!kNumeric) {
      for (int o = 16; o > 0; o /= 2) created += __shfl_down_sync(0xffffffffu, created, o);
      if (lane == 0) c_count[i] = created;
    } else {
      std::int64_t out = c_row_ptr[i];
      for (int s0 = 0; s0 < kWarpSlots; s0 += 32) {
        const std::int32_t k = keys[s0 + lane];
        const unsigned present = __ballot_sync(0xffffffffu, k != -1);
        if (k != -1) {
          const std::int64_t at = out + __popc(present & ((1u << lane) - 1u));
          c_col[at] = k;
          c_val[at] = vals[s0 + lane];
        }
        out += __popc(present);
      }
    }
    __syncwarp();
  }
}

// One thread block per long row; its table in shared memory or, when larger, at global_keys + offset.
template <class T, bool kNumeric>
__global__ void __launch_bounds__(kLongThreads)
    long_rows_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* products, std::int64_t b_cols,
                     const std::int64_t* global_offsets, std::int32_t* global_keys, T* global_vals, CsrView<T> a,
                     CsrView<T> b, std::int64_t* c_count, const std::int64_t* c_row_ptr, std::int32_t* c_col,
                     T* c_val) {
  __shared__ std::int32_t skeys[kBlockSlots];
  __shared__ T svals[kNumeric ? kBlockSlots : 1];
  __shared__ unsigned long long counter;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (std::int64_t r = blockIdx.x; r < n; r += gridDim.x) {
    const std::int64_t i = rows[r];
    const std::int64_t size = table_size_for(products[i], b_cols);
    const bool global = size > kBlockSlots;
    std::int32_t* keys = global ? global_keys + global_offsets[r] : skeys;
    T* vals = kNumeric ? (global ? global_vals + global_offsets[r] : svals) : nullptr;
    const std::int64_t slots = global ? size : kBlockSlots;
    for (std::int64_t s = threadIdx.x; s < slots; s += blockDim.x) {
      keys[s] = -1;
      if constexpr (kNumeric) vals[s] = T(0);
    }
    if (threadIdx.x == 0) counter = 0;
    __syncthreads();
    int created = 0;
    for (std::int64_t p = a.row_ptr[i] + warp; p < a.row_ptr[i + 1]; p += warps) {
      const std::int32_t j = a.col_idx[p];
      const T av = a.values[p];
      for (std::int64_t q = b.row_ptr[j] + lane; q < b.row_ptr[j + 1]; q += 32)
        created += hash_insert<T, kNumeric>(keys, vals, static_cast<unsigned>(slots - 1), b.col_idx[q],
                                            av * b.values[q]);
    }
    __syncthreads();
    if constexpr (!kNumeric) {
      if (created) atomicAdd(&counter, static_cast<unsigned long long>(created));
      __syncthreads();
      if (threadIdx.x == 0) c_count[i] = static_cast<std::int64_t>(counter);
    } else {
      const std::int64_t out = c_row_ptr[i];
      for (std::int64_t s = threadIdx.x; s < slots; s += blockDim.x) {
        const std::int32_t k = keys[s];
        if (k != -1) {
          const std::int64_t at = out + static_cast<std::int64_t>(atomicAdd(&counter, 1ull));
          c_col[at] = k;
          c_val[at] = vals[s];
        }
      }
    }
    __syncthreads();
  }
}

template <class T>
struct DeviceCsr {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<std::int64_t> row_ptr;
  DeviceBuffer<std::int32_t> col_idx;
  DeviceBuffer<T> values;
  CsrView<T> view() const { return {row_ptr.get(), col_idx.get(), values.get()}; }
};

template <class T>
DeviceCsr<T> upload_csr(const Csr<T>& m) {
  DeviceCsr<T> d;
  d.rows = m.rows, d.cols = m.cols, d.nnz = m.nnz();
  d.row_ptr = DeviceBuffer<std::int64_t>(m.row_ptr, "CSR row_ptr");
  d.col_idx = DeviceBuffer<std::int32_t>(m.col_idx, "CSR col_idx");
  d.values = DeviceBuffer<T>(m.values, "CSR values");
  return d;
}

template <class T>
struct CsrProduct {
  std::int64_t nnz = 0;
  PoolBuffer<std::int64_t> row_ptr;
  PoolBuffer<std::int32_t> col_idx;
  PoolBuffer<T> values;
};

template <class T>
CsrProduct<T> hash_product(const DeviceCsr<T>& a, const DeviceCsr<T>& b, StageTimer& timer, int device) {
  const std::int64_t rows = a.rows;
  // count
  PoolBuffer<std::int64_t> products(static_cast<std::size_t>(rows), "row products");
  row_products_kernel<<<spgemm_grid(rows, 32, device), kSpgemmThreads>>>(
      CsrView<float>{a.row_ptr.get(), a.col_idx.get(), nullptr}, b.row_ptr.get(), rows, products.get());
  SPKIT_LAUNCH_CHECK("row_products_kernel");
  PoolBuffer<std::int64_t> short_rows(static_cast<std::size_t>(rows), "short rows"),
      long_rows(static_cast<std::size_t>(rows), "long rows"), counts(2, "row bin sizes");
  SPKIT_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(std::int64_t)));
  cub_run("select short rows", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceSelect::If(tmp, bytes, thrust::counting_iterator<std::int64_t>(0), short_rows.get(), counts.get(),
                                 rows, IsShort{products.get()});
  });
  cub_run("select long rows", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceSelect::If(tmp, bytes, thrust::counting_iterator<std::int64_t>(0), long_rows.get(),
                                 counts.get() + 1, rows, IsLong{products.get()});
  });
  const std::vector<std::int64_t> bins = counts.to_host(2);
  const std::int64_t n_short = bins[0], n_long = bins[1];
  PoolBuffer<std::int64_t> table_offsets(static_cast<std::size_t>(n_long) + 1, "global hash table offsets");
  PoolBuffer<std::int32_t> global_keys;
  PoolBuffer<T> global_vals;
  if (n_long > 0) {
    PoolBuffer<std::int64_t> sizes(static_cast<std::size_t>(n_long) + 1, "global hash table sizes");
    global_table_sizes_kernel<<<spgemm_grid(n_long + 1, 1, device), kSpgemmThreads>>>(long_rows.get(), n_long,
                                                                                     products.get(), b.cols, sizes.get());
    SPKIT_LAUNCH_CHECK("global_table_sizes_kernel");
    cub_run("scan of global table sizes", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(tmp, bytes, sizes.get(), table_offsets.get(), n_long + 1);
    });
    const std::int64_t slots = read_device_value(table_offsets.get() + n_long);
    if (slots > 0) {
      check_spgemm_fits(static_cast<std::uint64_t>(slots) * (4 + sizeof(T)),
                        "cuda.csr.hash: global hash tables of " + std::to_string(slots) + " slots");
      global_keys = PoolBuffer<std::int32_t>(static_cast<std::size_t>(slots), "global hash table keys");
      global_vals = PoolBuffer<T>(static_cast<std::size_t>(slots), "global hash table values");
    }
  }
  timer.mark();
  // symbolic
  PoolBuffer<std::int64_t> row_nnz(static_cast<std::size_t>(rows) + 1, "row lengths of C");
  SPKIT_CUDA_CHECK(cudaMemsetAsync(row_nnz.get() + rows, 0, sizeof(std::int64_t)));
  const int short_grid = spgemm_grid(n_short, 32, device, kShortWarps * 32);
  if (n_short > 0) {
    short_rows_kernel<T, false><<<short_grid, kShortWarps * 32>>>(short_rows.get(), n_short, a.view(), b.view(),
                                                                 row_nnz.get(), nullptr, nullptr, nullptr);
    SPKIT_LAUNCH_CHECK("short_rows_kernel<symbolic>");
  }
  const int long_grid = static_cast<int>(std::min<std::int64_t>(std::max<std::int64_t>(n_long, 1),
                                                                device_props(device).sm_count * 8));
  if (n_long > 0) {
    long_rows_kernel<T, false><<<long_grid, kLongThreads>>>(long_rows.get(), n_long, products.get(), b.cols,
                                                            table_offsets.get(), global_keys.get(), global_vals.get(),
                                                            a.view(), b.view(), row_nnz.get(), nullptr, nullptr,
                                                            nullptr);
    SPKIT_LAUNCH_CHECK("long_rows_kernel<symbolic>");
  }
  CsrProduct<T> c;
  c.row_ptr = PoolBuffer<std::int64_t>(static_cast<std::size_t>(rows) + 1, "C row_ptr");
  cub_run("scan of row lengths", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, row_nnz.get(), c.row_ptr.get(), rows + 1);
  });
  c.nnz = read_device_value(c.row_ptr.get() + rows);
  timer.mark();
  // numeric
  check_spgemm_fits(static_cast<std::uint64_t>(c.nnz) * 2 * (4 + sizeof(T)), "cuda.csr.hash: C with " +
                                                                                 std::to_string(c.nnz) + " non-zeros");
  c.col_idx = PoolBuffer<std::int32_t>(static_cast<std::size_t>(c.nnz), "C col_idx");
  c.values = PoolBuffer<T>(static_cast<std::size_t>(c.nnz), "C values");
  if (n_short > 0) {
    short_rows_kernel<T, true><<<short_grid, kShortWarps * 32>>>(short_rows.get(), n_short, a.view(), b.view(),
                                                                nullptr, c.row_ptr.get(), c.col_idx.get(),
                                                                c.values.get());
    SPKIT_LAUNCH_CHECK("short_rows_kernel<numeric>");
  }
  if (n_long > 0) {
    long_rows_kernel<T, true><<<long_grid, kLongThreads>>>(long_rows.get(), n_long, products.get(), b.cols,
                                                           table_offsets.get(), global_keys.get(), global_vals.get(),
                                                           a.view(), b.view(), nullptr, c.row_ptr.get(),
                                                           c.col_idx.get(), c.values.get());
    SPKIT_LAUNCH_CHECK("long_rows_kernel<numeric>");
  }
  timer.mark();
  // sort columns within rows
  if (c.nnz > 0) {
    PoolBuffer<std::int32_t> col_alt(static_cast<std::size_t>(c.nnz), "sorted C col_idx");
    PoolBuffer<T> val_alt(static_cast<std::size_t>(c.nnz), "sorted C values");
    cub::DoubleBuffer<std::int32_t> keys(c.col_idx.get(), col_alt.get());
    cub::DoubleBuffer<T> vals(c.values.get(), val_alt.get());
    cub_run("segmented sort of C's columns", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::SortPairs(tmp, bytes, keys, vals, c.nnz, rows, c.row_ptr.get(),
                                                 c.row_ptr.get() + 1);
    });
    if (keys.selector) std::swap(c.col_idx, col_alt);
    if (vals.selector) std::swap(c.values, val_alt);
  }
  timer.mark();
  return c;
}

template <class T>
SpgemmResult<T> run_csr_hash(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& o) {
  const std::string name = "cuda.csr.hash";
  if (a.cols != b.rows)
    throw Error(name + ": A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols));
  set_device(o.device);
  SpgemmResult<T> r;
  const bool same = &a == &b;
  DeviceCsr<T> da, db;
  const double upload_ms = host_ms([&] {
    da = upload_csr(a);
    if (!same) db = upload_csr(b);
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  });
  const DeviceCsr<T>& dbr = same ? da : db;
  r.stages.push_back({"upload", upload_ms, false});
  StageTimer timer({"count", "symbolic", "numeric", "sort columns"});
  CsrProduct<T> c;
  const int runs = std::max(0, o.warmup) + std::max(1, o.reps);
  for (int run = 0; run < runs; ++run) {
    c = CsrProduct<T>();
    timer.start();
    c = hash_product(da, dbr, timer, o.device);
    timer.finish(run >= std::max(0, o.warmup));
  }
  timer.report(r.stages, r.total_ms);
  Csr<T> hc;
  const double download_ms = host_ms([&] {
    hc.rows = a.rows, hc.cols = b.cols;
    hc.row_ptr = c.row_ptr.to_host(static_cast<std::size_t>(a.rows) + 1);
    hc.col_idx = c.col_idx.to_host(static_cast<std::size_t>(c.nnz));
    hc.values = c.values.to_host(static_cast<std::size_t>(c.nnz));
  });
  const double to_csr_ms = host_ms([&] { drop_zeros_and_sort(hc); });
  r.c = std::move(hc);
  r.stages.push_back({"download", download_ms, false});
  r.stages.push_back({"to CSR", to_csr_ms, false});
  r.detail = "hash accumulators: warp rows <= " + std::to_string(kShortProducts) + " products, block rows above";
  c = CsrProduct<T>();
  trim_spgemm_pool(o.device);
  return r;
}

}  // namespace

void register_csr_hash_spgemm_kernel(SpgemmRegistry& reg) {
  SpgemmKernelInfo k;
  k.name = "cuda.csr.hash";
  k.format = Format::csr;
  k.backend = Backend::cuda;
  k.description = "row-wise CSR SpGEMM with hash accumulators (shared memory, global for long rows), two phases";
  k.run_f32 = [](const Csr<float>& a, const Csr<float>& b, const SpgemmOptions& o) { return run_csr_hash(a, b, o); };
  k.run_f64 = [](const Csr<double>& a, const Csr<double>& b, const SpgemmOptions& o) { return run_csr_hash(a, b, o); };
  reg.add(std::move(k));
}

}  // namespace spkit::cuda
