// CUDA bmSparse SpMV (Berger et al.'s bmSparse: 8x8 blocks with a 64-bit bitmap each): BASE (one CUDA block of 64 threads per block row; thread t holds
// element t of every 8x8 block of the row; groups of 8 threads reduce with shuffles) and BATCH
// (blocks of 32 x 8 threads; warp r handles matrix row r of the block row over 4 blocks at a time).
// Bitmap convention: element e = 8*r + c is present iff bit (63 - e) is set; its value sits at
// offsets[block] + popcount of the bits above it.
//
// cuda.bmsparse.warp (spkit's own) runs bmSparse + CSR remainder: blocks with at least
// kBmDenseBlockMinNnz entries stay 8x8 blocks in a compact layout (32-bit block column and 64-bit
// bitmap per block; one 64-bit block pointer and one 64-bit value pointer per block row; the value
// offset of each block is derived in the warp from a popcount prefix sum instead of being stored),
// and the entries of sparser blocks form a CSR remainder, summed in the same kernel (y written once).
// A lane-per-value variant (coalesced value loads, popcount search of each value's element) was
// measured 1.1-1.7x slower and removed (docs/perf/cuda-dia-bm.md).
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/bm_blocks.hpp"
#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "kernels/format_costs.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

// Position of element e among the block's stored values: number of set bits before it.
__device__ __forceinline__ int bitmap_position(std::uint64_t bitmap, int e) {
  return e == 0 ? 0 : __popcll(bitmap >> (64 - e));
}

template <class T>
__global__ void bmsparse_base_kernel(std::int64_t rows, const std::int64_t* __restrict__ block_row_ptr,
                                     const std::uint64_t* __restrict__ keys, const std::uint64_t* __restrict__ bitmaps,
                                     const std::int64_t* __restrict__ offsets, const T* __restrict__ values,
                                     T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  const int e = threadIdx.x;  // 0..63: element (e / 8, e % 8) of each block
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * 8 + e / 8;
  T sum = 0;
  for (std::int64_t b = block_row_ptr[blockIdx.x]; b < block_row_ptr[blockIdx.x + 1]; ++b) {
    const std::uint64_t bitmap = bitmaps[b];
    if ((bitmap >> (63 - e)) & 1u) {
      const std::int64_t col = static_cast<std::int64_t>(keys[b] & 0xffffffffu) * 8 + e % 8;
      sum += values[offsets[b] + bitmap_position(bitmap, e)] * x[col];
    }
  }
  sum = group_sum<8>(sum);  // groups of 8 lanes = one matrix row
  if (e % 8 == 0 && row < rows) store_axpby(y + row, alpha, sum, beta);
}

template <class T>
__global__ void bmsparse_batch_kernel(std::int64_t rows, const std::int64_t* __restrict__ block_row_ptr,
                                      const std::uint64_t* __restrict__ keys,
                                      const std::uint64_t* __restrict__ bitmaps,
                                      const std::int64_t* __restrict__ offsets, const T* __restrict__ values,
                                      T alpha, const T* __restrict__ x, T beta, T* __restrict__ y) {
  const int slot = threadIdx.x / 8;  // which of the 4 blocks of this batch
  const int c = threadIdx.x % 8;
  const int r = threadIdx.y;
  const int e = r * 8 + c;
  const std::int64_t first = block_row_ptr[blockIdx.x], last = block_row_ptr[blockIdx.x + 1];
  T sum = 0;
  for (std::int64_t b = first + slot; b < last; b += 4) {
    const std::uint64_t bitmap = bitmaps[b];
    if ((bitmap >> (63 - e)) & 1u) {
      const std::int64_t col = static_cast<std::int64_t>(keys[b] & 0xffffffffu) * 8 + c;
      sum += values[offsets[b] + bitmap_position(bitmap, e)] * x[col];
    }
  }
  sum = group_sum<32>(sum);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * 8 + r;
  if (threadIdx.x == 0 && row < rows) store_axpby(y + row, alpha, sum, beta);
}

template <class T>
struct DeviceBmSparse {
  std::int64_t block_rows = 0, blocks = 0;
  double nnz_per_block = 0;
  std::uint64_t bytes = 0;
  DeviceBuffer<std::int64_t> block_row_ptr, offsets;
  DeviceBuffer<std::uint64_t> keys, bitmaps;
  DeviceBuffer<T> values;
  DeviceBmSparse(const Csr<T>& a, const PlanOptions& o) {
    FormatLimits limits;
    limits.memory_budget_bytes = o.memory_budget_bytes;
    const BmSparse<T> bm = csr_to_bmsparse(a, limits);
    block_rows = bm.block_rows();
    blocks = bm.blocks();
    nnz_per_block = blocks > 0 ? double(bm.nnz()) / double(blocks) : 0.0;
    bytes = bm.memory_bytes();
    std::vector<std::int64_t> brp = bm.block_row_ptr;
    if (static_cast<std::int64_t>(brp.size()) != block_rows + 1) {  // derive it from the sorted keys
      brp.assign(static_cast<std::size_t>(block_rows) + 1, 0);
      for (std::uint64_t key : bm.keys) ++brp[static_cast<std::size_t>(BmSparse<T>::key_row(key)) + 1];
      for (std::int64_t i = 0; i < block_rows; ++i) brp[i + 1] += brp[i];
    }
    block_row_ptr = DeviceBuffer<std::int64_t>(brp, "bmSparse block_row_ptr");
    offsets = DeviceBuffer<std::int64_t>(bm.offsets, "bmSparse offsets");
    keys = DeviceBuffer<std::uint64_t>(bm.keys, "bmSparse keys");
    bitmaps = DeviceBuffer<std::uint64_t>(bm.bitmaps, "bmSparse bitmaps");
    values = DeviceBuffer<T>(bm.values, "bmSparse values");
  }
};

template <class T, bool BATCH>
class BmSparsePlan : public CudaSpmvPlan<T> {
 public:
  BmSparsePlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o), m_(a, o) {
    launch_.block = BATCH ? dim3(32, 8) : dim3(64);
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(m_.block_rows, 1, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    if (BATCH) {
      bmsparse_batch_kernel<T><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, m_.block_row_ptr.get(), m_.keys.get(),
                                                                      m_.bitmaps.get(), m_.offsets.get(),
                                                                      m_.values.get(), alpha, x, beta, y);
      SPKIT_LAUNCH_CHECK("bmsparse_batch_kernel");
    } else {
      bmsparse_base_kernel<T><<<launch_.grid, launch_.block, 0, s>>>(this->rows_, m_.block_row_ptr.get(), m_.keys.get(),
                                                                     m_.bitmaps.get(), m_.offsets.get(),
                                                                     m_.values.get(), alpha, x, beta, y);
      SPKIT_LAUNCH_CHECK("bmsparse_base_kernel");
    }
  }
  std::uint64_t bytes_moved() const override {
    return m_.bytes + static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    return std::to_string(m_.blocks) + " blocks, " + std::to_string(m_.nnz_per_block).substr(0, 4) + " nz/block";
  }

 private:
  DeviceBmSparse<T> m_;
  Launch launch_;
};

// ---------------------------------------------------------------------------------------------
// bmSparse + CSR remainder (cuda.bmsparse.warp).

// The 8x8 blocks of a block row come from detail::for_each_bm_block (formats/bm_blocks.hpp).

template <class T>
struct BmSplitHost {
  std::vector<std::int64_t> block_ptr, value_ptr;  // block_rows + 1
  std::vector<std::uint32_t> block_col;            // per kept block
  std::vector<std::uint64_t> bitmap;               // per kept block
  std::vector<T> values;                           // kept blocks' entries, block by block, row-major
  std::vector<std::int64_t> rem_ptr;               // rows + 1 (empty when the remainder is empty)
  std::vector<std::int32_t> rem_col;
  std::vector<T> rem_val;
};

template <class T>
BmSplitHost<T> split_bmsparse(const Csr<T>& a) {
  const std::int64_t rows = a.rows, block_rows = (rows + 7) / 8;
  BmSplitHost<T> h;
  h.block_ptr.assign(static_cast<std::size_t>(block_rows) + 1, 0);
  h.value_ptr.assign(static_cast<std::size_t>(block_rows) + 1, 0);
  std::vector<std::int64_t> rem_len(static_cast<std::size_t>(rows) + 1, 0);
  auto block_nnz = [](const std::int64_t* b, const std::int64_t* e, int nr) {
    std::int64_t n = 0;
    for (int r = 0; r < nr; ++r) n += e[r] - b[r];
    return n;
  };
  // Pass 1: kept blocks and values per block row, remainder entries per row.
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t br = 0; br < block_rows; ++br)
    detail::for_each_bm_block(a, br, [&](std::int64_t, int nr, const std::int64_t* b, const std::int64_t* e) {
      const std::int64_t n = block_nnz(b, e, nr);
      if (n >= kBmDenseBlockMinNnz) {
        ++h.block_ptr[br + 1];
        h.value_ptr[br + 1] += n;
      } else {
        for (int r = 0; r < nr; ++r) rem_len[br * 8 + r + 1] += e[r] - b[r];
      }
    });
  for (std::int64_t br = 0; br < block_rows; ++br) {
    h.block_ptr[br + 1] += h.block_ptr[br];
    h.value_ptr[br + 1] += h.value_ptr[br];
  }
  for (std::int64_t i = 0; i < rows; ++i) rem_len[i + 1] += rem_len[i];
  const std::int64_t rem_nnz = rows > 0 ? rem_len[rows] : 0;
  h.block_col.resize(static_cast<std::size_t>(h.block_ptr[block_rows]));
  h.bitmap.resize(h.block_col.size());
  h.values.resize(static_cast<std::size_t>(h.value_ptr[block_rows]));
  h.rem_col.resize(static_cast<std::size_t>(rem_nnz));
  h.rem_val.resize(static_cast<std::size_t>(rem_nnz));
  // Pass 2: fill (each block row writes only its own ranges).
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t br = 0; br < block_rows; ++br) {
    std::int64_t blk = h.block_ptr[br], val = h.value_ptr[br];
    std::int64_t rem[8];
    for (int r = 0; r < 8 && br * 8 + r < rows; ++r) rem[r] = rem_len[br * 8 + r];
    detail::for_each_bm_block(a, br, [&](std::int64_t bc, int nr, const std::int64_t* b, const std::int64_t* e) {
      if (block_nnz(b, e, nr) >= kBmDenseBlockMinNnz) {
        std::uint64_t bits = 0;
        for (int r = 0; r < nr; ++r)  // row-major: the order of the bitmap's bits, most significant first
          for (std::int64_t k = b[r]; k < e[r]; ++k) {
            bits |= std::uint64_t{1} << (63 - (8 * r + (a.col_idx[k] & 7)));
            h.values[val++] = a.values[k];
          }
        h.block_col[blk] = static_cast<std::uint32_t>(bc);
        h.bitmap[blk++] = bits;
      } else {
        for (int r = 0; r < nr; ++r)
          for (std::int64_t k = b[r]; k < e[r]; ++k) {
            h.rem_col[rem[r]] = a.col_idx[k];
            h.rem_val[rem[r]++] = a.values[k];
          }
      }
    });
  }
  if (rem_nnz > 0) h.rem_ptr = std::move(rem_len);
  return h;
}

// One warp per block row: 4 groups of 8 lanes take 4 blocks per step; lane r of a group owns row r of
// its block and loads x of column r once, shared by the block's 8 rows through shuffles; each lane
// loads its row's values itself (contiguous per row, scattered across the warp within the step's
// values, which come in through L1). The remainder rows are summed by 4 lanes per row.
// Templated on beta == 0: the run-time test took the fp32 kernel with remainder from 32 to 40 registers.
template <class T, bool REMAINDER, bool BETA_ZERO>
__global__ void __launch_bounds__(256) bmsparse_warp_kernel(
    std::int64_t rows, std::int64_t cols, std::int64_t block_rows, const std::int64_t* __restrict__ block_ptr,
    const std::int64_t* __restrict__ value_ptr, const std::uint32_t* __restrict__ block_col,
    const std::uint64_t* __restrict__ bitmaps, const T* __restrict__ values, const std::int64_t* __restrict__ rem_ptr,
    const std::int32_t* __restrict__ rem_col, const T* __restrict__ rem_val, T alpha, const T* __restrict__ x, T beta,
    T* __restrict__ y) {
  constexpr unsigned kFull = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const std::int64_t br = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (br >= block_rows) return;  // the whole warp leaves together
  const int group = lane >> 3, r = lane & 7;
  const std::int64_t b_end = block_ptr[br + 1];
  std::int64_t base = value_ptr[br];
  T sum = 0;
  // The next step's bitmap and block column are loaded one step ahead, so their memory latency
  // overlaps this step's value loads instead of adding to it.
  const std::int64_t b_begin = block_ptr[br];
  std::uint64_t next_bits = b_begin + group < b_end ? bitmaps[b_begin + group] : 0;
  std::uint32_t next_col = b_begin + group < b_end ? block_col[b_begin + group] : 0;
  for (std::int64_t b0 = b_begin; b0 < b_end; b0 += 4) {
    const bool live = b0 + group < b_end;
    const std::uint64_t bits = next_bits;
    const std::int64_t col0 = static_cast<std::int64_t>(next_col) * 8;
    const std::int64_t ahead = b0 + 4 + group;
    next_bits = ahead < b_end ? bitmaps[ahead] : 0;
    next_col = ahead < b_end ? block_col[ahead] : 0;
    // Value offset of this group's block: exclusive prefix sum of the 4 blocks' popcounts.
    const int count = __popcll(bits);
    int incl = count, up = __shfl_up_sync(kFull, incl, 8);
    if (lane >= 8) incl += up;
    up = __shfl_up_sync(kFull, incl, 16);
    if (lane >= 16) incl += up;
    const std::int64_t block_start = base + incl - count;
    base += __shfl_sync(kFull, incl, 31);
    // Row r's entries: its byte of the bitmap (column c at bit 7 - c), after the rows above it.
    const unsigned row_bits = static_cast<unsigned>(bits >> (56 - 8 * r)) & 0xffu;
    const std::int64_t row_start = block_start + (r == 0 ? 0 : __popcll(bits >> (64 - 8 * r)));
    const T x_own = live && col0 + r < cols ? x[col0 + r] : T(0);  // lane r loads column r once
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      const T xc = __shfl_sync(kFull, x_own, (lane & ~7) | c);
      if (row_bits & (0x80u >> c)) sum += values[row_start + __popc(row_bits >> (8 - c))] * xc;
    }
  }
  sum += __shfl_xor_sync(kFull, sum, 8);
  sum += __shfl_xor_sync(kFull, sum, 16);  // every lane r of every group now holds row r's block sum
  const std::int64_t r0 = br * 8;
  if constexpr (REMAINDER) {  // 4 lanes per row over the row's remainder entries
    const std::int64_t row = r0 + (lane >> 2);
    T rest = 0;
    if (row < rows)
      for (std::int64_t k = rem_ptr[row] + (lane & 3); k < rem_ptr[row + 1]; k += 4) rest += rem_val[k] * x[rem_col[k]];
    rest += __shfl_xor_sync(kFull, rest, 1);
    rest += __shfl_xor_sync(kFull, rest, 2);
    sum += __shfl_sync(kFull, rest, 4 * r);
  }
  if (lane < 8 && r0 + lane < rows) store_axpby_fixed<BETA_ZERO>(y + r0 + lane, alpha, sum, beta);
}

template <class T>
class BmSparseWarpPlan : public CudaSpmvPlan<T> {
 public:
  BmSparseWarpPlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    // Upper bound of the device arrays (every block kept and a full remainder), checked before converting.
    const std::uint64_t bound = static_cast<std::uint64_t>(a.nnz()) * (sizeof(T) + 16) +
                                static_cast<std::uint64_t>(a.rows + 9) * 10;
    check_device_fits(bound, "bmSparse + CSR remainder of this matrix");
    if (o.memory_budget_bytes && bound > o.memory_budget_bytes)
      throw TooLarge("bmSparse + CSR remainder of this matrix exceeds the memory budget", bound);
    const BmSplitHost<T> h = split_bmsparse(a);
    block_rows_ = static_cast<std::int64_t>(h.block_ptr.size()) - 1;
    blocks_ = static_cast<std::int64_t>(h.block_col.size());
    block_nnz_ = static_cast<std::int64_t>(h.values.size());
    rem_nnz_ = static_cast<std::int64_t>(h.rem_val.size());
    block_ptr_ = DeviceBuffer<std::int64_t>(h.block_ptr, "bmSparse block_ptr");
    value_ptr_ = DeviceBuffer<std::int64_t>(h.value_ptr, "bmSparse value_ptr");
    block_col_ = DeviceBuffer<std::uint32_t>(h.block_col, "bmSparse block_col");
    bitmap_ = DeviceBuffer<std::uint64_t>(h.bitmap, "bmSparse bitmaps");
    values_ = DeviceBuffer<T>(h.values, "bmSparse values");
    rem_ptr_ = DeviceBuffer<std::int64_t>(h.rem_ptr, "remainder row_ptr");
    rem_col_ = DeviceBuffer<std::int32_t>(h.rem_col, "remainder col_idx");
    rem_val_ = DeviceBuffer<T>(h.rem_val, "remainder values");
    launch_.block = dim3(256);  // 8 warps, 8 block rows
    launch_.grid = dim3(static_cast<unsigned>(blocks_for(block_rows_, 8, this->props())));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    if (rem_nnz_ > 0) launch<true>(alpha, x, beta, y, s); else launch<false>(alpha, x, beta, y, s);
  }
  template <bool REMAINDER>
  void launch(T alpha, const T* x, T beta, T* y, cudaStream_t stream) {
    const std::int64_t* rp = REMAINDER ? rem_ptr_.get() : nullptr;
    const std::int32_t* rc = REMAINDER ? rem_col_.get() : nullptr;
    const T* rv = REMAINDER ? rem_val_.get() : nullptr;
    const auto kernel =
        beta == T(0) ? bmsparse_warp_kernel<T, REMAINDER, true> : bmsparse_warp_kernel<T, REMAINDER, false>;
    kernel<<<launch_.grid, launch_.block, 0, stream>>>(this->rows_, this->cols_, block_rows_, block_ptr_.get(),
                                                       value_ptr_.get(), block_col_.get(), bitmap_.get(), values_.get(),
                                                       rp, rc, rv, alpha, x, beta, y);
    SPKIT_LAUNCH_CHECK("bmsparse_warp_kernel");
  }
  std::uint64_t bytes_moved() const override {
    return block_ptr_.bytes() + value_ptr_.bytes() + block_col_.bytes() + bitmap_.bytes() + values_.bytes() +
           rem_ptr_.bytes() + rem_col_.bytes() + rem_val_.bytes() +
           static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    const double per_block = blocks_ ? static_cast<double>(block_nnz_) / static_cast<double>(blocks_) : 0.0;
    const double share = this->nnz_ ? 100.0 * static_cast<double>(block_nnz_) / static_cast<double>(this->nnz_) : 0.0;
    return std::to_string(blocks_) + " blocks (" + std::to_string(per_block).substr(0, 4) + " nz/block, " +
           std::to_string(static_cast<int>(share + 0.5)) + "% of nz), CSR remainder " + std::to_string(rem_nnz_) + " nz";
  }

 private:
  std::int64_t block_rows_ = 0, blocks_ = 0, block_nnz_ = 0, rem_nnz_ = 0;
  DeviceBuffer<std::int64_t> block_ptr_, value_ptr_, rem_ptr_;
  DeviceBuffer<std::uint32_t> block_col_;
  DeviceBuffer<std::uint64_t> bitmap_;
  DeviceBuffer<std::int32_t> rem_col_;
  DeviceBuffer<T> values_, rem_val_;
  Launch launch_;
};

template <class T> using BmSparseBasePlan = BmSparsePlan<T, false>;
template <class T> using BmSparseBatchPlan = BmSparsePlan<T, true>;

}  // namespace
}  // namespace spkit::cuda

namespace spkit {
namespace {
// Cost model: 64 threads per 8x8 block row leave most lanes idle unless blocks are dense: 38% of copy on
// banded (29 nz/block), 37% on fem (15), 31% on lap3d27 (10), 23% on lap2d (5.7) in fp64, about 0.7x
// that in fp32 (docs/perf/data/gpu-bench-h100-large.csv). Under 2 non-zeros per block its metadata
// outweighs the values: not applicable. A block row is one thread block walking its blocks in turn, so a
// very long row serializes: ~1 us per 8x8 block of it (circuit's 941k-entry row: 112 ms).
CostEstimate bmsparse_base_cost(const MatrixStats& s, Precision p, const PlanOptions&) {
  if (s.nnz > 0 && s.bm_nnz_per_block < 2)
    return cost::not_applicable(std::to_string(s.bm_nnz_per_block).substr(0, 4) + " non-zeros per 8x8 block");
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_bmsparse, p) + cost::vector_bytes(s, p);
  const double eff =
      std::min(tuning::kCudaBmBaseEfficiencyCap,
               tuning::kCudaBmBaseEfficiencyBase + tuning::kCudaBmBaseEfficiencyPerBlockNnz * s.bm_nnz_per_block);
  e.efficiency =
      cost::with_gathers(p == Precision::f64 ? eff : tuning::kCudaBmBaseF32Factor * eff, e.bytes, s, Backend::cuda);
  e.launch_us = 5 + tuning::kCudaBmBaseUsPerLongRowBlock *
                        static_cast<double>(std::max<std::int64_t>(0, s.row_nnz_max - 64)) / 8;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_bmsparse, p);
  e.note = std::to_string(s.bm_nnz_per_block).substr(0, 4) + " non-zeros per block";
  return e;
}
}  // namespace

void register_cuda_bmsparse_kernels(Registry& reg) {
  const auto info = [](const char* name, const char* description) {
    KernelInfo k;
    k.name = name;
    k.format = Format::bmsparse;
    k.backend = Backend::cuda;
    k.description = description;
    return k;
  };
  KernelInfo base = info("cuda.bmsparse.base",
                         "bmSparse BASE (Berger et al.): 64 threads per block row, 8-lane shuffle reductions");
  base.cost = bmsparse_base_cost;
  add_kernel<cuda::BmSparseBasePlan>(reg, std::move(base));
  add_kernel<cuda::BmSparseBatchPlan>(
      reg,
      info("cuda.bmsparse.batch", "bmSparse BATCH (Berger et al.): 32x8 threads, warp per row over 4 blocks at a time"));
  KernelInfo warp = info("cuda.bmsparse.warp",
                         "spkit bmSparse + CSR remainder: warp per block row, 4 blocks per step, x of a block column "
                         "loaded once and shuffled to its 8 rows, 32-bit block columns, value offsets from popcount "
                         "prefix sums");
  // Efficiency: fraction of the H100's copy bandwidth over the own bytes (docs/perf/cuda-dia-bm.md).
  warp.cost = [](const MatrixStats& s, Precision p, const PlanOptions&) {
    // Measured (docs/perf/cuda-dia-bm.md): own-byte efficiency grows with the non-zeros per block.
    const double per_block = s.bm_nnz_per_block;
    const tuning::CudaEfficiency cap = tuning::kCudaBmWarpEfficiencyCap;
    const tuning::CudaEfficiency slope = tuning::kCudaBmWarpEfficiencyPerBlockNnz;
    const double eff =
        p == Precision::f64 ? std::min(cap.f64, slope.f64 * per_block) : std::min(cap.f32, slope.f32 * per_block);
    return bmsparse_split_cost(s, p, 0.5, eff, 5.0);
  };
  add_kernel<cuda::BmSparseWarpPlan>(reg, std::move(warp));
}
}  // namespace spkit
