// CUDA binned CSR (ours): rows binned by length at plan time and stored in bin order, one fused launch
// (csr_binned_kernel.cuh) with sub-warp bins of 2-32 lanes, tiles of whole-line loads for rows of 16-1024
// non-zeros, warp streams for the shortest rows (cuda.csr.binned_stream) and long rows in chunks;
// cuda.csr.binned_degree also renumbers the columns by use.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/csr_binned_kernel.cuh"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

// How the binned plan numbers the columns it gathers x through.
enum class ColumnOrder {
  as_given,   // x as the caller passes it
  by_degree,  // columns renumbered by falling non-zero count; x gathered into that order once per product,
              // so the most used entries of x share cache lines (skewed graphs: hubs)
};

template <class T>
class CsrBinnedPlan : public CudaSpmvPlan<T> {
 public:
  CsrBinnedPlan(const Csr<T>& a, const PlanOptions& o, ColumnOrder order = ColumnOrder::as_given,
                bool stream_short = false)
      : CudaSpmvPlan<T>(a, o), order_(order), stream_short_(stream_short) {
    static_assert(kBinnedThreads == kChunkThreads, "the fused launch runs chunk blocks with its own block size");
    if (this->rows_ == 0 || this->nnz_ == 0) return;
    if (this->rows_ > std::numeric_limits<std::int32_t>::max())
      throw NotApplicable("binned CSR keeps 32-bit row ids; " + std::to_string(this->rows_) + " rows");

    // Each row into its bin, in increasing row order; long rows on their own.
    std::vector<std::int32_t> lists[kBins];
    for (std::int64_t i = 0; i < a.rows; ++i) {
      const std::int64_t len = a.row_length(i);
      const int bin = len > kBinnedLongRow ? kLongBin : len == 0 ? kEmptyBin : binned_class(len);
      lists[bin].push_back(static_cast<std::int32_t>(i));
    }
    std::vector<std::int32_t> renumber;  // by_degree: new number of each column
    std::vector<std::int32_t> stream_warp_row_host;  // stream mode: each warp's first row in bin 5 (+1 entry)
    if (order_ == ColumnOrder::by_degree) renumber = renumber_by_degree(a);

    // The data in bin order: short rows (bins 1..5), then long rows.
    std::vector<std::int64_t> row_ptr{0};
    std::vector<std::int32_t> out_row, col_idx;
    std::vector<T> values;
    col_idx.reserve(static_cast<std::size_t>(a.nnz()));
    values.reserve(static_cast<std::size_t>(a.nnz()));
    auto append_row = [&](std::int32_t r) {
      for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j)
        col_idx.push_back(renumber.empty() ? a.col_idx[j] : renumber[static_cast<std::size_t>(a.col_idx[j])]);
      values.insert(values.end(), a.values.begin() + a.row_ptr[r], a.values.begin() + a.row_ptr[r + 1]);
    };
    std::int64_t block = 0;
    for (int b = 0; b < kBins; ++b) {
      bins_.first_block[b] = block;
      bins_.first_row[b] = static_cast<std::int64_t>(out_row.size());
      bins_.count[b] = static_cast<std::int64_t>(lists[b].size());
      if (b == kLongBin) continue;  // stored after the short rows, below
      for (const std::int32_t r : lists[b]) {
        out_row.push_back(r);
        if (b == kEmptyBin) continue;
        append_row(r);
        row_ptr.push_back(static_cast<std::int64_t>(col_idx.size()));
      }
      if (b == 5 && stream_short_) {
        // Warp groups: consecutive rows while they hold <= kStreamEntries non-zeros and <= kWarp rows.
        const std::int64_t base = bins_.first_row[5];
        std::vector<std::int32_t> warp_row{0};
        for (std::int64_t i = 0; i < bins_.count[5]; ++i) {
          const std::int64_t start = warp_row.back();
          const std::int64_t entries = row_ptr[static_cast<std::size_t>(base + i + 1)] - row_ptr[static_cast<std::size_t>(base + start)];
          if (entries > kStreamEntries || i - start >= kWarp) warp_row.push_back(static_cast<std::int32_t>(i));
        }
        if (bins_.count[5] > 0) warp_row.push_back(static_cast<std::int32_t>(bins_.count[5]));
        else warp_row.clear();
        stream_warps_ = warp_row.empty() ? 0 : static_cast<std::int64_t>(warp_row.size()) - 1;
        bins_.count[5] = stream_warps_;  // the kernel's count for this bin: warps
        if (!warp_row.empty()) stream_warp_row_ = DeviceBuffer<std::int32_t>(warp_row, "binned CSR stream warps");
        stream_warp_row_host = warp_row;
        block += (stream_warps_ + kBinnedThreads / kWarp - 1) / (kBinnedThreads / kWarp);
        continue;
      }
      // Rows per block: a row per thread in the empty bin, kBinnedThreads / (64 >> b) in sub-warp bin b.
      const std::int64_t per_block = b == kEmptyBin ? kBinnedThreads : kBinnedThreads / (64 >> b);
      block += (bins_.count[b] + per_block - 1) / per_block;
    }
    // Long rows: chunks, placed first in the grid.
    std::vector<std::int64_t> chunk_begin, chunk_end;
    std::vector<std::int32_t> chunk_long_row, long_first_chunk{0};
    const std::vector<std::int32_t>& long_rows = lists[kLongBin];
    for (std::size_t r = 0; r < long_rows.size(); ++r) {
      const auto begin = static_cast<std::int64_t>(col_idx.size());
      append_row(long_rows[r]);
      const auto end = static_cast<std::int64_t>(col_idx.size());
      for_each_chunk(begin, end, [&](std::int64_t b, std::int64_t e) {
        chunk_begin.push_back(b);
        chunk_end.push_back(e);
        chunk_long_row.push_back(static_cast<std::int32_t>(r));
      });
      if (chunk_begin.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
        throw NotApplicable("binned CSR: more than 2^31 long-row chunks");
      long_first_chunk.push_back(static_cast<std::int32_t>(chunk_begin.size()));
    }
    chunks_ = static_cast<std::int64_t>(chunk_begin.size());
    for (int b = 1; b <= kBins; ++b) bins_.first_block[b] = (b < kBins ? bins_.first_block[b] : block) + chunks_;
    blocks_ = block + chunks_;
    blocks_for(blocks_, 1, this->props());  // checks the grid limit
    // Runs (measured, H100, 13 families x 2 precisions: binned 1.013x in geometric mean, 0.99-1.04x;
    // binned_stream 1.028x, 0.98-1.08x, the most on roads and stencils): per block of bins 1..5, whether
    // its rows' ids are consecutive.
    std::vector<std::int32_t> block_run(static_cast<std::size_t>(blocks_), kNoRun);
    for (int b = 1; b <= 5; ++b) {
      for (std::int64_t blk = bins_.first_block[b]; blk < bins_.first_block[b + 1]; ++blk) {
        const std::int64_t local = blk - bins_.first_block[b];
        std::int64_t lo, hi;  // the block's rows: out_row indices [lo, hi)
        if (b == 5 && stream_short_) {
          const std::int64_t w0 = local * (kBinnedThreads / kWarp), w1 = std::min(bins_.count[5], w0 + kBinnedThreads / kWarp);
          lo = bins_.first_row[5] + stream_warp_row_host[static_cast<std::size_t>(w0)];
          hi = bins_.first_row[5] + stream_warp_row_host[static_cast<std::size_t>(w1)];
        } else {
          const std::int64_t per_block = kBinnedThreads / (64 >> b);
          lo = bins_.first_row[b] + local * per_block;
          hi = bins_.first_row[b] + std::min(bins_.count[b], (local + 1) * per_block);
        }
        bool consecutive = hi > lo;
        for (std::int64_t k = lo + 1; k < hi && consecutive; ++k)
          consecutive = out_row[static_cast<std::size_t>(k)] == out_row[static_cast<std::size_t>(k - 1)] + 1;
        if (consecutive) {
          block_run[static_cast<std::size_t>(blk)] = static_cast<std::int32_t>(out_row[static_cast<std::size_t>(lo)] - lo);
          run_rows_ += hi - lo;
        }
      }
    }
    block_run_ = DeviceBuffer<std::int32_t>(block_run, "binned CSR block runs");

    narrow_ = this->nnz_ <= std::numeric_limits<std::int32_t>::max();
    if (narrow_) row_ptr32_ = DeviceBuffer<std::int32_t>(std::vector<std::int32_t>(row_ptr.begin(), row_ptr.end()),
                                                         "binned CSR row_ptr (32-bit)");
    else row_ptr64_ = DeviceBuffer<std::int64_t>(row_ptr, "binned CSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(col_idx, "binned CSR col_idx");
    values_ = DeviceBuffer<T>(values, "binned CSR values");
    if (!out_row.empty()) out_row_ = DeviceBuffer<std::int32_t>(out_row, "binned CSR row ids");
    if (chunks_ > 0) {
      chunk_begin_ = DeviceBuffer<std::int64_t>(chunk_begin, "long-row chunk starts");
      chunk_end_ = DeviceBuffer<std::int64_t>(chunk_end, "long-row chunk ends");
      chunk_long_row_ = DeviceBuffer<std::int32_t>(chunk_long_row, "long-row chunk rows");
      long_first_chunk_ = DeviceBuffer<std::int32_t>(long_first_chunk, "long-row first chunks");
      long_out_row_ = DeviceBuffer<std::int32_t>(long_rows, "long rows");
      long_ticket_ = DeviceBuffer<unsigned>(std::vector<unsigned>(long_rows.size(), 0u), "long-row tickets");
      partial_ = DeviceBuffer<T>(static_cast<std::size_t>(chunks_), "long-row chunk partial sums");
    }
    if (!renumber.empty()) {
      std::vector<std::int32_t> column_of(renumber.size());
      for (std::size_t c = 0; c < renumber.size(); ++c) column_of[static_cast<std::size_t>(renumber[c])] = static_cast<std::int32_t>(c);
      column_of_ = DeviceBuffer<std::int32_t>(column_of, "binned CSR column order");
      x_renumbered_ = DeviceBuffer<T>(column_of.size(), "binned CSR x in column order");
    }
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    if (column_of_.get()) {
      const unsigned blocks = static_cast<unsigned>(blocks_for(this->cols_, 256, this->props()));
      gather_columns_kernel<T><<<blocks, 256, 0, s>>>(this->cols_, column_of_.get(), x, x_renumbered_.get());
      SPKIT_LAUNCH_CHECK("gather_columns_kernel");
      x = x_renumbered_.get();
    }
    if (narrow_) launch<std::int32_t>(row_ptr32_.get(), alpha, x, beta, y, s);
    else launch<std::int64_t>(row_ptr64_.get(), alpha, x, beta, y, s);
  }
  std::uint64_t bytes_moved() const override {
    const auto long_rows = static_cast<std::uint64_t>(bins_.count[kLongBin]);
    // CSR bytes with the short rows' offsets, + the 4-byte row ids of the rows outside runs and a run entry
    // per block, + the chunk tables and partials,
    // + (by_degree) the gather of x: the column order read, x read and written in the new order,
    // + (stream mode) the warps' row table.
    std::uint64_t bytes = this->csr_bytes(narrow_ ? 4 : 8) + static_cast<std::uint64_t>(this->rows_ - run_rows_) * 4 +
                          static_cast<std::uint64_t>(blocks_) * 4 +
                          static_cast<std::uint64_t>(chunks_) * (20 + 2 * sizeof(T)) + long_rows * 12;
    if (column_of_.get()) bytes += static_cast<std::uint64_t>(this->cols_) * (4 + 2 * sizeof(T));
    bytes += static_cast<std::uint64_t>(stream_warps_) * 4;  // stream mode: each warp's first row
    return bytes;
  }
  std::string detail() const override {
    std::string s = stream_short_ ? "rows per bin (32/16/8/4 lanes; warp streams; empty):"
                                  : "rows per bin (32/16/8/4/2 lanes, empty):";
    for (int b = 1; b < kBins; ++b) s += " " + std::to_string(bins_.count[b]) + (b == 5 && stream_short_ ? " warps" : "");
    return s + "; " + std::to_string(bins_.count[kLongBin]) + " rows > " + std::to_string(kBinnedLongRow) + " nz in " +
           std::to_string(chunks_) + " chunks of " + std::to_string(kChunkNnz) + "; " + (narrow_ ? "32" : "64") +
           "-bit row_ptr; rows stored in bin order (" + std::to_string(run_rows_) + " in runs of consecutive ids)" +
           (order_ == ColumnOrder::by_degree ? "; columns renumbered by non-zero count" : "");
  }

 private:
  template <class Off>
  void launch(const Off* row_ptr, T alpha, const T* x, T beta, T* y, cudaStream_t stream) const {
    const BinnedArgs<T, Off> args{bins_,
                                  row_ptr,
                                  out_row_.get(),
                                  col_idx_.get(),
                                  values_.get(),
                                  chunk_begin_.get(),
                                  chunk_end_.get(),
                                  chunk_long_row_.get(),
                                  long_first_chunk_.get(),
                                  long_out_row_.get(),
                                  long_ticket_.get(),
                                  partial_.get(),
                                  stream_warp_row_.get(),
                                  block_run_.get()};
    const unsigned grid = static_cast<unsigned>(blocks_);
    if (stream_short_) csr_binned_kernel<T, Off, true><<<grid, kBinnedThreads, 0, stream>>>(args, alpha, x, beta, y);
    else csr_binned_kernel<T, Off, false><<<grid, kBinnedThreads, 0, stream>>>(args, alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("csr_binned_kernel");
  }
  // Bin 1..5 of a non-empty row: 64 >> bin = the lanes csr_subwarp_kernel would give a matrix of this mean.
  static int binned_class(std::int64_t len) {
    const int lanes = subwarp_lanes(static_cast<double>(len));
    int bin = 1;
    while ((64 >> bin) > lanes) ++bin;
    return bin;
  }
  // New number of each column: by falling non-zero count, ties by column (a counting sort, O(nnz + cols)).
  static std::vector<std::int32_t> renumber_by_degree(const Csr<T>& a) {
    std::vector<std::int64_t> count(static_cast<std::size_t>(a.cols), 0);
    for (const std::int32_t c : a.col_idx) ++count[static_cast<std::size_t>(c)];
    const std::int64_t max_count = count.empty() ? 0 : *std::max_element(count.begin(), count.end());
    std::vector<std::int64_t> start(static_cast<std::size_t>(max_count) + 2, 0);  // by falling count
    for (const std::int64_t n : count) ++start[static_cast<std::size_t>(max_count - n) + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    std::vector<std::int32_t> renumber(count.size());
    for (std::size_t c = 0; c < count.size(); ++c)
      renumber[c] = static_cast<std::int32_t>(start[static_cast<std::size_t>(max_count - count[c])]++);
    return renumber;
  }
  ColumnOrder order_ = ColumnOrder::as_given;
  bool stream_short_ = false;
  std::int64_t run_rows_ = 0;  // rows whose ids come from their block's run (no out_row read)
  DeviceBuffer<std::int32_t> block_run_;
  std::int64_t stream_warps_ = 0;
  DeviceBuffer<std::int32_t> stream_warp_row_;
  bool narrow_ = true;
  std::int64_t blocks_ = 0, chunks_ = 0;
  BinTable bins_{};
  DeviceBuffer<std::int32_t> row_ptr32_;
  DeviceBuffer<std::int64_t> row_ptr64_, chunk_begin_, chunk_end_;
  DeviceBuffer<std::int32_t> col_idx_, out_row_, chunk_long_row_, long_first_chunk_, long_out_row_, column_of_;
  DeviceBuffer<unsigned> long_ticket_;
  DeviceBuffer<T> values_, partial_, x_renumbered_;
};

template <class T>
class CsrBinnedByDegreePlan : public CsrBinnedPlan<T> {
 public:
  CsrBinnedByDegreePlan(const Csr<T>& a, const PlanOptions& o) : CsrBinnedPlan<T>(a, o, ColumnOrder::by_degree) {}
};

template <class T>
class CsrBinnedStreamPlan : public CsrBinnedPlan<T> {
 public:
  CsrBinnedStreamPlan(const Csr<T>& a, const PlanOptions& o) : CsrBinnedPlan<T>(a, o, ColumnOrder::as_given, true) {}
};

// Binned cost: CSR bytes with 32-bit row offsets + the 4-byte row list. Long rows are split, so no serial
// term. docs/perf/cuda-csr-binned.md has the expectation these numbers come from.
CostEstimate csr_binned_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = s.nnz > 0 && s.rows <= std::numeric_limits<std::int32_t>::max();
  const bool narrow = s.nnz <= std::numeric_limits<std::int32_t>::max();
  e.bytes = cost::csr_bytes(s, p, narrow ? 4 : 8) + static_cast<std::uint64_t>(s.rows) * 4;
  // Measured (H100, 16M nnz, rows stored in bin order): predicted within ~5% of the time on circuit,
  // power-law, rmat, geometric and fem_mesh with these figures: a little under cuda.csr.subwarp's
  // 95% / 89% on regular rows, the same drop below 4 per row, up to 9% less on mixed row lengths;
  // x gathers folded in as for every kernel.
  const bool f64 = p == Precision::f64;
  double eff = f64 ? tuning::kCudaBinnedEfficiency.f64 : tuning::kCudaBinnedEfficiency.f32;
  if (s.row_nnz_mean < 4) eff *= f64 ? tuning::kCudaBinnedShortRowFactor.f64 : tuning::kCudaBinnedShortRowFactor.f32;
  // Rows of 16-1024 non-zeros run in tiles with whole-line loads: measured 1.25-1.29x (fp64) and 1.10-1.19x
  // (fp32) the kernel before on fem, fem_mesh and lap3d 27-pt (mean row 21-44), so 1.25 / 1.11 from a mean of 16.
  if (s.row_nnz_mean >= 16) eff *= f64 ? tuning::kCudaBinnedTileGain.f64 : tuning::kCudaBinnedTileGain.f32;
  eff /= 1 + 0.02 * std::min(cost::row_irregularity(s), 5.0);
  e.efficiency = cost::with_gathers(eff, e.bytes, s, Backend::cuda);
  e.launch_us = 5;  // one launch; long rows are finished by their last chunk's block
  e.note = "rows binned by length, long rows in chunks of " + std::to_string(kChunkNnz);
  return e;
}

// Warp streams for the rows under 16 non-zeros: a warp's lanes stay busy whatever the mix of short lengths
// (binned's 2-lane groups wait for the longest row of their warp), and since the streams load with
// evict-first hints (above), x stays in L2. Measured against binned in the same runs (H100, 16M nnz, two
// rounds): mean row under 16 and few empty rows: 1.02-1.21x in fp64 (geometric 1.04, random 1.16, road
// 1.21, circuit 1.33), 1.01-1.4x in fp32; mean row of 16 or more (fem_mesh, lap3d 27-pt): 0.95-1.0x; many
// empty rows (rmat, 47%: its short rows are 1-3 long): 0.98x. So 1.14 (the median) over binned where the
// mean row is short (binned's irregularity term lifted on top, circuit), 0.97 elsewhere. (A first fit of
// 1.10 left auto on cuda.csr.scalar for geometric fp32 and road_planar fp64, 4-7% slower there.) Fitted on
// the 13 generated families only.
CostEstimate csr_binned_stream_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e = csr_binned_cost(s, p, o);
  const bool few_empty = s.rows > 0 && static_cast<double>(s.empty_rows) < 0.1 * static_cast<double>(s.rows);
  const bool short_rows = s.row_nnz_mean < 16;
  e.efficiency *= !few_empty ? tuning::kCudaStreamEmptyRowGain
                             : (short_rows ? tuning::kCudaStreamShortRowGain : tuning::kCudaStreamLongRowGain) *
                                   (1 + 0.02 * std::min(cost::row_irregularity(s), 5.0));
  e.note = "rows binned by length, rows under 16 non-zeros as warp streams";
  return e;
}

// The same with columns renumbered by use: it pays only where a few columns carry much of the matrix
// (hub_column_share, the 1% most used columns); elsewhere the renumbering scatters columns that were
// near each other (measured 0.7-0.9x binned on power-law rows with uniform columns, circuit, stencils).
// Gain fitted on rmat (hub share 0.43), taken as rising linearly from a share of 0.25 and capped there. With the
// tiled sub-warp rows in both plans (H100, 16M nnz, 2026-11-24 night): 0.82x binned in fp64 (it was 1.06x
// before the tiles), 1.06x in fp32 (was 1.23x). So in fp64 the model never prefers it to binned.
CostEstimate csr_binned_degree_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e = csr_binned_cost(s, p, o);
  constexpr double kMinShare = 0.25, kFullShare = 0.4;
  if (s.hub_column_share < kMinShare) {
    e.applicable = false;
    e.note = "columns not skewed: the 1% most used hold " + cost::percent(s.hub_column_share) + " of the non-zeros";
    return e;
  }
  // The measured gain is in time and already pays for the gather of x, so the efficiency (bytes / time /
  // bandwidth) grows by the gain and by the gather's share of the bytes.
  const double vb = p == Precision::f64 ? 8 : 4;
  const auto gather = static_cast<std::uint64_t>(static_cast<double>(s.cols) * (4 + 2 * vb));
  if (gather * 4 > e.bytes) {  // the fit (rmat: 10% of the bytes) says nothing about a gather this large
    e.applicable = false;
    e.note = "gathering x would add more than a quarter of the matrix's bytes";
    return e;
  }
  const double full_gain = p == Precision::f64 ? tuning::kCudaBinnedDegreeGain.f64 : tuning::kCudaBinnedDegreeGain.f32;
  const double t = std::min(1.0, (s.hub_column_share - kMinShare) / (kFullShare - kMinShare));
  e.efficiency *= (1 + t * (full_gain - 1)) * static_cast<double>(e.bytes + gather) / static_cast<double>(e.bytes);
  e.bytes += gather;
  e.launch_us += 3;  // the gather launch
  e.note = "columns renumbered by use (1% hold " + cost::percent(s.hub_column_share) + " of the non-zeros)";
  return e;
}


}  // namespace

}  // namespace spkit::cuda

namespace spkit {

void register_cuda_csr_binned_kernels(Registry& reg) {
  using namespace cuda;
  const auto info = [](const char* name, std::string description, CostModel cost) {
    KernelInfo k;
    k.name = name;
    k.format = Format::csr;
    k.backend = Backend::cuda;
    k.description = std::move(description);
    k.cost = std::move(cost);
    return k;
  };
  add_kernel<CsrBinnedPlan>(reg, info("cuda.csr.binned",
                                      "CSR binned by row length, rows stored in bin order: one fused launch, sub-warp "
                                      "bins of 2-32 lanes, long rows in 2048-entry chunks summed in order by the last "
                                      "block (ours)",
                                      csr_binned_cost));
  add_kernel<CsrBinnedByDegreePlan>(reg, info("cuda.csr.binned_degree",
                                              "cuda.csr.binned with the columns renumbered by non-zero count, x gathered "
                                              "into that order per product: the hubs of skewed graphs share cache lines "
                                              "(ours)",
                                              csr_binned_degree_cost));
  add_kernel<CsrBinnedStreamPlan>(reg, info("cuda.csr.binned_stream",
                                            "cuda.csr.binned with the rows under 16 non-zeros run as warp streams (128 "
                                            "entries loaded by 32 lanes, products summed per row from shared memory, "
                                            "after Greathouse & Daga's CSR-stream): insensitive to mixed short rows (ours)",
                                            csr_binned_stream_cost));
}

}  // namespace spkit
