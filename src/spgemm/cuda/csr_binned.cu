// cuda.csr.binned: row-wise Gustavson SpGEMM on CSR for irregular rows, rows binned by their products
// and output column range as in Parger et al.'s spECK (PPoPP'20) row analysis and Nagasaka et al.'s
// nsparse / Du et al.'s OpSparse binned hash kernels, with deterministic accumulators:
//
//   analysis   per row of C: products, first and last column (B's rows are sorted), class:
//              short rows of A with few products merged by one thread each (csr_binned_merge.cuh);
//              hash bins by the column bound min(products, range) (tables of 32-4,096 slots, groups of
//              8 lanes for the two smallest, else a warp), or windows (dense, see csr_binned_window.cuh)
//   symbolic   columns per row: shared hash tables (keys only); the largest table is tried on rows
//              whose bound exceeds it and abandoned past 3/4 full, those rows going to windows;
//              windowed rows count per window (bitmaps); hub rows whose windows would each walk most
//              of the row are expanded, sorted and counted instead (csr_binned_expand.cuh). Scan to
//              C's row pointers.
//   numeric    hash rows re-binned by their exact column count, accumulated in A's row order, sorted
//              in shared memory (bitonic) and written; windows write their columns in order, those of
//              at most 256 / 1,024 columns from that many shared slots (ranks in the symbolic bitmap).
// Stages reported: analysis, symbolic (hash rows of tables up to 2,048 slots), symbolic 4096-slot rows,
// rebin, hub rows (numeric bins, per-entry window data, the expansion and sort of hub rows), symbolic
// windows (and C's row pointers), numeric, numeric 4096-slot rows, numeric windows and hub rows; every
// stage is reported for every product, empty or not, so that repeated calls report the same list.
// Entries that cancel to zero stay on the device, as in cusparseSpGEMM; they are dropped on the host.
// Every entry of C sums its products in the order of A's row, whatever the schedule, except entries of
// hub rows fed by more than kLongRun products (summed by a warp in a fixed order): C is the same bits on
// every run (no floating-point atomics anywhere).
#include <cub/cub.cuh>

#include <algorithm>
#include <string>
#include <utility>

#include "spgemm/cuda/csr_binned_expand.cuh"
#include "spgemm/cuda/csr_binned_hash.cuh"
#include "spgemm/cuda/csr_binned_merge.cuh"
#include "spgemm/cuda/csr_binned_rows.cuh"
#include "spgemm/cuda/csr_binned_window.cuh"
#include "spgemm/cuda/spgemm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

using namespace binned;

constexpr const char* kName = "cuda.csr.binned";

// Per row: products, column range, class, and the row lists of each class.
struct RowPlan {
  std::int64_t rows = 0;
  PoolBuffer<std::int64_t> products;
  PoolBuffer<std::int32_t> first_col, last_col;
  PoolBuffer<std::uint8_t> row_class;
  PoolBuffer<std::int64_t> lists;  // kClasses lists of `rows` capacity each
  std::int64_t count[kClasses] = {};
  const std::int64_t* list(int c) const { return lists.get() + c * rows; }
};

// Fills plan.lists and plan.count from the row classes (numeric: hash rows by their column count).
// mid_tables (numeric): hash rows of 769-1,152 and 1,537-2,304 columns go to the 1,536- and 3,072-slot tables.
void bin_rows(RowPlan& plan, const std::int64_t* row_nnz, bool numeric, bool mid_tables, int device,
              cudaStream_t stream) {
  PoolBuffer<unsigned long long> counts(kClasses, "row bin sizes", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, kClasses * sizeof(unsigned long long), stream));
  if (plan.rows > 0) {
    bin_rows_kernel<<<spgemm_grid(plan.rows, 1, device), kSpgemmThreads, 0, stream>>>(
        plan.row_class.get(), row_nnz, plan.rows, numeric, mid_tables, plan.lists.get(), counts.get());
    SPKIT_LAUNCH_CHECK("bin_rows_kernel");
  }
  const std::vector<unsigned long long> n = counts.to_host(kClasses);
  for (int c = 0; c < kClasses; ++c) plan.count[c] = static_cast<std::int64_t>(n[c]);
}

// The hash bins of one phase: groups of 8 lanes for the two smallest tables, warps above.
template <class T, bool kNumeric, int... kBins>
void launch_hash_bins(std::integer_sequence<int, kBins...>, const RowPlan& plan, const PoolCsr<T>& a,
                      const PoolCsr<T>& b, std::int64_t* row_nnz, std::uint8_t* row_class,
                      const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val, int device, cudaStream_t stream) {
  (launch_hash_rows<T, kNumeric, (hash_slots(kBins) <= 64 ? 8 : 32), hash_slots(kBins)>(
       plan.list(kBins), plan.count[kBins], a.view(), b.view(), row_nnz, row_class, c_row_ptr, c_col, c_val, device,
       stream),
   ...);
}
// The bins of rows up to 2,048 slots (one group each, short walks), then the largest bin, whose rows
// of up to kBinnedHashTryMaxProducts products each one warp walks (a stage of its own).
using SmallBins = std::integer_sequence<int, 1, 2, 3, 4, 5, 6, 7>;
using LargestBin = std::integer_sequence<int, 8>;
static_assert(kHashBins == 8, "SmallBins and LargestBin list the bins");

// Rows tried in the largest table, so many that its shared memory is what limits the warps per SM
// (fem_mesh P2 with three dofs per node: 59K rows of ~790 columns in 4,096 keys, 12 warps per SM): the
// symbolic pass tries 2,048 slots first, the numeric pass sizes tables in steps of 1.5x.
bool many_wide_rows(const RowPlan& plan, int compact_tables, int device) {
  if (compact_tables >= 0) return compact_tables > 0;
  return plan.count[kHashBins] >= tuning::spgemm::kBinnedCompactTablesMinRowsPerSm * device_props(device).sm_count;
}

// The merged rows (one thread each), short and long rows of A.
// merge_step: SpgemmOptions::merge_step (numeric pass only).
template <class T, bool kNumeric>
void launch_merges(const RowPlan& plan, const PoolCsr<T>& a, const PoolCsr<T>& b, std::int64_t* row_nnz,
                   const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val, int merge_step, int device,
                   cudaStream_t stream) {
  launch_merge_rows<T, kNumeric, kMergeShortEntries>(plan.list(kMergeShort), plan.count[kMergeShort], a.view(),
                                                     b.view(), row_nnz, c_row_ptr, c_col, c_val, merge_step, device,
                                                     stream);
  launch_merge_rows<T, kNumeric, kMergeLongEntries>(plan.list(kMergeLong), plan.count[kMergeLong], a.view(), b.view(),
                                                    row_nnz, c_row_ptr, c_col, c_val, merge_step, device, stream);
}

// Symbolic: every window, its count and (window_bits given) its bitmap. Numeric: with the bitmaps, the
// windows in tiers by their count (compact accumulators of 256 and 1,024 slots, then dense); without,
// all dense.
template <class T, bool kNumeric>
void launch_windows(const RowPlan& plan, const std::int64_t* window_offsets, std::int64_t windows,
                    const PoolCsr<T>& a, const PoolCsr<T>& b, const WindowEntry* entries, std::int64_t* window_count,
                    unsigned* window_bits, const std::int64_t* window_scan, const std::int64_t* c_row_ptr,
                    std::int32_t* c_col, T* c_val, int device, cudaStream_t stream) {
  if (windows == 0) return;
  const std::int64_t* rows = plan.list(kWindowed);
  const std::int64_t n = plan.count[kWindowed];
  auto dense = [&](const std::int64_t* list, std::int64_t items) {
    window_rows_kernel<T, kNumeric><<<spgemm_grid(items, 32, device, kWindowWarps * 32), kWindowWarps * 32, 0,
                                      stream>>>(list, items, rows, n, window_offsets, plan.first_col.get(), a.view(),
                                                b.view(), entries, window_count, window_bits, window_scan, c_row_ptr,
                                                c_col, c_val);
    SPKIT_LAUNCH_CHECK("window_rows_kernel");
  };
  if (!kNumeric || window_bits == nullptr) return dense(nullptr, windows);
  PoolBuffer<std::int64_t> lists(static_cast<std::size_t>(windows) * kWindowTiers, "window tiers", stream);
  PoolBuffer<unsigned long long> counts(kWindowTiers, "window tier sizes", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, kWindowTiers * sizeof(unsigned long long), stream));
  window_tiers_kernel<<<spgemm_grid(windows, 1, device), kSpgemmThreads, 0, stream>>>(windows, window_scan,
                                                                                     lists.get(), counts.get());
  SPKIT_LAUNCH_CHECK("window_tiers_kernel");
  const std::vector<unsigned long long> tier = counts.to_host(kWindowTiers);
  auto compact = [&](auto kernel, int t) {
    const auto items = static_cast<std::int64_t>(tier[t]);
    if (items == 0) return;
    kernel<<<spgemm_grid(items, 32, device, kWindowWarps * 32), kWindowWarps * 32, 0, stream>>>(
        lists.get() + t * windows, items, rows, n, window_offsets, plan.first_col.get(), a.view(), b.view(), entries,
        window_bits, window_scan, c_row_ptr, c_col, c_val);
    SPKIT_LAUNCH_CHECK("window_rows_compact_kernel");
  };
  compact(window_rows_compact_kernel<T, kWindowCompactSmall>, 0);
  compact(window_rows_compact_kernel<T, kWindowCompactLarge>, 1);
  if (tier[2] > 0) dense(lists.get() + 2 * windows, static_cast<std::int64_t>(tier[2]));
}

template <class T>
PoolCsrProduct<T> binned_product(const PoolCsr<T>& a, const PoolCsr<T>& b, const detail::StageMarks& marks,
                                 bool discard, int compact, int merge_step, int device, cudaStream_t stream) {
  const std::int64_t rows = a.rows;
  marks.device("analysis");
  RowPlan plan;
  plan.rows = rows;
  const auto n_rows = static_cast<std::size_t>(rows);
  plan.products = PoolBuffer<std::int64_t>(n_rows, "row products", stream);
  plan.first_col = PoolBuffer<std::int32_t>(n_rows, "first columns of C's rows", stream);
  plan.last_col = PoolBuffer<std::int32_t>(n_rows, "last columns of C's rows", stream);
  plan.row_class = PoolBuffer<std::uint8_t>(n_rows, "row classes", stream);
  plan.lists = PoolBuffer<std::int64_t>(n_rows * kClasses, "row bins", stream);
  if (rows > 0) {
    analyse_rows_kernel<T><<<spgemm_grid(rows, 32, device), kSpgemmThreads, 0, stream>>>(
        a.view(), b.view(), rows, plan.products.get(), plan.first_col.get(), plan.last_col.get(),
        plan.row_class.get());
    SPKIT_LAUNCH_CHECK("analyse_rows_kernel");
  }
  bin_rows(plan, nullptr, false, false, device, stream);

  marks.device("symbolic");
  PoolBuffer<std::int64_t> row_nnz(n_rows + 1, "row lengths of C", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(row_nnz.get(), 0, (n_rows + 1) * sizeof(std::int64_t), stream));
  launch_merges<T, false>(plan, a, b, row_nnz.get(), nullptr, nullptr, nullptr, merge_step, device, stream);
  launch_hash_bins<T, false>(SmallBins{}, plan, a, b, row_nnz.get(), plan.row_class.get(), nullptr, nullptr,
                             nullptr, device, stream);
  marks.device("symbolic 4096-slot rows");
  const bool compact_tables = many_wide_rows(plan, compact, device);
  if (compact_tables) {
    launch_hash_rows<T, false, 32, hash_slots(kHashBins - 1), kRetryInLargestTable>(
        plan.list(kHashBins), plan.count[kHashBins], a.view(), b.view(), row_nnz.get(), plan.row_class.get(), nullptr,
        nullptr, nullptr, device, stream);
    bin_rows(plan, nullptr, false, false, device, stream);
    launch_hash_rows<T, false, 32, hash_slots(kHashBins)>(plan.list(kRetryInLargestTable),
                                                          plan.count[kRetryInLargestTable], a.view(), b.view(),
                                                          row_nnz.get(), plan.row_class.get(), nullptr, nullptr,
                                                          nullptr, device, stream);
  } else {
    launch_hash_bins<T, false>(LargestBin{}, plan, a, b, row_nnz.get(), plan.row_class.get(), nullptr, nullptr,
                               nullptr, device, stream);
  }
  marks.device("rebin, hub rows");
  // Rows that overflowed the tried table are windowed now; hash rows go to bins by their column count.
  bin_rows(plan, row_nnz.get(), true, compact_tables, device, stream);
  const std::int64_t n_windowed = plan.count[kWindowed];
  PoolBuffer<std::int64_t> window_offsets(static_cast<std::size_t>(n_windowed) + 1, "window offsets", stream);
  std::int64_t windows = 0;
  PoolBuffer<std::int64_t> window_count, window_scan;
  PoolBuffer<unsigned> window_bits;  // symbolic bitmaps of the windows (the compact numeric tiers)
  PoolBuffer<WindowEntry> entries;  // indexed like A's entries (windows read those of their rows)
  PoolBuffer<std::int64_t> entry_offsets;  // expanded entries of the windowed rows
  // Hub rows expanded and sorted, with keys of 32 bits where (row, column) fits them.
  ExpandedRows<T, std::uint32_t> expanded32;
  ExpandedRows<T, std::uint64_t> expanded64;
  if (n_windowed > 0) {
    const auto n_w1 = static_cast<std::size_t>(n_windowed) + 1;
    PoolBuffer<std::int64_t> per_row(n_w1, "windows per row", stream);
    PoolBuffer<std::int64_t> expanded(n_w1, "entries to expand per row", stream);
    row_windows_kernel<<<spgemm_grid(n_windowed + 1, 1, device), kSpgemmThreads, 0, stream>>>(
        plan.list(kWindowed), n_windowed, plan.first_col.get(), plan.last_col.get(), plan.products.get(),
        a.row_ptr.get(), per_row.get(), expanded.get());
    SPKIT_LAUNCH_CHECK("row_windows_kernel");
    entry_offsets = PoolBuffer<std::int64_t>(n_w1, "expanded entry offsets", stream);
    for (const auto& scan : {std::pair{&per_row, &window_offsets}, std::pair{&expanded, &entry_offsets}}) {
      cub_run(stream, "scan of windows and expanded entries per row", [&](void* tmp, std::size_t& bytes) {
        return cub::DeviceScan::ExclusiveSum(tmp, bytes, scan.first->get(), scan.second->get(), n_windowed + 1,
                                             stream);
      });
    }
    PoolBuffer<std::int64_t> totals(2, "windows, expanded entries", stream);
    SPKIT_CUDA_CHECK(cudaMemcpyAsync(totals.get(), window_offsets.get() + n_windowed, sizeof(std::int64_t),
                                     cudaMemcpyDeviceToDevice, stream));
    SPKIT_CUDA_CHECK(cudaMemcpyAsync(totals.get() + 1, entry_offsets.get() + n_windowed, sizeof(std::int64_t),
                                     cudaMemcpyDeviceToDevice, stream));
    const std::vector<std::int64_t> t = totals.to_host(2);  // one round trip for both
    windows = t[0];
    if (windows > 0) {
      entries =
          PoolBuffer<WindowEntry>(static_cast<std::size_t>(a.nnz), "rows of B per entry of windowed rows", stream);
      window_entries_kernel<T><<<spgemm_grid(a.nnz, 1, device), kSpgemmThreads, 0, stream>>>(a.nnz, a.view(),
                                                                                           b.view(), entries.get());
      SPKIT_LAUNCH_CHECK("window_entries_kernel");
    }
    if (t[1] > 0) {
      const int col_bits = std::max(1, bit_width(static_cast<std::uint64_t>(b.cols - 1)));
      if (col_bits + bit_width(static_cast<std::uint64_t>(n_windowed)) <= 32)
        expanded32 = expand_rows<T, std::uint32_t>(plan.list(kWindowed), n_windowed, entry_offsets.get(), t[1],
                                                   col_bits, a.view(), b.view(), row_nnz.get(), device, stream);
      else
        expanded64 = expand_rows<T, std::uint64_t>(plan.list(kWindowed), n_windowed, entry_offsets.get(), t[1],
                                                   col_bits, a.view(), b.view(), row_nnz.get(), device, stream);
    }
  }
  marks.device("symbolic windows");
  if (n_windowed > 0) {
    const auto n_win = static_cast<std::size_t>(windows) + 1;
    window_count = PoolBuffer<std::int64_t>(n_win, "columns per window", stream);
    window_scan = PoolBuffer<std::int64_t>(n_win, "window offsets in C", stream);
    SPKIT_CUDA_CHECK(cudaMemsetAsync(window_count.get(), 0, n_win * sizeof(std::int64_t), stream));
    // The bitmaps (256 B a window) for the compact numeric tiers, where they take little of the memory
    // left; otherwise every window accumulates densely.
    const std::uint64_t bits_bytes = static_cast<std::uint64_t>(windows) * (kWindowWords * 4 + kWindowTiers * 8);
    if (fits_spgemm_device(bits_bytes * tuning::spgemm::kBinnedWindowBitsShare))
      window_bits = PoolBuffer<unsigned>(static_cast<std::size_t>(windows) * kWindowWords, "window bitmaps", stream);
    launch_windows<T, false>(plan, window_offsets.get(), windows, a, b, entries.get(), window_count.get(),
                             window_bits.get(), nullptr, nullptr, nullptr, nullptr, device, stream);
    cub_run(stream, "scan of window counts", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceScan::ExclusiveSum(tmp, bytes, window_count.get(), window_scan.get(), windows + 1, stream);
    });
    window_row_nnz_kernel<<<spgemm_grid(n_windowed, 1, device), kSpgemmThreads, 0, stream>>>(
        plan.list(kWindowed), n_windowed, window_offsets.get(), window_scan.get(), row_nnz.get());
    SPKIT_LAUNCH_CHECK("window_row_nnz_kernel");
  }
  PoolCsrProduct<T> c;
  c.row_ptr = PoolBuffer<std::int64_t>(n_rows + 1, "C row_ptr", stream);
  cub_run(stream, "scan of row lengths", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, row_nnz.get(), c.row_ptr.get(), rows + 1, stream);
  });
  c.nnz = read_device_value(c.row_ptr.get() + rows, stream);

  marks.device("numeric");
  check_spgemm_fits(static_cast<std::uint64_t>(c.nnz) * (4 + sizeof(T)),
                    std::string(kName) + ": C with " + std::to_string(c.nnz) + " non-zeros");
  c.col_idx = PoolBuffer<std::int32_t>(static_cast<std::size_t>(c.nnz), "C col_idx", stream);
  c.values = PoolBuffer<T>(static_cast<std::size_t>(c.nnz), "C values", stream);
  launch_merges<T, true>(plan, a, b, nullptr, c.row_ptr.get(), c.col_idx.get(), c.values.get(), merge_step, device,
                         stream);
  launch_hash_bins<T, true>(SmallBins{}, plan, a, b, nullptr, nullptr, c.row_ptr.get(), c.col_idx.get(),
                            c.values.get(), device, stream);
  launch_hash_rows<T, true, 32, kHashMidSmallSlots>(plan.list(kHashMidSmall), plan.count[kHashMidSmall], a.view(),
                                                    b.view(), nullptr, nullptr, c.row_ptr.get(), c.col_idx.get(),
                                                    c.values.get(), device, stream);
  marks.device("numeric 4096-slot rows");
  launch_hash_rows<T, true, 32, kHashMidLargeSlots>(plan.list(kHashMidLarge), plan.count[kHashMidLarge], a.view(),
                                                    b.view(), nullptr, nullptr, c.row_ptr.get(), c.col_idx.get(),
                                                    c.values.get(), device, stream);
  launch_hash_bins<T, true>(LargestBin{}, plan, a, b, nullptr, nullptr, c.row_ptr.get(), c.col_idx.get(),
                            c.values.get(), device, stream);
  marks.device("numeric windows, hub rows");
  launch_windows<T, true>(plan, window_offsets.get(), windows, a, b, entries.get(), nullptr, window_bits.get(),
                          window_scan.get(), c.row_ptr.get(), c.col_idx.get(), c.values.get(), device, stream);
  expanded_rows_numeric(expanded32, plan.list(kWindowed), c.row_ptr.get(), c.col_idx.get(), c.values.get(), device,
                        stream);
  expanded_rows_numeric(expanded64, plan.list(kWindowed), c.row_ptr.get(), c.col_idx.get(), c.values.get(), device,
                        stream);
  end_product_stages(marks, discard);
  return c;
}

// The kernels find a column's window and B's row segments by binary search: B's rows must be sorted,
// without duplicates (the CSR contract; checked here rather than producing a wrong C).
template <class T>
void require_sorted_rows(const Csr<T>& m, const char* which) {
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t p = m.row_ptr[i] + 1; p < m.row_ptr[i + 1]; ++p)
      if (m.col_idx[p - 1] >= m.col_idx[p])
        throw Error(std::string(kName) + ": row " + std::to_string(i) + " of " + which +
                    " has unsorted or repeated columns (CSR rows must be strictly increasing)");
}

template <class T>
SpgemmResult<T> run_csr_binned(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& o) {
  require_product_shapes(a, b, kName);
  set_device(o.device);
  const cudaStream_t stream = cuda_stream(o.stream);
  const detail::StageMarks marks(o);
  marks.host("upload", false);
  require_sorted_rows(b, "B");
  const PoolOperands<T> in =
      upload_operands(a, b, kName, 8 * kClasses + 8 + 8 + 4 + 4 + 1, "the row analysis", stream);
  PoolCsrProduct<T> c = binned_product(in.a, in.b(), marks, o.discard_result, o.compact_tables, o.merge_step,
                                      o.device, stream);
  return finish_csr_product(c, a.rows, b.cols,
                            "short rows merged one thread each, hash bins of 32-4096 shared slots, dense windows of " +
                                std::to_string(kWindowColumns) + " columns for wide rows, deterministic",
                            marks, o, stream);
}

}  // namespace

void register_csr_binned_spgemm_kernel(SpgemmRegistry& reg) {
  SpgemmKernelInfo k;
  k.name = kName;
  k.format = Format::csr;
  k.backend = Backend::cuda;
  k.description =
      "Gustavson's row-wise product on CSR for irregular rows: rows binned by products and output column range "
      "(Parger et al.'s spECK analysis; Nagasaka et al.'s nsparse and Du et al.'s OpSparse hash bins), a "
      "thread's merge of B's rows for short rows, shared hash tables or dense column windows per row, "
      "expand-sort-compress for hub rows over short rows of B; deterministic, symbolic + numeric";
  k.run_f32 = [](const Csr<float>& a, const Csr<float>& b, const SpgemmOptions& o) { return run_csr_binned(a, b, o); };
  k.run_f64 = [](const Csr<double>& a, const Csr<double>& b, const SpgemmOptions& o) {
    return run_csr_binned(a, b, o);
  };
  reg.add(std::move(k));
}

}  // namespace spkit::cuda
