#pragma once
// cuda.csr.binned, row analysis and binning: products, first and last column of each row of C = A B,
// and the accumulator each row gets (see csr_binned.cu for the whole pipeline).
#include <cstdint>

#include "spgemm/cuda/spgemm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda::binned {

// Row classes. 0: no products. 1-8: one group of lanes per row with a shared hash table of
// hash_slots(bin) = 32 ... 4,096 slots. 9: dense accumulation per column window (one warp per window).
// 10, 11: one thread per row merging the rows of B (csr_binned_merge.cuh), rows of A of at most 8 / 16
// entries. 12, 13 (numeric): rows whose exact column count fits a table of 1,536 / 3,072 slots at 3/4,
// between the 1,024/2,048 and 2,048/4,096 bins (3/4 of the shared memory of the next power of two);
// 13 also marks, in the symbolic pass, rows that overflowed the 2,048-slot try (kRetryInLargestTable).
constexpr int kNoProducts = 0;
constexpr int kHashBins = 8;
constexpr int kWindowed = kHashBins + 1;
constexpr int kMergeShort = kWindowed + 1;
constexpr int kMergeLong = kMergeShort + 1;
constexpr int kHashMidSmall = kMergeLong + 1;
constexpr int kHashMidLarge = kHashMidSmall + 1;
constexpr int kClasses = kHashMidLarge + 1;
// Symbolic pass only: a row of the largest bin that overflowed the 2,048-slot try (many such rows: see
// csr_binned.cu), tried in the 4,096-slot table next.
constexpr int kRetryInLargestTable = kHashMidLarge;
constexpr int kHashMidSmallSlots = 1536;
constexpr int kHashMidLargeSlots = 3072;
constexpr int kMergeShortEntries = 8;
constexpr int kMergeLongEntries = 16;
static_assert(tuning::spgemm::kBinnedMergeMaxEntries <= kMergeLongEntries, "the merge kernels hold 8 or 16 heads");
__host__ __device__ constexpr bool is_merge(int cls) { return cls == kMergeShort || cls == kMergeLong; }
__host__ __device__ constexpr int hash_slots(int bin) { return 16 << bin; }
constexpr int kWindowColumns = tuning::spgemm::kBinnedWindowColumns;
static_assert(kWindowColumns % 1024 == 0, "a window is a whole number of 32-bit words per lane");

// Symbolic bins hold at most half their slots (the column bound min(products, range) is not exact),
// except the largest, which is tried when the bound exceeds it and abandoned past 3/4 full.
__host__ __device__ constexpr std::int64_t symbolic_limit(int bin) { return hash_slots(bin) / 2; }
// Numeric bins know each row's exact column count: up to 3/4 of the slots.
__host__ __device__ constexpr std::int64_t fill_limit(int slots) { return slots / 4 * 3; }
__host__ __device__ constexpr std::int64_t numeric_limit(int bin) { return fill_limit(hash_slots(bin)); }

// Bits needed to write v.
__host__ __device__ constexpr int bit_width(std::uint64_t v) {
  int b = 0;
  while (v != 0) ++b, v >>= 1;
  return b;
}

__device__ __forceinline__ int symbolic_class(std::int64_t products, std::int64_t range, std::int64_t entries) {
  if (products == 0) return kNoProducts;
  if (entries <= tuning::spgemm::kBinnedMergeMaxEntries && products <= tuning::spgemm::kBinnedMergeMaxProducts &&
      products <= tuning::spgemm::kBinnedMergeMaxProductsPerEntry * entries)
    return entries <= kMergeShortEntries ? kMergeShort : kMergeLong;
  const std::int64_t bound = products < range ? products : range;
  const std::int64_t windows = (range + kWindowColumns - 1) / kWindowColumns;
  if (windows == 1 && bound > tuning::spgemm::kBinnedDenseMinColumns) return kWindowed;
  for (int bin = 1; bin < kHashBins; ++bin)
    if (bound <= symbolic_limit(bin)) return bin;
  // Wide rows: dense windows write C sorted where a big table would need sorting, unless the range
  // spans so many windows that walking A's row once per window costs more.
  if (windows <= tuning::spgemm::kBinnedWideRowMaxWindows) return kWindowed;
  return products <= tuning::spgemm::kBinnedHashTryMaxProducts ? kHashBins : kWindowed;
}

__device__ __forceinline__ int numeric_bin(std::int64_t nnz, bool mid_tables) {
  for (int bin = 1; bin < kHashBins; ++bin)
    if (nnz <= numeric_limit(bin)) {
      if (mid_tables && bin == kHashBins - 1 && nnz <= fill_limit(kHashMidSmallSlots)) return kHashMidSmall;
      return bin;
    }
  if (mid_tables && nnz <= fill_limit(kHashMidLargeSlots)) return kHashMidLarge;
  return kHashBins;
}

__device__ __forceinline__ std::int64_t windows_of(std::int32_t lo, std::int32_t hi) {
  return (static_cast<std::int64_t>(hi) - lo + kWindowColumns) / kWindowColumns;
}

// Products (sum of B's row lengths), first and last column of each row of C, and its symbolic class.
// Each lane takes a row of its warp's 32; rows of A longer than kLongRow entries are then taken by the
// whole warp, one after another (hub rows of power-law graphs would stall a lane).
constexpr int kLongRow = 32;
constexpr int kIlp = 8;

__device__ __forceinline__ void store_row(std::int64_t i, long long p, int lo, int hi, std::int64_t entries,
                                          std::int64_t* products, std::int32_t* first_col, std::int32_t* last_col,
                                          std::uint8_t* row_class) {
  products[i] = p;
  first_col[i] = p > 0 ? lo : 0;
  last_col[i] = p > 0 ? hi : -1;
  row_class[i] =
      static_cast<std::uint8_t>(symbolic_class(p, p > 0 ? static_cast<std::int64_t>(hi) - lo + 1 : 0, entries));
}

template <class T>
__global__ void analyse_rows_kernel(CsrDeviceView<T> a, CsrDeviceView<T> b, std::int64_t rows,
                                    std::int64_t* products, std::int32_t* first_col, std::int32_t* last_col,
                                    std::uint8_t* row_class) {
  const int lane = threadIdx.x & 31;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + (threadIdx.x & ~31); base < rows;
       base += stride) {
    const std::int64_t i = base + lane;
    const bool valid = i < rows;
    const std::int64_t ab = valid ? a.row_ptr[i] : 0, ae = valid ? a.row_ptr[i + 1] : 0;
    const bool is_long = ae - ab > kLongRow;
    if (valid && !is_long) {
      long long p = 0;
      int lo = 0x7fffffff, hi = -1;
      for (std::int64_t e = ab; e < ae; ++e) {
        const std::int32_t j = a.col_idx[e];
        const std::int64_t bs = b.row_ptr[j], be = b.row_ptr[j + 1];
        if (be > bs) p += be - bs, lo = min(lo, b.col_idx[bs]), hi = max(hi, b.col_idx[be - 1]);
      }
      store_row(i, p, lo, hi, ae - ab, products, first_col, last_col, row_class);
    }
    for (unsigned todo = __ballot_sync(0xffffffffu, valid && is_long); todo != 0; todo &= todo - 1) {
      const std::int64_t r = base + __ffs(todo) - 1;
      long long p = 0;
      int lo = 0x7fffffff, hi = -1;
      // kIlp entries per lane in flight: a circuit's 117K-entry row is one warp's dependent loads.
      const std::int64_t rb = a.row_ptr[r], re = a.row_ptr[r + 1];
      for (std::int64_t e0 = rb + lane; e0 < re; e0 += 32 * kIlp) {
        std::int32_t j[kIlp];
        std::int64_t bs[kIlp], be[kIlp];
#pragma unroll
        for (int k = 0; k < kIlp; ++k) j[k] = e0 + 32 * k < re ? a.col_idx[e0 + 32 * k] : -1;
#pragma unroll
        for (int k = 0; k < kIlp; ++k) bs[k] = j[k] >= 0 ? b.row_ptr[j[k]] : 0, be[k] = j[k] >= 0 ? b.row_ptr[j[k] + 1] : 0;
#pragma unroll
        for (int k = 0; k < kIlp; ++k)
          if (be[k] > bs[k]) p += be[k] - bs[k], lo = min(lo, b.col_idx[bs[k]]), hi = max(hi, b.col_idx[be[k] - 1]);
      }
      for (int o = 16; o > 0; o /= 2) {
        p += __shfl_xor_sync(0xffffffffu, p, o);
        lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, o));
        hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, o));
      }
      if (lane == 0) store_row(r, p, lo, hi, re - rb, products, first_col, last_col, row_class);
    }
  }
}

// Appends item to lists[c * stride + ...] for its class c in [first, last) (no list for other classes),
// one atomic per class and warp; every lane of the warp calls it.
__device__ __forceinline__ void append_to_class_list(int cls, int first, int last, std::int64_t item,
                                                     std::int64_t stride, std::int64_t* lists,
                                                     unsigned long long* counts) {
  const int lane = threadIdx.x & 31;
  for (int c = first; c < last; ++c) {
    const unsigned members = __ballot_sync(0xffffffffu, cls == c);
    if (members == 0) continue;
    const int leader = __ffs(members) - 1;
    unsigned long long at = 0;
    if (lane == leader) at = atomicAdd(&counts[c], static_cast<unsigned long long>(__popc(members)));
    at = __shfl_sync(0xffffffffu, at, leader);
    if (cls == c) lists[c * stride + static_cast<std::int64_t>(at) + __popc(members & ((1u << lane) - 1u))] = item;
  }
}

// Appends each row to the list of its bin (lists[bin * rows + k], counts[bin] = length). The order
// within a list depends on scheduling; no result does (each row is computed by itself).
// numeric: hash rows are re-binned by their exact column count; windowed and merged rows keep their class.
__global__ void bin_rows_kernel(const std::uint8_t* row_class, const std::int64_t* row_nnz, std::int64_t rows,
                                bool numeric, bool mid_tables, std::int64_t* lists, unsigned long long* counts) {
  const int lane = threadIdx.x & 31;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  // Whole warps iterate together (ballots below), lanes past the end carry no row.
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + (threadIdx.x & ~31); base < rows;
       base += stride) {
    const std::int64_t i = base + lane;
    int cls = -1;
    if (i < rows) {
      cls = row_class[i];
      if (numeric && cls != kWindowed && cls != kNoProducts && !is_merge(cls))
        cls = numeric_bin(row_nnz[i], mid_tables);
    }
    append_to_class_list(cls, 1, kClasses, i, rows, lists, counts);
  }
}

// Windows of each windowed row, or, for a hub row whose windows would each walk much of its row
// (windows x entries > kBinnedExpandMinWalkRatio x products: power-law and circuit hubs, whose rows of B
// are short), no windows and its entries to expand (csr_binned_expand.cuh). Entry n of both is 0, for
// the exclusive scans.
__global__ void row_windows_kernel(const std::int64_t* rows, std::int64_t n, const std::int32_t* first_col,
                                   const std::int32_t* last_col, const std::int64_t* products,
                                   const std::int64_t* a_row_ptr, std::int64_t* windows,
                                   std::int64_t* expanded_entries) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r <= n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    if (r == n) {
      windows[r] = 0, expanded_entries[r] = 0;
      continue;
    }
    const std::int64_t i = rows[r];
    const std::int64_t win = windows_of(first_col[i], last_col[i]);
    const std::int64_t len = a_row_ptr[i + 1] - a_row_ptr[i];
    const bool expand = win > 1 && win * len > tuning::spgemm::kBinnedExpandMinWalkRatio * products[i];
    windows[r] = expand ? 0 : win;
    expanded_entries[r] = expand ? len : 0;
  }
}

// Row lengths of windowed rows from the scanned window counts (expanded rows have no windows and
// their own count).
__global__ void window_row_nnz_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* window_offsets,
                                      const std::int64_t* window_scan, std::int64_t* row_nnz) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < n;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (window_offsets[r + 1] > window_offsets[r])
      row_nnz[rows[r]] = window_scan[window_offsets[r + 1]] - window_scan[window_offsets[r]];
}

}  // namespace spkit::cuda::binned
