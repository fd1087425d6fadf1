#pragma once
// cuda.csr.binned, expand-sort-compress for hub rows whose rows of B are short (power-law and circuit hubs:
// 16K-117K entries of A, rows of B of a few entries, C's row spread over 100+ column windows), where dense
// windows would each walk the whole row of A. Every product of these rows is written once, in the serial
// order (A's row, then B's row), keyed by (row, column); a stable radix sort by key keeps that order among
// a column's products; each run of equal keys is summed in that order and written at its rank in its row.
// ESC after Bell, Dalton and Olson (SIAM J. Sci. Comput. 2012), for these rows only.
//
// Balance: products are dealt one thread each, whatever the rows of B (circuit's hub row of A meets its
// hub row of B: 117K products from one entry), and runs of more than kLongRun products (the hub column:
// one entry of C from 117K products) are summed by a warp in a fixed order instead of one thread. Runs up
// to kLongRun add in the serial Gustavson order; longer ones in lane-strided partial sums combined by a
// fixed shuffle tree. Either way C is the same bits on every run.
#include <cub/cub.cuh>

#include <string>

#include "spkit/error.hpp"

#include "spgemm/cuda/csr_binned_rows.cuh"

namespace spkit::cuda::binned {

constexpr std::int64_t kLongRun = 256;

// Per expanded entry k (entries of the expanded rows, concatenated in row order): its entry of A, the
// windowed-row index of its row, and its products (entry E: 0, for the exclusive scan).
template <class T>
__global__ void expanded_entries_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* entry_offsets,
                                        CsrDeviceView<T> a, CsrDeviceView<T> b, std::int64_t* entry_of,
                                        std::int64_t* row_of, std::int64_t* products) {
  const std::int64_t count = entry_offsets[n];
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; k <= count;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (k == count) {
      products[k] = 0;
      continue;
    }
    const std::int64_t r = segment_of(entry_offsets, n, k);
    const std::int64_t e = a.row_ptr[rows[r]] + (k - entry_offsets[r]);
    const std::int32_t j = a.col_idx[e];
    entry_of[k] = e, row_of[k] = r;
    products[k] = b.row_ptr[j + 1] - b.row_ptr[j];
  }
}

// One thread per product p: key (row << col_bits | column), value a(i, j) b(j, column), written at p
// (the serial order; coalesced).
template <class T, class Key>
__global__ void expand_products_kernel(std::int64_t entries, const std::int64_t* product_offsets,
                                       const std::int64_t* entry_of, const std::int64_t* row_of, CsrDeviceView<T> a,
                                       CsrDeviceView<T> b, int col_bits, Key* keys, T* vals) {
  const std::int64_t count = product_offsets[entries];
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p < count;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = segment_of(product_offsets, entries, p);
    const std::int64_t e = entry_of[k];
    const std::int64_t q = b.row_ptr[a.col_idx[e]] + (p - product_offsets[k]);
    keys[p] = (static_cast<Key>(row_of[k]) << col_bits) | static_cast<Key>(b.col_idx[q]);
    vals[p] = a.values[e] * b.values[q];
  }
}

// row_offsets[r] = the first product of windowed row r (r = 0 ... n).
__global__ void expanded_row_offsets_kernel(std::int64_t n, const std::int64_t* entry_offsets,
                                            const std::int64_t* product_offsets, std::int64_t* row_offsets) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r <= n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    row_offsets[r] = product_offsets[entry_offsets[r]];
}

// heads[p] = 1 where a run of equal keys starts (p < P), heads[P] = 0: scanned to each run's rank.
template <class Key>
__global__ void run_heads_kernel(const Key* keys, std::int64_t products, std::int64_t* heads) {
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p <= products;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    heads[p] = p < products && (p == 0 || keys[p] != keys[p - 1]);
}

// run_start[rank] = the first product of each run; run_start[runs] = P.
__global__ void run_starts_kernel(const std::int64_t* run_rank, std::int64_t products, std::int64_t* run_start) {
  for (std::int64_t p = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; p <= products;
       p += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (p == products || run_rank[p + 1] != run_rank[p]) run_start[run_rank[p]] = p;
}

// Symbolic: row_nnz of the expanded rows (the windows skip these rows: they have none).
__global__ void expanded_row_nnz_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* entry_offsets,
                                        const std::int64_t* row_offsets, const std::int64_t* run_rank,
                                        std::int64_t* row_nnz) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (entry_offsets[r + 1] > entry_offsets[r])
      row_nnz[rows[r]] = run_rank[row_offsets[r + 1]] - run_rank[row_offsets[r]];
}

// Where run `run` (first product p, key k) goes in C.
template <class Key>
__device__ __forceinline__ std::int64_t run_destination(Key k, std::int64_t run, int col_bits, const std::int64_t* rows,
                                                        const std::int64_t* row_offsets, const std::int64_t* run_rank,
                                                        const std::int64_t* c_row_ptr) {
  const auto r = static_cast<std::int64_t>(k >> col_bits);
  return c_row_ptr[rows[r]] + (run - run_rank[row_offsets[r]]);
}

// Numeric: one thread per run of at most kLongRun products, summed in order; longer runs are listed for
// long_runs_kernel.
template <class T, class Key>
__global__ void expanded_runs_kernel(const std::int64_t* rows, const std::int64_t* row_offsets,
                                     const std::int64_t* run_rank, const std::int64_t* run_start, std::int64_t products,
                                     const Key* keys, const T* vals, int col_bits, const std::int64_t* c_row_ptr,
                                     std::int32_t* c_col, T* c_val, std::int64_t* long_runs,
                                     unsigned long long* long_count) {
  const std::int64_t runs = run_rank[products];
  const Key col_mask = (Key{1} << col_bits) - 1;
  for (std::int64_t run = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; run < runs;
       run += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t s = run_start[run], e = run_start[run + 1];
    if (e - s > kLongRun) {
      long_runs[atomicAdd(long_count, 1ull)] = run;
      continue;
    }
    T sum = vals[s];
    for (std::int64_t q = s + 1; q < e; ++q) sum += vals[q];
    const Key k = keys[s];
    const std::int64_t out = run_destination(k, run, col_bits, rows, row_offsets, run_rank, c_row_ptr);
    c_col[out] = static_cast<std::int32_t>(k & col_mask), c_val[out] = sum;
  }
}

// One warp per listed long run: lane l sums products l, l + 32, ... in order, then a fixed xor tree.
template <class T, class Key>
__global__ void long_runs_kernel(const std::int64_t* rows, const std::int64_t* row_offsets,
                                 const std::int64_t* run_rank, const std::int64_t* run_start, const Key* keys,
                                 const T* vals, int col_bits, const std::int64_t* long_runs, const unsigned long long* long_count,
                                 const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val) {
  const int lane = threadIdx.x & 31;
  const auto n = static_cast<std::int64_t>(*long_count);
  for (std::int64_t w = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32; w < n;
       w += static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32)) {
    const std::int64_t run = long_runs[w];
    const std::int64_t s = run_start[run], e = run_start[run + 1];
    T sum{};
    for (std::int64_t q = s + lane; q < e; q += 32) sum += vals[q];
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) {
      const Key k = keys[s];
      const std::int64_t out = run_destination(k, run, col_bits, rows, row_offsets, run_rank, c_row_ptr);
      c_col[out] = static_cast<std::int32_t>(k & ((Key{1} << col_bits) - 1)), c_val[out] = sum;
    }
  }
}

// The expanded products of the hub rows, sorted, between the symbolic and the numeric pass.
template <class T, class Key>
struct ExpandedRows {
  std::int64_t products = 0;
  int col_bits = 0;
  PoolBuffer<std::int64_t> row_offsets;  // per windowed row, n + 1
  PoolBuffer<Key> keys;                  // sorted
  PoolBuffer<T> vals;
  PoolBuffer<std::int64_t> run_rank;     // products + 1
  PoolBuffer<std::int64_t> run_start;    // runs + 1 (allocated products + 1)
};

// Expands and sorts the products of the windowed rows with entries to expand (entry_offsets scanned over
// the n windowed rows, `entries` in all); writes their row_nnz.
template <class T, class Key>
ExpandedRows<T, Key> expand_rows(const std::int64_t* rows, std::int64_t n, const std::int64_t* entry_offsets,
                                 std::int64_t entries, int col_bits, const CsrDeviceView<T>& a,
                                 const CsrDeviceView<T>& b, std::int64_t* row_nnz, int device, cudaStream_t stream) {
  ExpandedRows<T, Key> x;
  x.col_bits = col_bits;
  const int key_bits = col_bits + bit_width(static_cast<std::uint64_t>(n));
  const auto ne1 = static_cast<std::size_t>(entries) + 1;
  PoolBuffer<std::int64_t> entry_of(ne1, "expanded entries of A", stream);
  PoolBuffer<std::int64_t> row_of(ne1, "rows of expanded entries", stream);
  PoolBuffer<std::int64_t> entry_products(ne1, "products per expanded entry", stream);
  PoolBuffer<std::int64_t> product_offsets(ne1, "product offsets of expanded entries", stream);
  expanded_entries_kernel<T><<<spgemm_grid(entries + 1, 1, device), kSpgemmThreads, 0, stream>>>(
      rows, n, entry_offsets, a, b, entry_of.get(), row_of.get(), entry_products.get());
  SPKIT_LAUNCH_CHECK("expanded_entries_kernel");
  cub_run(stream, "scan of expanded products", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, entry_products.get(), product_offsets.get(), entries + 1, stream);
  });
  x.row_offsets = PoolBuffer<std::int64_t>(static_cast<std::size_t>(n) + 1, "hub-row product offsets", stream);
  expanded_row_offsets_kernel<<<spgemm_grid(n + 1, 1, device), kSpgemmThreads, 0, stream>>>(
      n, entry_offsets, product_offsets.get(), x.row_offsets.get());
  SPKIT_LAUNCH_CHECK("expanded_row_offsets_kernel");
  x.products = read_device_value(product_offsets.get() + entries, stream);
  const auto np = static_cast<std::size_t>(x.products);
  check_spgemm_fits(static_cast<std::uint64_t>(np) * (2 * (sizeof(Key) + sizeof(T)) + 3 * 8),
                    "cuda.csr.binned: the " + std::to_string(x.products) + " expanded products of hub rows");
  PoolBuffer<Key> keys_in(np, "expanded keys", stream);
  PoolBuffer<T> vals_in(np, "expanded products", stream);
  if (x.products > 0) {
    expand_products_kernel<T, Key><<<spgemm_grid(x.products, 1, device), kSpgemmThreads, 0, stream>>>(
        entries, product_offsets.get(), entry_of.get(), row_of.get(), a, b, col_bits, keys_in.get(), vals_in.get());
    SPKIT_LAUNCH_CHECK("expand_products_kernel");
  }
  x.keys = PoolBuffer<Key>(np, "sorted expanded keys", stream);
  x.vals = PoolBuffer<T>(np, "sorted expanded products", stream);
  if (x.products > 0)
    cub_run(stream, "stable sort of expanded products", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys_in.get(), x.keys.get(), vals_in.get(), x.vals.get(),
                                             x.products, 0, key_bits, stream);
    });
  keys_in = PoolBuffer<Key>(), vals_in = PoolBuffer<T>();
  PoolBuffer<std::int64_t> heads(np + 1, "run heads of expanded products", stream);
  run_heads_kernel<Key><<<spgemm_grid(x.products + 1, 1, device), kSpgemmThreads, 0, stream>>>(
      x.keys.get(), x.products, heads.get());
  SPKIT_LAUNCH_CHECK("run_heads_kernel");
  x.run_rank = PoolBuffer<std::int64_t>(np + 1, "run ranks of expanded products", stream);
  cub_run(stream, "scan of run heads", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, heads.get(), x.run_rank.get(), x.products + 1, stream);
  });
  heads = PoolBuffer<std::int64_t>();
  x.run_start = PoolBuffer<std::int64_t>(np + 1, "run starts of expanded products", stream);
  run_starts_kernel<<<spgemm_grid(x.products + 1, 1, device), kSpgemmThreads, 0, stream>>>(
      x.run_rank.get(), x.products, x.run_start.get());
  SPKIT_LAUNCH_CHECK("run_starts_kernel");
  expanded_row_nnz_kernel<<<spgemm_grid(n, 1, device), kSpgemmThreads, 0, stream>>>(
      rows, n, entry_offsets, x.row_offsets.get(), x.run_rank.get(), row_nnz);
  SPKIT_LAUNCH_CHECK("expanded_row_nnz_kernel");
  return x;
}

template <class T, class Key>
void expanded_rows_numeric(const ExpandedRows<T, Key>& x, const std::int64_t* rows, const std::int64_t* c_row_ptr,
                           std::int32_t* c_col, T* c_val, int device, cudaStream_t stream) {
  if (x.products == 0) return;
  const auto np = static_cast<std::size_t>(x.products);
  PoolBuffer<std::int64_t> long_runs(np / (kLongRun + 1) + 1, "long runs of expanded products", stream);
  PoolBuffer<unsigned long long> long_count(1, "long runs", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(long_count.get(), 0, sizeof(unsigned long long), stream));
  expanded_runs_kernel<T, Key><<<spgemm_grid(x.products, 1, device), kSpgemmThreads, 0, stream>>>(
      rows, x.row_offsets.get(), x.run_rank.get(), x.run_start.get(), x.products, x.keys.get(), x.vals.get(),
      x.col_bits, c_row_ptr, c_col, c_val, long_runs.get(), long_count.get());
  SPKIT_LAUNCH_CHECK("expanded_runs_kernel");
  long_runs_kernel<T, Key><<<spgemm_grid(x.products / (kLongRun + 1) + 1, 32, device), kSpgemmThreads, 0, stream>>>(
      rows, x.row_offsets.get(), x.run_rank.get(), x.run_start.get(), x.keys.get(), x.vals.get(), x.col_bits,
      long_runs.get(), long_count.get(), c_row_ptr, c_col, c_val);
  SPKIT_LAUNCH_CHECK("long_runs_kernel");
}

}  // namespace spkit::cuda::binned
