#pragma once
// cuda.csr.binned, window lists for hub rows: a windowed row of A whose rows of B are short (power-law
// and circuit hubs: 16K entries, ~9 products each, spread over 122 windows) would have each of its
// windows walk all of A's row to find the few entries that reach it, 13x more entry visits than
// products. Such rows get, per window, the list of the entries whose row of B has a column inside it:
// one pass over their products counts the (entry, window) pairs, a second writes them as keys
// (window << entry_bits | entry offset in the row), each with the entry's row of B clipped to the window
// (start, length: found once here, so neither the symbolic nor the numeric walk searches), and one
// radix sort groups them by window with the entries in A's order, so the windows still add every entry
// of C in the serial Gustavson order.
// The work per row is then its products, spread over warps by chunks of entries, as in Parger et
// al.'s spECK global load balancing.
#include <cub/cub.cuh>

#include <algorithm>
#include <string>

#include "spkit/error.hpp"

#include "spgemm/cuda/csr_binned_rows.cuh"
#include "spgemm/cuda/csr_binned_walk.cuh"

namespace spkit::cuda::binned {

// One warp per chunk of a listed row's entries. Count: pairs[w] += the (entry, window) pairs of window
// w. Fill: each pair written at pair_offsets[w] + (a slot taken from cursor[w]), key and clipped
// segment; the order within a window is restored by the sort.
template <class T, bool kFill>
__global__ void window_pairs_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* chunk_offsets,
                                    const std::int64_t* window_offsets, const std::int32_t* first_col,
                                    CsrDeviceView<T> a, CsrDeviceView<T> b, unsigned long long* cursor,
                                    const std::int64_t* pair_offsets, std::uint64_t* keys, std::uint64_t* segments,
                                    int entry_bits) {
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  const std::int64_t items = chunk_offsets[n];
  for (std::int64_t item = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32; item < items;
       item += warps) {
    const std::int64_t r = segment_of(chunk_offsets, n, item);
    const std::int64_t i = rows[r];
    const std::int64_t ab = a.row_ptr[i], ae = a.row_ptr[i + 1];
    const std::int64_t lo = ab + (item - chunk_offsets[r]) * kListChunkEntries;
    const std::int64_t hi = lo + kListChunkEntries < ae ? lo + kListChunkEntries : ae;
    const std::int64_t first = first_col[i], wbase = window_offsets[r];
    walk_products<32, T, false, false, false>(
        lo, hi, 0, 0, a, b, nullptr,
        [&](std::int32_t col, T, long long q, long long segment_start, long long e) {
          const std::int64_t w = (col - first) / kWindowColumns;
          // B's rows are sorted: a pair starts where the window changes along the row.
          if (q != segment_start && (b.col_idx[q - 1] - first) / kWindowColumns == w) return;
          const std::int64_t gw = wbase + w;
          const unsigned long long at = atomicAdd(&cursor[gw], 1ull);
          if constexpr (kFill) {
            // The segment ends at the first column past the window, at most a window's columns on.
            const std::int64_t row_end = b.row_ptr[a.col_idx[e] + 1];
            const std::int64_t limit = q + kWindowColumns < row_end ? q + kWindowColumns : row_end;
            const std::int64_t end = lower_bound_col(b.col_idx, q + 1, limit, first + (w + 1) * kWindowColumns);
            const std::int64_t slot = pair_offsets[gw] + static_cast<std::int64_t>(at);
            keys[slot] = (static_cast<std::uint64_t>(gw) << entry_bits) | static_cast<std::uint64_t>(e - ab);
            segments[slot] = (static_cast<std::uint64_t>(q) << kSegmentLengthBits) | static_cast<std::uint64_t>(end - q);
          }
        },
        [] { return false; });
  }
}

__host__ __device__ constexpr int bit_width(std::uint64_t v) {
  int b = 0;
  while (v != 0) ++b, v >>= 1;
  return b;
}

// The lists of every window (empty for rows that walk their row: `listed` false there).
struct WindowLists {
  PoolBuffer<std::int64_t> pair_offsets;  // windows + 1
  PoolBuffer<std::uint64_t> keys;         // sorted by window, then entry
  PoolBuffer<std::uint64_t> segments;     // keys[p]'s row of B clipped to its window (EntryList)
  std::uint64_t entry_mask = 0;
};

// Builds the lists of the listed rows (chunk_offsets scanned, `chunks` of them in all, rows of A up to
// `longest` entries among them) over `windows` windows. B's positions must fit a segment's start bits.
template <class T>
WindowLists build_window_lists(const std::int64_t* rows, std::int64_t n_windowed, const std::int64_t* chunk_offsets,
                               std::int64_t chunks, std::uint64_t longest, const std::int64_t* window_offsets,
                               std::int64_t windows, const std::int32_t* first_col, const CsrDeviceView<T>& a,
                               const CsrDeviceView<T>& b, int device, cudaStream_t stream) {
  WindowLists l;
  const int entry_bits = std::max(1, bit_width(longest - 1));
  const int key_bits = entry_bits + bit_width(static_cast<std::uint64_t>(windows - 1));
  if (key_bits > 64)
    throw NotApplicable("cuda.csr.binned: window lists would need " + std::to_string(key_bits) + "-bit keys (" +
                   std::to_string(windows) + " windows, rows of " + std::to_string(longest) + " entries)");
  l.entry_mask = (std::uint64_t{1} << entry_bits) - 1;
  const auto n_win = static_cast<std::size_t>(windows) + 1;
  PoolBuffer<unsigned long long> cursor(n_win, "pairs per window", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(cursor.get(), 0, n_win * sizeof(unsigned long long), stream));
  const int grid = spgemm_grid(chunks, 32, device);
  window_pairs_kernel<T, false><<<grid, kSpgemmThreads, 0, stream>>>(
      rows, n_windowed, chunk_offsets, window_offsets, first_col, a, b, cursor.get(), nullptr, nullptr, nullptr,
      entry_bits);
  SPKIT_LAUNCH_CHECK("window_pairs_kernel (count)");
  l.pair_offsets = PoolBuffer<std::int64_t>(n_win, "window list offsets", stream);
  static_assert(sizeof(unsigned long long) == sizeof(std::int64_t), "counts scanned as 64-bit offsets");
  const auto* counts = reinterpret_cast<const std::int64_t*>(cursor.get());
  cub_run(stream, "scan of window list lengths", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, counts, l.pair_offsets.get(), windows + 1, stream);
  });
  const std::int64_t pairs = read_device_value(l.pair_offsets.get() + windows, stream);
  check_spgemm_fits(static_cast<std::uint64_t>(pairs) * 32,
                    "cuda.csr.binned: window lists of " + std::to_string(pairs) + " entries");
  const auto n_pairs = static_cast<std::size_t>(pairs);
  PoolBuffer<std::uint64_t> unsorted(n_pairs, "window lists (unsorted)", stream);
  PoolBuffer<std::uint64_t> unsorted_segments(n_pairs, "window list segments (unsorted)", stream);
  l.keys = PoolBuffer<std::uint64_t>(n_pairs, "window lists", stream);
  l.segments = PoolBuffer<std::uint64_t>(n_pairs, "window list segments", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(cursor.get(), 0, n_win * sizeof(unsigned long long), stream));
  window_pairs_kernel<T, true><<<grid, kSpgemmThreads, 0, stream>>>(
      rows, n_windowed, chunk_offsets, window_offsets, first_col, a, b, cursor.get(), l.pair_offsets.get(),
      unsorted.get(), unsorted_segments.get(), entry_bits);
  SPKIT_LAUNCH_CHECK("window_pairs_kernel (fill)");
  if (pairs > 0)
    cub_run(stream, "sort of window lists", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, unsorted.get(), l.keys.get(), unsorted_segments.get(),
                                             l.segments.get(), pairs, 0, key_bits, stream);
    });
  return l;
}

}  // namespace spkit::cuda::binned
