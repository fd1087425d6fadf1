#pragma once
// cuda.csr.binned, the walk over one row's products shared by every accumulator: a group of G lanes
// takes G entries of A's row at a time, each lane the segment of its row of B that the accumulator
// wants (all of it, or the part inside a column window), and then deals the concatenated segments out
// G products per step, so that short rows of B (road, random, power-law leaves) still fill the lanes.
//
// Order: products are dealt in the order of A's row, then of B's row. In numeric mode a step's lanes
// that hold the same column add in lane order, one rank per round, so every entry of C receives its
// products in exactly the order of the serial Gustavson loop: the same bits on every run. A step
// inside one row of B (long rows of B: meshes, R-MAT) cannot repeat a column and adds in one round.
#include <cstdint>

#include "spgemm/cuda/spgemm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda::binned {

template <int G>
__device__ __forceinline__ unsigned group_mask() {
  if constexpr (G == 32) {
    return 0xffffffffu;
  } else {
    return ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
  }
}

// Inclusive sum of v over the group's lanes (lane gl gets v of lanes 0 ... gl).
template <int G, class I>
__device__ __forceinline__ I group_inclusive_sum(I v, unsigned gmask) {
  const int gl = static_cast<int>(threadIdx.x % G);
  for (int o = 1; o < G; o *= 2) {
    const I x = __shfl_up_sync(gmask, v, o, G);
    if (gl >= o) v += x;
  }
  return v;
}

// The first lane of the group whose inclusive sum exceeds x: the lane whose items hold position x of
// the concatenation (binary search over the sums, by shuffles).
template <int G, class I>
__device__ __forceinline__ int owner_lane(I incl, I x, unsigned gmask) {
  int owner = 0;
  for (int step = G / 2; step > 0; step /= 2) {
    const I at = __shfl_sync(gmask, incl, owner + step - 1, G);
    if (at <= x) owner += step;
  }
  return owner;
}

// What the window walk needs of entry e of A's row: its row of B (start, length) and that row's first
// and last column, gathered once per windowed row so that each of the row's windows reads it in one
// coalesced pass instead of three dependent loads per entry.
struct WindowEntry {
  std::int64_t start;
  std::int32_t length, first, last, unused;
};
static_assert(sizeof(WindowEntry) == 24, "three 8-byte words per entry");

// First position in col[lo, hi) holding a column >= c (hi when none).
__device__ __forceinline__ std::int64_t lower_bound_col(const std::int32_t* col, std::int64_t lo, std::int64_t hi,
                                                        std::int64_t c) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (col[mid] < c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Calls add(col, product, q, segment start, entry) for every product b(j, col) = B's entry q of A's
// row entries [ab, ae) whose column lies in [c0, c1), in the order described above; returns early
// (true) once stop() says so after a step (symbolic overflow).
// kOrdered: same-column lanes of a step add one after another (numeric); otherwise all at once.
// kClip: only the columns in [c0, c1), the rows of B described by entries[] (windows); otherwise all
// of them (entries unused).
template <int G, class T, bool kNumeric, bool kOrdered, bool kClip, class Add, class Stop>
__device__ __forceinline__ bool walk_products(std::int64_t ab, std::int64_t ae, std::int64_t c0, std::int64_t c1,
                                              const CsrDeviceView<T>& a, const CsrDeviceView<T>& b,
                                              const WindowEntry* entries, Add&& add, Stop&& stop) {
  const int gl = static_cast<int>(threadIdx.x % G);
  const unsigned gmask = group_mask<G>();
  const unsigned lanes_below = (1u << (threadIdx.x & 31)) - 1u;
  for (std::int64_t base = ab; base < ae; base += G) {
    long long s = 0, len = 0;
    std::int64_t e = -1;  // this lane's entry of A
    T av{};
    if (base + gl < ae) {
      std::int64_t bs, be;
      e = base + gl;
      if constexpr (kClip) {
        const WindowEntry en = entries[e];
        bs = en.start, be = en.start + en.length;
        if (en.length > 0 && (en.first < c0 || en.last >= c1)) {
          if (en.first >= c1 || en.last < c0) {
            be = bs;
          } else {
            if (en.first < c0) bs = lower_bound_col(b.col_idx, bs, be, c0);
            // At most c1 - c0 distinct columns of the row lie in the window: the end is that close.
            if (en.last >= c1) be = lower_bound_col(b.col_idx, bs, be < bs + (c1 - c0) ? be : bs + (c1 - c0), c1);
          }
        }
      } else {
        const std::int32_t j = a.col_idx[e];
        bs = b.row_ptr[j], be = b.row_ptr[j + 1];
      }
      s = bs, len = be - bs;
      if constexpr (kNumeric) av = a.values[e];
    }
    const long long incl = group_inclusive_sum<G>(len, gmask);  // of segment lengths
    const long long total = __shfl_sync(gmask, incl, G - 1, G);
    for (long long t0 = 0; t0 < total; t0 += G) {
      const long long x = t0 + gl;
      const int owner = owner_lane<G>(incl, x, gmask);
      const long long owner_s = __shfl_sync(gmask, s, owner, G);
      const long long owner_incl = __shfl_sync(gmask, incl, owner, G);
      const long long owner_len = __shfl_sync(gmask, len, owner, G);
      const long long owner_e = __shfl_sync(gmask, static_cast<long long>(e), owner, G);
      const T v = __shfl_sync(gmask, av, owner, G);
      const bool valid = x < total;
      std::int32_t col = -1;
      T prod{};
      const long long q = owner_s + (x - (owner_incl - owner_len));
      if (valid) {
        col = b.col_idx[q];
        if constexpr (kNumeric) prod = v * b.values[q];
      }
      if constexpr (kOrdered) {
        // A step inside one row of B holds distinct columns (B's rows are strictly increasing): one
        // round. (Owners rise with the lane, so the first lane's owner is every valid lane's.)
        const int first_owner = __shfl_sync(gmask, owner, 0, G);
        if (__all_sync(gmask, !valid || owner == first_owner)) {
          if (valid) add(col, prod, q, owner_s, owner_e);
          __syncwarp(gmask);
        } else {
          const unsigned same = __match_any_sync(gmask, valid ? col : -2 - gl);
          const unsigned rank = __popc(same & lanes_below);
          const unsigned rounds = __reduce_max_sync(gmask, valid ? rank : 0u);
          for (unsigned r = 0; r <= rounds; ++r) {
            if (valid && rank == r) add(col, prod, q, owner_s, owner_e);
            __syncwarp(gmask);
          }
        }
      } else {
        if (valid) add(col, prod, q, owner_s, owner_e);
      }
      if (stop()) return true;
    }
  }
  return false;
}

}  // namespace spkit::cuda::binned
