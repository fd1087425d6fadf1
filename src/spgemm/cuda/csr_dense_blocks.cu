// cuda.csr.dense_blocks: row-wise Gustavson SpGEMM over the dense b x b blocks (b = 2, 3 or 4) that A and B are
// made of, as vector-valued finite-element matrices are when their unknowns are numbered node by node
// (elasticity: 3 per node, every coupling of two nodes a full 3x3 block). Where cuda.csr.binned hashes each of
// C's b*b scalar columns per block, this kernel hashes one key per block of C and reads one block of B (b rows
// of b values, contiguous in CSR) per block product:
//   analysis   the block size: the largest b in {4, 3, 2} for which every row of A and of B is made of aligned
//              full b x b blocks (one pass over the column indices per candidate); none: NotApplicable
//   symbolic   per block row of C, one warp gathers its distinct block columns in a shared hash table sized by
//              its block products (up to 2,048 keys; a row past 3/4 of it is done again in 16,384), sorts
//              them (bitonic) and writes them to a scratch list at the row's bound (its block products, at
//              most B's block columns: ~10 % of C's bytes on meshes)
//   numeric    block rows binned by their count into tiers of 32-4,096 blocks (steps of 1/8): the warp loads
//              its sorted block columns and adds each block product's b x b result at its column's rank
//              (binary search), in A's row order (lanes of one step that meet the same block add in lane
//              order), then writes C's b rows, each in column order.
// The b rows of a block row are contiguous in CSR and equally long, so row i of block row I of A starts at
// row_ptr[b I] + i * (row length); the same holds in B and in C. C is the same bits on every run.
#include <cub/cub.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "spgemm/cuda/spgemm_cuda_common.cuh"

namespace spkit::cuda {
namespace {

constexpr const char* kName = "cuda.csr.dense_blocks";
constexpr unsigned kFull = 0xffffffffu;
constexpr int kSymbolicWarps = 4;
constexpr int kSymbolicSlots = 2048;        // keys per warp in the symbolic pass (8 KB)
constexpr int kSymbolicRetrySlots = 16384;  // the retry of rows past 3/4 of it (64 KB, one warp a block)
constexpr int kMinTableSlots = 64;
constexpr int kMaxTiers = 48;
// Shared memory a numeric block aims at: small enough for several blocks per SM, whole warps otherwise.
constexpr int kNumericBlockBytes = 56 * 1024;

constexpr std::int64_t fill_limit(std::int64_t slots) { return slots / 4 * 3; }

__device__ __forceinline__ unsigned hash_key(std::int32_t key) { return static_cast<unsigned>(key) * 2654435761u; }

// Inserts key into the table of mask + 1 slots (a power of two, never full); true when this call claimed it.
__device__ __forceinline__ bool insert_key(std::int32_t* keys, unsigned mask, std::int32_t key) {
  unsigned h = hash_key(key) & mask;
  for (;;) {
    const std::int32_t k = keys[h];
    if (k == key) return false;
    if (k == -1) {
      const std::int32_t old = atomicCAS(&keys[h], -1, key);
      if (old == -1) return true;
      if (old == key) return false;
    }
    h = (h + 1) & mask;
  }
}

// Table of slots for a row of at most `count` distinct keys: a power of two, load at most 3/4, >= 64.
__host__ __device__ inline int table_slots(std::int64_t count) {
  int s = kMinTableSlots;
  while (s < count || fill_limit(s) < count) s *= 2;
  return s;
}

// Every block row of the matrix is made of aligned full Bs x Bs blocks: clears *ok otherwise.
template <int Bs>
__global__ void dense_block_check_kernel(const std::int64_t* row_ptr, const std::int32_t* col, std::int64_t block_rows,
                                         int* ok) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < block_rows;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (*static_cast<volatile int*>(ok) == 0) return;
    const std::int64_t p0 = row_ptr[Bs * r], len = row_ptr[Bs * r + 1] - p0;
    bool good = len % Bs == 0;
    for (int i = 1; good && i < Bs; ++i) good = row_ptr[Bs * r + i + 1] - row_ptr[Bs * r + i] == len;
    for (std::int64_t t = 0; good && t < len; t += Bs) {
      const std::int32_t c0 = col[p0 + t];
      good = c0 % Bs == 0;
      for (int i = 0; good && i < Bs; ++i)
        for (int j = 0; good && j < Bs; ++j) good = col[p0 + i * len + t + j] == c0 + j;
    }
    if (!good) *ok = 0;
  }
}

// The block products of one block row of A, dealt to the lanes of a warp in A's row order: per step, lane
// takes product q = step * 32 + lane of the current chunk of 32 entries of A. on_entry(t) runs on the lane
// of entry t (t < a_blocks) once per chunk; step(active, src, b_at, b_row_len, u) on every lane: `src` is the
// lane whose entry the product belongs to, u its block in B's block row, whose row 0 starts at b_at and whose
// rows hold b_row_len entries each. step returns true to stop the walk (uniform across the warp).
template <int Bs, class T, class OnEntry, class Step>
__device__ __forceinline__ void walk_block_products(std::int64_t a_begin, std::int64_t a_blocks,
                                                    const CsrDeviceView<T>& a, const CsrDeviceView<T>& b,
                                                    OnEntry&& on_entry, Step&& step) {
  const int lane = threadIdx.x & 31;
  for (std::int64_t c0 = 0; c0 < a_blocks; c0 += 32) {
    const std::int64_t t = c0 + lane;
    std::int64_t b_at = 0, blocks = 0;
    if (t < a_blocks) {
      const std::int64_t k = a.col_idx[a_begin + t * Bs] / Bs;
      b_at = b.row_ptr[Bs * k];
      blocks = (b.row_ptr[Bs * k + 1] - b_at) / Bs;
      on_entry(t);
    }
    std::int64_t incl = blocks;
    for (int o = 1; o < 32; o <<= 1) {
      const std::int64_t v = __shfl_up_sync(kFull, incl, o);
      if (lane >= o) incl += v;
    }
    const std::int64_t total = __shfl_sync(kFull, incl, 31);
    for (std::int64_t q0 = 0; q0 < total; q0 += 32) {
      const std::int64_t q = q0 + lane;
      int src = 0;
      for (int s = 16; s > 0; s >>= 1)
        if (__shfl_sync(kFull, incl, src + s - 1) <= q) src += s;
      const std::int64_t before = __shfl_sync(kFull, incl - blocks, src);
      const std::int64_t src_at = __shfl_sync(kFull, b_at, src);
      const std::int64_t src_blocks = __shfl_sync(kFull, blocks, src);
      if (step(q < total, src, src_at, src_blocks * Bs, q - before)) return;
    }
  }
}

// Sorts keys[0, n) ascending as unsigned (n a power of two; -1 pads sort last), the warp's lanes taking the
// compare-exchanges of each stage.
__device__ void bitonic_sort_keys(std::int32_t* keys, int n) {
  const int lane = threadIdx.x & 31;
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int t = lane; t < n / 2; t += 32) {
        const int x = 2 * t - (t & (j - 1)), y = x + j;
        const unsigned kx = static_cast<unsigned>(keys[x]), ky = static_cast<unsigned>(keys[y]);
        if ((kx > ky) == ((x & k) == 0)) keys[x] = static_cast<std::int32_t>(ky), keys[y] = static_cast<std::int32_t>(kx);
      }
      __syncwarp();
    }
  }
}

// Symbolic: block_count[I] = distinct block columns of block row I of C, row_nnz of its Bs rows, and the
// columns sorted at keys_out[key_offset[I]]. A row whose keys pass 3/4 of kSlots is appended to `overflow`
// instead (done again with a larger table).
template <int Bs, class T, int kSlots>
__global__ void block_rows_symbolic_kernel(const std::int64_t* rows, std::int64_t n, CsrDeviceView<T> a,
                                           CsrDeviceView<T> b, std::int64_t b_block_cols, std::int64_t* block_count,
                                           std::int64_t* row_nnz, const std::int64_t* key_offset,
                                           std::int32_t* keys_out, std::int64_t* overflow,
                                           unsigned long long* overflow_count) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  std::int32_t* keys = reinterpret_cast<std::int32_t*>(smem) + static_cast<std::size_t>(warp) * kSlots;
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(warps) + warp; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * warps) {
    const std::int64_t I = rows ? rows[r] : r;
    const std::int64_t a_begin = a.row_ptr[Bs * I], a_blocks = (a.row_ptr[Bs * I + 1] - a_begin) / Bs;
    const std::int64_t bound = key_offset[I + 1] - key_offset[I];
    const bool limited = bound > fill_limit(kSlots);
    const int slots = limited ? kSlots : table_slots(bound);
    for (int s = lane; s < slots; s += 32) keys[s] = -1;
    __syncwarp();
    std::int64_t fill = 0;
    walk_block_products<Bs>(
        a_begin, a_blocks, a, b, [](std::int64_t) {},
        [&](bool active, int, std::int64_t b_at, std::int64_t, std::int64_t u) {
          const bool claimed = active && insert_key(keys, slots - 1, b.col_idx[b_at + u * Bs] / Bs);
          fill += __popc(__ballot_sync(kFull, claimed));
          return limited && fill > fill_limit(kSlots);
        });
    __syncwarp();
    if (limited && fill > fill_limit(kSlots)) {
      if (lane == 0) overflow[atomicAdd(overflow_count, 1ull)] = I;
      __syncwarp();
      continue;
    }
    // The claimed slots to the front, in slot order (every lane reads its slot before any lane writes), then
    // sorted and written out.
    int len = 0;
    for (int s0 = 0; s0 < slots; s0 += 32) {
      const std::int32_t k = keys[s0 + lane];
      const unsigned held = __ballot_sync(kFull, k != -1);
      __syncwarp();
      if (k != -1) keys[len + __popc(held & ((1u << lane) - 1u))] = k;
      len += __popc(held);
      __syncwarp();
    }
    int padded = 1;
    while (padded < len) padded *= 2;
    for (int s = len + lane; s < padded; s += 32) keys[s] = -1;
    __syncwarp();
    bitonic_sort_keys(keys, padded);
    std::int32_t* out = keys_out + key_offset[I];
    for (int e = lane; e < len; e += 32) out[e] = keys[e];
    if (lane < Bs) row_nnz[Bs * I + lane] = static_cast<std::int64_t>(len) * Bs;
    if (lane == 0) block_count[I] = len;
    __syncwarp();
  }
}

// Per block row: its block products, at most B's block columns (the length of its scratch list of keys).
template <int Bs, class T>
__global__ void block_rows_bound_kernel(std::int64_t n, CsrDeviceView<T> a, CsrDeviceView<T> b,
                                        std::int64_t b_block_cols, std::int64_t* bound) {
  for (std::int64_t I = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; I < n;
       I += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t a_begin = a.row_ptr[Bs * I], a_end = a_begin + (a.row_ptr[Bs * I + 1] - a_begin) / Bs * Bs;
    std::int64_t products = 0;
    for (std::int64_t p = a_begin; p < a_end && products < b_block_cols; p += Bs) {
      const std::int64_t k = a.col_idx[p] / Bs;
      products += (b.row_ptr[Bs * k + 1] - b.row_ptr[Bs * k]) / Bs;
    }
    bound[I] = min(products, b_block_cols);
  }
}

// Numeric: the block rows of one tier (at most `cap` blocks each), a warp per row with its sorted block columns
// and cap * Bs * Bs values in shared memory.
template <int Bs, class T>
__global__ void block_rows_numeric_kernel(const std::int64_t* rows, std::int64_t n, int cap, CsrDeviceView<T> a,
                                          CsrDeviceView<T> b, const std::int64_t* block_count,
                                          const std::int64_t* key_offset, const std::int32_t* sorted_keys,
                                          const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val) {
  constexpr int kBlock = Bs * Bs;
  extern __shared__ __align__(16) unsigned char smem[];
  const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const std::size_t key_bytes = (static_cast<std::size_t>(cap) * 4 + 15) / 16 * 16;
  const std::size_t per_warp = key_bytes + static_cast<std::size_t>(cap) * kBlock * sizeof(T);
  std::int32_t* keys = reinterpret_cast<std::int32_t*>(smem + warp * per_warp);
  T* acc = reinterpret_cast<T*>(smem + warp * per_warp + key_bytes);
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(warps) + warp; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * warps) {
    const std::int64_t I = rows[r];
    const int count = static_cast<int>(block_count[I]);
    const std::int64_t a_begin = a.row_ptr[Bs * I], a_len = a.row_ptr[Bs * I + 1] - a_begin, a_blocks = a_len / Bs;
    const std::int32_t* row_keys = sorted_keys + key_offset[I];
    for (int e = lane; e < count; e += 32) keys[e] = row_keys[e];
    for (int e = lane; e < count * kBlock; e += 32) acc[e] = T(0);
    __syncwarp();
    T a_block[kBlock] = {};  // the lane's entry of A in the current chunk: row i, column k at [i * Bs + k]
    walk_block_products<Bs>(
        a_begin, a_blocks, a, b,
        [&](std::int64_t t) {
#pragma unroll
          for (int i = 0; i < Bs; ++i)
#pragma unroll
            for (int k = 0; k < Bs; ++k) a_block[i * Bs + k] = a.values[a_begin + i * a_len + t * Bs + k];
        },
        [&](bool active, int src, std::int64_t b_at, std::int64_t b_len, std::int64_t u) {
          T prod[kBlock];
          std::int32_t key = -2 - lane;  // inactive lanes match no one
          int rank_at = 0;
          T a_src[kBlock];
#pragma unroll
          for (int e = 0; e < kBlock; ++e) a_src[e] = __shfl_sync(kFull, a_block[e], src);
          if (active) {
            const std::int64_t at = b_at + u * Bs;
            key = b.col_idx[at] / Bs;
            T b_block[kBlock];
#pragma unroll
            for (int k = 0; k < Bs; ++k)
#pragma unroll
              for (int j = 0; j < Bs; ++j) b_block[k * Bs + j] = b.values[at + k * b_len + j];
#pragma unroll
            for (int i = 0; i < Bs; ++i)
#pragma unroll
              for (int j = 0; j < Bs; ++j) {
                T s = a_src[i * Bs] * b_block[j];
#pragma unroll
                for (int k = 1; k < Bs; ++k) s = fma(a_src[i * Bs + k], b_block[k * Bs + j], s);
                prod[i * Bs + j] = s;
              }
            int lo = 0, hi = count;
            while (lo < hi) {
              const int mid = (lo + hi) / 2;
              if (keys[mid] < key) lo = mid + 1; else hi = mid;
            }
            rank_at = lo;
          }
          const unsigned peers = __match_any_sync(kFull, key);
          const int order = __popc(peers & ((1u << lane) - 1u));
          const int rounds = __reduce_max_sync(kFull, static_cast<unsigned>(__popc(peers)));
          for (int k = 0; k < rounds; ++k) {
            if (active && order == k) {
              T* out = acc + static_cast<std::size_t>(rank_at) * kBlock;
#pragma unroll
              for (int e = 0; e < kBlock; ++e) out[e] += prod[e];
            }
            __syncwarp();
          }
          return false;
        });
    __syncwarp();
    const std::int64_t out = c_row_ptr[Bs * I], width = static_cast<std::int64_t>(count) * Bs;
    for (std::int64_t e = lane; e < Bs * width; e += 32) {
      const std::int64_t i = e / width, rem = e - i * width, rk = rem / Bs, j = rem - rk * Bs;
      c_col[out + e] = keys[rk] * Bs + static_cast<std::int32_t>(j);
      c_val[out + e] = acc[rk * kBlock + i * Bs + j];
    }
    __syncwarp();
  }
}

struct Tiers {
  int n = 0;
  int cap[kMaxTiers] = {};
};

// tier[I]: the first tier whose cap holds block row I's count; n for rows too wide for any, n + 1 for empty rows.
__global__ void block_rows_tier_kernel(const std::int64_t* block_count, std::int64_t n, Tiers tiers, int* tier,
                                       unsigned long long* counts) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t c = block_count[r];
    int t = 0;
    if (c == 0) t = tiers.n + 1;
    else
      while (t < tiers.n && tiers.cap[t] < c) ++t;
    tier[r] = t;
    atomicAdd(&counts[t], 1ull);
  }
}

__global__ void block_rows_scatter_kernel(const int* tier, std::int64_t n, unsigned long long* cursor,
                                          std::int64_t* list) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    list[atomicAdd(&cursor[tier[r]], 1ull)] = r;
}

int shared_optin(int device) {
  int v = 0;
  SPKIT_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return v;
}

template <int Bs, class T>
std::size_t numeric_warp_bytes(int cap) {
  return (static_cast<std::size_t>(cap) * 4 + 15) / 16 * 16 + static_cast<std::size_t>(cap) * Bs * Bs * sizeof(T);
}

// Tiers of 32-4,096 blocks in steps of about 1/8, as many as one warp's shared memory allows.
template <int Bs, class T>
Tiers numeric_tiers(int device) {
  Tiers t;
  const auto optin = static_cast<std::size_t>(shared_optin(device));
  for (int cap = 32; cap <= 4096 && t.n < kMaxTiers; cap = (cap + cap / 8 + 7) / 8 * 8) {
    if (numeric_warp_bytes<Bs, T>(cap) > optin) break;
    t.cap[t.n++] = cap;
  }
  return t;
}

// The largest b in {4, 3, 2} whose aligned b x b blocks make up every row of m (device arrays), checked for
// every candidate in one pass each; 0 when none.
template <class T>
void check_blocks(const PoolCsr<T>& m, int* flags, int device, cudaStream_t stream) {
  const auto launch = [&](auto kernel, int bs, int* flag) {
    if (m.rows % bs != 0 || m.cols % bs != 0 || m.rows == 0) return;
    kernel<<<spgemm_grid(m.rows / bs, 1, device), kSpgemmThreads, 0, stream>>>(m.row_ptr.get(), m.col_idx.get(),
                                                                             m.rows / bs, flag);
    SPKIT_LAUNCH_CHECK("dense_block_check_kernel");
  };
  launch(dense_block_check_kernel<2>, 2, flags + 0);
  launch(dense_block_check_kernel<3>, 3, flags + 1);
  launch(dense_block_check_kernel<4>, 4, flags + 2);
}

template <int Bs, class T>
PoolCsrProduct<T> dense_blocks_product(const PoolCsr<T>& a, const PoolCsr<T>& b, const detail::StageMarks& marks,
                                       int device, cudaStream_t stream) {
  const std::int64_t block_rows = a.rows / Bs, b_block_cols = b.cols / Bs;
  const auto n1 = static_cast<std::size_t>(a.rows) + 1;
  marks.device("symbolic");
  // Each block row's scratch list of keys, at its bound (its block products, at most B's block columns).
  PoolBuffer<std::int64_t> bound(static_cast<std::size_t>(block_rows) + 1, "key bounds of the block rows", stream);
  PoolBuffer<std::int64_t> key_offset(static_cast<std::size_t>(block_rows) + 1, "key offsets of the block rows", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(bound.get() + block_rows, 0, sizeof(std::int64_t), stream));
  if (block_rows > 0) {
    block_rows_bound_kernel<Bs, T><<<spgemm_grid(block_rows, 1, device), kSpgemmThreads, 0, stream>>>(
        block_rows, a.view(), b.view(), b_block_cols, bound.get());
    SPKIT_LAUNCH_CHECK("block_rows_bound_kernel");
  }
  cub_run(stream, "scan of key bounds", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, bound.get(), key_offset.get(), block_rows + 1, stream);
  });
  const std::int64_t key_total = read_device_value(key_offset.get() + block_rows, stream);
  check_spgemm_fits(static_cast<std::uint64_t>(key_total) * 4,
                    std::string(kName) + ": the block columns of C's rows, " + std::to_string(key_total) + " at most");
  PoolBuffer<std::int32_t> keys(static_cast<std::size_t>(key_total), "sorted block columns of C's rows", stream);
  PoolBuffer<std::int64_t> block_count(static_cast<std::size_t>(block_rows), "blocks per block row of C", stream);
  PoolBuffer<std::int64_t> row_nnz(n1, "row lengths of C", stream);
  PoolBuffer<std::int64_t> overflow(static_cast<std::size_t>(block_rows), "block rows past the symbolic table", stream);
  PoolBuffer<unsigned long long> overflow_count(2, "block rows past the symbolic tables", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(row_nnz.get(), 0, n1 * sizeof(std::int64_t), stream));
  SPKIT_CUDA_CHECK(cudaMemsetAsync(overflow_count.get(), 0, 2 * sizeof(unsigned long long), stream));
  if (block_rows > 0) {
    constexpr int kBytes = kSymbolicWarps * kSymbolicSlots * 4;
    block_rows_symbolic_kernel<Bs, T, kSymbolicSlots>
        <<<spgemm_grid(block_rows, 32, device, kSymbolicWarps * 32), kSymbolicWarps * 32, kBytes, stream>>>(
            nullptr, block_rows, a.view(), b.view(), b_block_cols, block_count.get(), row_nnz.get(), key_offset.get(),
            keys.get(), overflow.get(), overflow_count.get());
    SPKIT_LAUNCH_CHECK("block_rows_symbolic_kernel");
    const auto wide = static_cast<std::int64_t>(read_device_value(overflow_count.get(), stream));
    if (wide > 0) {
      constexpr int kRetryBytes = kSymbolicRetrySlots * 4;
      const auto kernel = block_rows_symbolic_kernel<Bs, T, kSymbolicRetrySlots>;
      SPKIT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kRetryBytes));
      PoolBuffer<std::int64_t> still_wide(static_cast<std::size_t>(wide), "block rows past the retry table", stream);
      kernel<<<spgemm_grid(wide, 32, device, 32), 32, kRetryBytes, stream>>>(
          overflow.get(), wide, a.view(), b.view(), b_block_cols, block_count.get(), row_nnz.get(), key_offset.get(),
          keys.get(), still_wide.get(), overflow_count.get() + 1);
      SPKIT_LAUNCH_CHECK("block_rows_symbolic_kernel (retry)");
      if (read_device_value(overflow_count.get() + 1, stream) > 0)
        throw NotApplicable(std::string(kName) + ": a block row of C has more than " +
                            std::to_string(fill_limit(kSymbolicRetrySlots)) +
                            " blocks, beyond one warp's shared memory; use cuda.csr.binned");
    }
  }
  PoolCsrProduct<T> c;
  c.row_ptr = PoolBuffer<std::int64_t>(n1, "C row_ptr", stream);
  cub_run(stream, "scan of row lengths", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, row_nnz.get(), c.row_ptr.get(), a.rows + 1, stream);
  });
  c.nnz = read_device_value(c.row_ptr.get() + a.rows, stream);

  marks.device("numeric");
  const Tiers tiers = numeric_tiers<Bs, T>(device);
  PoolBuffer<int> tier(static_cast<std::size_t>(block_rows), "tiers of the block rows", stream);
  PoolBuffer<unsigned long long> counts(kMaxTiers + 2, "block rows per tier", stream);
  PoolBuffer<std::int64_t> list(static_cast<std::size_t>(block_rows), "block rows by tier", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, (kMaxTiers + 2) * sizeof(unsigned long long), stream));
  std::vector<unsigned long long> per_tier(kMaxTiers + 2, 0);
  if (block_rows > 0) {
    block_rows_tier_kernel<<<spgemm_grid(block_rows, 1, device), kSpgemmThreads, 0, stream>>>(
        block_count.get(), block_rows, tiers, tier.get(), counts.get());
    SPKIT_LAUNCH_CHECK("block_rows_tier_kernel");
    per_tier = counts.to_host(kMaxTiers + 2);
    if (per_tier[tiers.n] > 0)
      throw NotApplicable(std::string(kName) + ": " + std::to_string(per_tier[tiers.n]) + " block rows of C hold more than " +
                          std::to_string(tiers.cap[tiers.n - 1]) + " blocks, beyond one warp's shared memory; use cuda.csr.binned");
    std::vector<unsigned long long> start(kMaxTiers + 2, 0);
    for (int t = 1; t < kMaxTiers + 2; ++t) start[t] = start[t - 1] + per_tier[t - 1];
    SPKIT_CUDA_CHECK(cudaMemcpyAsync(counts.get(), start.data(), start.size() * sizeof(unsigned long long),
                                     cudaMemcpyHostToDevice, stream));
    block_rows_scatter_kernel<<<spgemm_grid(block_rows, 1, device), kSpgemmThreads, 0, stream>>>(
        tier.get(), block_rows, counts.get(), list.get());
    SPKIT_LAUNCH_CHECK("block_rows_scatter_kernel");
    SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream));  // `start` is pageable host memory
  }
  check_spgemm_fits(static_cast<std::uint64_t>(c.nnz) * (4 + sizeof(T)),
                    std::string(kName) + ": C with " + std::to_string(c.nnz) + " non-zeros");
  c.col_idx = PoolBuffer<std::int32_t>(static_cast<std::size_t>(c.nnz), "C col_idx", stream);
  c.values = PoolBuffer<T>(static_cast<std::size_t>(c.nnz), "C values", stream);
  const auto kernel = block_rows_numeric_kernel<Bs, T>;
  SPKIT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_optin(device)));
  std::int64_t first = 0;
  for (int t = 0; t < tiers.n; ++t) {
    const auto rows = static_cast<std::int64_t>(per_tier[t]);
    if (rows > 0) {
      const std::size_t per_warp = numeric_warp_bytes<Bs, T>(tiers.cap[t]);
      const int warps = static_cast<int>(std::clamp<std::size_t>(kNumericBlockBytes / per_warp, 1, 8));
      kernel<<<spgemm_grid(rows, 32, device, warps * 32), warps * 32, warps * per_warp, stream>>>(
          list.get() + first, rows, tiers.cap[t], a.view(), b.view(), block_count.get(), key_offset.get(), keys.get(),
          c.row_ptr.get(), c.col_idx.get(), c.values.get());
      SPKIT_LAUNCH_CHECK("block_rows_numeric_kernel");
    }
    first += rows;
  }
  return c;
}

template <class T>
SpgemmResult<T> run_csr_dense_blocks(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& o) {
  require_product_shapes(a, b, kName);
  set_device(o.device);
  const cudaStream_t stream = cuda_stream(o.stream);
  const detail::StageMarks marks(o);
  marks.host("upload", false);
  const PoolOperands<T> in = upload_operands(a, b, kName, 8 + 8 + 8 + 4 + 8, "the block rows", stream);
  const bool same = in.same;
  const PoolCsr<T>& da = in.a;
  const PoolCsr<T>& dbr = in.b();

  marks.device("analysis");
  PoolBuffer<int> flags(6, "block size checks", stream);
  const std::vector<int> ones(6, 1);
  SPKIT_CUDA_CHECK(cudaMemcpyAsync(flags.get(), ones.data(), 6 * sizeof(int), cudaMemcpyHostToDevice, stream));
  check_blocks(da, flags.get(), o.device, stream);
  if (!same) check_blocks(dbr, flags.get() + 3, o.device, stream);
  const std::vector<int> ok = flags.to_host(6);  // synchronizes: `ones` may go
  int bs = 0;
  for (int cand : {4, 3, 2}) {
    const bool shapes = a.rows % cand == 0 && a.cols % cand == 0 && b.cols % cand == 0 && a.rows > 0;
    if (bs == 0 && shapes && ok[cand - 2] && (same || ok[3 + cand - 2])) bs = cand;
  }
  if (bs == 0)
    throw NotApplicable(std::string(kName) + ": A and B are not made of aligned full 2x2, 3x3 or 4x4 blocks "
                        "(as vector-valued finite-element matrices numbered node by node are)");
  PoolCsrProduct<T> c;
  try {
    c = bs == 4   ? dense_blocks_product<4, T>(da, dbr, marks, o.device, stream)
        : bs == 3 ? dense_blocks_product<3, T>(da, dbr, marks, o.device, stream)
                  : dense_blocks_product<2, T>(da, dbr, marks, o.device, stream);
  } catch (const NotApplicable&) {
    release_spgemm_pool(o, stream);  // a block row too wide: the caller runs another kernel
    throw;
  }
  end_product_stages(marks, o.discard_result);
  return finish_csr_product(c, a.rows, b.cols,
                            "dense " + std::to_string(bs) + "x" + std::to_string(bs) +
                                " blocks: one hash key per block of C, block rows binned by their count, deterministic",
                            marks, o, stream);
}

}  // namespace

void register_csr_dense_blocks_spgemm_kernel(SpgemmRegistry& reg) {
  SpgemmKernelInfo k;
  k.name = kName;
  k.format = Format::bsr;  // computes on the blocks; refuses matrices not made of them
  k.backend = Backend::cuda;
  k.description =
      "Gustavson's row-wise product over the dense 2x2-4x4 blocks of vector-valued finite-element matrices: one "
      "shared-memory hash key per block of C (a warp per block row, rows binned by their count), b x b block "
      "products accumulated in A's row order; deterministic, symbolic + numeric";
  k.run_f32 = [](const Csr<float>& a, const Csr<float>& b, const SpgemmOptions& o) {
    return run_csr_dense_blocks(a, b, o);
  };
  k.run_f64 = [](const Csr<double>& a, const Csr<double>& b, const SpgemmOptions& o) {
    return run_csr_dense_blocks(a, b, o);
  };
  reg.add(std::move(k));
}

}  // namespace spkit::cuda
