#pragma once
// cuda.csr.binned, the shared-memory hash accumulator: one group of G lanes per row of C, a table of S
// slots per group, filled by walk_products (csr_binned_walk.cuh): slots are claimed by atomicCAS on
// the key, values added by one lane at a time in the order of A's row (no floating-point atomics).
#include <cstdint>

#include "spgemm/cuda/csr_binned_rows.cuh"
#include "spgemm/cuda/csr_binned_walk.cuh"

namespace spkit::cuda::binned {

constexpr int kHashBlockThreads = 256;
// Per block, opted in above 48 KiB: two blocks of it fit the 228 KiB of an H100/H200 SM with the 1 KiB the
// runtime keeps per block (the 1,536-slot fp64 tables: 6 warps a block, 12 an SM, where 96 KiB held 5).
constexpr int kHashSharedBudget = 111 * 1024;

template <class T, bool kNumeric>
constexpr int slot_bytes() { return kNumeric ? 4 + static_cast<int>(sizeof(T)) : 4; }

template <class T, bool kNumeric, int G, int S>
constexpr int groups_per_block() {
  const int by_shared = kHashSharedBudget / (S * slot_bytes<T, kNumeric>());
  const int by_threads = kHashBlockThreads / G;
  return by_shared < 1 ? 1 : (by_shared < by_threads ? by_shared : by_threads);
}

// The symbolic pass's largest table is tried (rows beyond it go to windows); the others are not.
constexpr int default_overflow(bool numeric, int slots) {
  return !numeric && slots == hash_slots(kHashBins) ? kWindowed : -1;
}

__device__ __forceinline__ unsigned hash_of(std::int32_t col) { return static_cast<unsigned>(col) * 2654435761u; }

// A table of S slots: a power of two, or 1.5 times one (numeric tables sized closer to the row's count).
template <int S>
__device__ __forceinline__ unsigned first_slot(std::int32_t col) {
  if constexpr ((S & (S - 1)) == 0) return hash_of(col) & (S - 1);
  else return __umulhi(hash_of(col), static_cast<unsigned>(S));
}
template <int S>
__device__ __forceinline__ unsigned next_slot(unsigned h) {
  if constexpr ((S & (S - 1)) == 0) return (h + 1) & (S - 1);
  else return h + 1 < static_cast<unsigned>(S) ? h + 1 : 0;
}

// Inserts col; numeric: adds v to its value (the caller guarantees no other lane holds col in this
// step). Returns 1 when this call claimed the slot, 0 when col was there, -1 when the group's fill
// reached `limit` (symbolic bin tried beyond its bound: the row moves to windows).
template <class T, bool kNumeric, bool kLimited, int S>
__device__ __forceinline__ int insert(std::int32_t* keys, T* vals, std::int32_t col, T v, int* fill, int limit) {
  unsigned h = first_slot<S>(col);
  for (;;) {
    const std::int32_t k = keys[h];
    if (k == col) {
      if constexpr (kNumeric) vals[h] += v;
      return 0;
    }
    if (k == -1) {
      const std::int32_t old = atomicCAS(&keys[h], -1, col);
      if (old == -1) {
        if constexpr (kNumeric) vals[h] = v;
        if constexpr (kLimited) {
          if (atomicAdd(fill, 1) >= limit) return -1;
        }
        return 1;
      }
      if (old == col) {
        if constexpr (kNumeric) vals[h] += v;
        return 0;
      }
    }
    h = next_slot<S>(h);
  }
}

// Sorts keys[0, n) ascending (n a power of two, at most S) with their values; bitonic network, the
// group's lanes taking the compare-exchanges of each stage.
template <class T, int G>
__device__ void bitonic_sort(std::int32_t* keys, T* vals, int n, int gl, unsigned gmask) {
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int t = gl; t < n / 2; t += G) {
        const int x = 2 * t - (t & (j - 1)), y = x + j;
        const bool ascending = (x & k) == 0;
        const unsigned kx = static_cast<unsigned>(keys[x]), ky = static_cast<unsigned>(keys[y]);
        if ((kx > ky) == ascending) {
          keys[x] = static_cast<std::int32_t>(ky), keys[y] = static_cast<std::int32_t>(kx);
          const T vx = vals[x];
          vals[x] = vals[y], vals[y] = vx;
        }
      }
      __syncwarp(gmask);
    }
  }
}

// Symbolic: row_nnz[i] = columns of row i; in a tried table (kOverflowTo >= 0), a row that fills it
// beyond 3/4 gets class kOverflowTo instead (windows after the largest table; the largest table after a
// 2,048-slot try). Numeric: the row's entries written sorted at c_row_ptr[i].
template <class T, bool kNumeric, int G, int S, int kOverflowTo = default_overflow(kNumeric, S)>
__global__ void __launch_bounds__(kHashBlockThreads)
    hash_rows_kernel(const std::int64_t* rows, std::int64_t n, CsrDeviceView<T> a, CsrDeviceView<T> b,
                     std::int64_t* row_nnz, std::uint8_t* row_class, const std::int64_t* c_row_ptr,
                     std::int32_t* c_col, T* c_val) {
  constexpr int kGroups = groups_per_block<T, kNumeric, G, S>();
  constexpr bool kLimited = !kNumeric && kOverflowTo >= 0;
  constexpr int kLimit = static_cast<int>(fill_limit(S));
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int fills[kGroups];
  const int group = threadIdx.x / G, gl = threadIdx.x % G;  // blockDim.x is kGroups * G
  std::int32_t* keys = reinterpret_cast<std::int32_t*>(smem) + group * S;
  T* vals = kNumeric ? reinterpret_cast<T*>(smem + static_cast<std::size_t>(kGroups) * S * 4) + group * S : nullptr;
  const unsigned gmask = group_mask<G>();
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(kGroups) + group; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * kGroups) {
    const std::int64_t i = rows[r];
    for (int s = gl; s < S; s += G) keys[s] = -1;
    if (gl == 0) fills[group] = 0;
    __syncwarp(gmask);
    bool full = false;
    const bool overflow = walk_products<G, T, kNumeric, kNumeric, false>(
        a.row_ptr[i], a.row_ptr[i + 1], 0, 0, a, b, nullptr,
        [&](std::int32_t col, T v, auto&&...) {
          if (!full) full = insert<T, kNumeric, kLimited, S>(keys, vals, col, v, &fills[group], kLimit) < 0;
        },
        [&] {
          if constexpr (kLimited) return __any_sync(gmask, full) != 0;
          return false;
        });
    __syncwarp(gmask);
    if constexpr (!kNumeric) {
      if (overflow) {
        if (gl == 0) row_class[i] = static_cast<std::uint8_t>(kOverflowTo);
      } else {
        int mine = 0;
        for (int s = gl; s < S; s += G) mine += keys[s] != -1;
        for (int o = G / 2; o > 0; o /= 2) mine += __shfl_down_sync(gmask, mine, o, G);
        if (gl == 0) row_nnz[i] = mine;
      }
    } else {
      // Compact the occupied slots to the front (in slot order), pad to a power of two, sort.
      int len = 0;
      for (int s0 = 0; s0 < S; s0 += G) {
        const std::int32_t k = keys[s0 + gl];
        const T v = vals[s0 + gl];
        const unsigned lanes = __ballot_sync(gmask, k != -1) >> ((threadIdx.x & 31) & ~(G - 1));
        const unsigned mine = G == 32 ? lanes : lanes & ((1u << G) - 1u);
        __syncwarp(gmask);  // every lane has read its slot before any lane writes at or below it
        if (k != -1) {
          const int at = len + __popc(mine & ((1u << gl) - 1u));
          keys[at] = k, vals[at] = v;
        }
        len += __popc(mine);
        __syncwarp(gmask);
      }
      int padded = 1;
      while (padded < len) padded *= 2;
      const std::int64_t out = c_row_ptr[i];
      if (padded <= S) {
        for (int s = len + gl; s < padded; s += G) keys[s] = -1;  // sorts last as unsigned
        __syncwarp(gmask);
        bitonic_sort<T, G>(keys, vals, padded, gl, gmask);
        for (int e = gl; e < len; e += G) c_col[out + e] = keys[e], c_val[out + e] = vals[e];
      } else {
        // A 1.5x table holds up to 1.125x a power of two P (its 3/4): [0, P) and the rest are sorted
        // apart (the rest padded to a power of two fits: P + P / 8 <= S) and merged on the way out, each
        // entry placed by its rank in the other run (keys are distinct).
        const int p = padded / 2, rest = len - p;
        int padded_rest = 1;
        while (padded_rest < rest) padded_rest *= 2;
        for (int s = len + gl; s < p + padded_rest; s += G) keys[s] = -1;
        __syncwarp(gmask);
        bitonic_sort<T, G>(keys, vals, p, gl, gmask);
        bitonic_sort<T, G>(keys + p, vals + p, padded_rest, gl, gmask);
        for (int e = gl; e < p; e += G) {
          const auto at = e + lower_bound_col(keys + p, 0, rest, keys[e]);
          c_col[out + at] = keys[e], c_val[out + at] = vals[e];
        }
        for (int e = gl; e < rest; e += G) {
          const auto at = e + lower_bound_col(keys, 0, p, keys[p + e]);
          c_col[out + at] = keys[p + e], c_val[out + at] = vals[p + e];
        }
      }
    }
    __syncwarp(gmask);
  }
}

// Launches the kernel of one bin over `n` rows (dynamic shared memory, opted in once above 48 KiB).
template <class T, bool kNumeric, int G, int S, int kOverflowTo = default_overflow(kNumeric, S)>
void launch_hash_rows(const std::int64_t* rows, std::int64_t n, const CsrDeviceView<T>& a, const CsrDeviceView<T>& b,
                      std::int64_t* row_nnz, std::uint8_t* row_class, const std::int64_t* c_row_ptr,
                      std::int32_t* c_col, T* c_val, int device, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int kGroups = groups_per_block<T, kNumeric, G, S>();
  constexpr int kShared = kGroups * S * slot_bytes<T, kNumeric>();
  static_assert(kShared <= kHashSharedBudget, "hash tables exceed the shared-memory budget");
  if constexpr (kShared > 48 * 1024)  // per device, so on every launch (cheap)
    SPKIT_CUDA_CHECK(cudaFuncSetAttribute(hash_rows_kernel<T, kNumeric, G, S, kOverflowTo>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  const int grid = spgemm_grid(n, G, device, kGroups * G);
  hash_rows_kernel<T, kNumeric, G, S, kOverflowTo><<<grid, kGroups * G, kShared, stream>>>(rows, n, a, b, row_nnz, row_class,
                                                                             c_row_ptr, c_col, c_val);
  SPKIT_LAUNCH_CHECK("hash_rows_kernel");
}

}  // namespace spkit::cuda::binned
