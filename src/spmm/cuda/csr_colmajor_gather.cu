// cuda.csr.spmm_colmajor_gather: CSR SpMM with column-major X and Y, gathering X in place (no scratch). G lanes share a row (4..32, from the mean
// row length, tuning::kSpmmCudaEntriesPerLane) and stride over its non-zeros: each lane reads its entries
// of A once per tile of CT columns (CT = k rounded up to a power of two, at most
// tuning::kSpmmCudaColMajorTile; more tiles over gridDim.y) and gathers X(col, c) for the CT columns into
// CT register partial sums, CT independent loads per entry. The group then sums the CT columns with a
// reduce-scatter butterfly: at each lane offset, from G/2 down, a lane keeps half of its columns and trades
// the other half with its partner (about CT shuffles in all rather than CT log G); once a lane holds one
// column the remaining offsets add plainly. Each lane ends with max(CT / G, 1) columns' sums and writes
// Y(row, c) with alpha and beta. The tile no longer stops at G columns: at k = 64 and 8 lanes per row A
// was read 8 times, more bytes than X and Y together. Rows are binned as in spmm_rowmajor: rows far over
// the mean take a warp from a list, power-law hubs a block each (the first version, one narrow group per
// hub row, was 9x slower than cuSPARSE on power-law rows). Each (entry, column) is an 8-byte gather from
// its own 32-byte sector: cuda.csr.spmm_colmajor transposes X first instead.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "spmm/cuda/spmm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

constexpr int kBlock = 256;

// Reduce-scatter of CT partial sums over a group's lanes, high lane bits first: at lane offset O a lane
// keeps the upper or lower half (H columns) of what it holds and trades the other half with its partner;
// once it holds one column (H = 0) the remaining offsets add plainly. Compile-time offsets keep acc in
// registers.
template <int O, int H, int CT, class T>
__device__ __forceinline__ void reduce_scatter(T (&acc)[CT], int lane) {
  if constexpr (O >= 1) {
    if constexpr (H >= 1) {
      const bool upper = (lane & O) != 0;
#pragma unroll
      for (int i = 0; i < H; ++i) {
        const T send = upper ? acc[i] : acc[i + H];
        const T keep = upper ? acc[i + H] : acc[i];
        acc[i] = keep + __shfl_xor_sync(0xffffffffu, send, O);
      }
    } else {
      acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], O);
    }
    reduce_scatter<O / 2, H / 2>(acc, lane);
  }
}

// Group mode (BLOCK false): one row per group of G lanes, row g or list[g] when a list is given (without
// one, rows over max_len are left to the other launches). Block mode: one listed row per block of
// kBlock threads, each warp (G = 32) taking every eighth chunk of 32 entries, the warps' sums met in
// shared memory.
template <int G, int CT, bool BETA_ZERO, bool BLOCK, class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_colmajor_kernel(std::int64_t rows, const std::int64_t* __restrict__ list, std::int64_t max_len,
                             std::int64_t k, const std::int64_t* __restrict__ ptr, const std::int32_t* __restrict__ col,
                             const T* __restrict__ val, const T* __restrict__ x, std::int64_t ldx, T alpha, T beta,
                             T* __restrict__ y, std::int64_t ldy) {
  static_assert(G <= 32 && (G & (G - 1)) == 0 && (CT & (CT - 1)) == 0, "powers of two within a warp");
  static_assert(!BLOCK || G == 32, "block mode works in whole warps");
  const std::int64_t g = BLOCK ? blockIdx.x : (static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x) / G;
  const int lane = static_cast<int>(threadIdx.x % G);
  bool active = g < rows;  // inactive groups still take part in the warp's shuffles
  const std::int64_t row = !active ? 0 : list ? list[g] : g;
  std::int64_t begin = active ? ptr[row] : 0, end = active ? ptr[row + 1] : 0;
  if (!BLOCK && !list && end - begin > max_len) active = false, begin = end = 0;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.y) * CT;
  T acc[CT];
#pragma unroll
  for (int t = 0; t < CT; ++t) acc[t] = T(0);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const std::int64_t stride = BLOCK ? kBlock : G;
  for (std::int64_t p = begin + (BLOCK ? warp * 32 : 0) + lane; p < end; p += stride) {
    const T v = val[p];
    const T* xc = x + c0 * ldx + col[p];
#pragma unroll
    for (int t = 0; t < CT; ++t)
      if (c0 + t < k) acc[t] += v * __ldg(xc + t * ldx);
  }
  reduce_scatter<G / 2, CT / 2>(acc, lane);
  constexpr int P = CT >= G ? CT / G : 1;  // columns each lane holds afterwards
  const int base = lane * CT / G;  // the sum of H over the offsets where this lane took the upper half
  // With CT < G, G / CT lanes hold each column's sum: the first of them writes.
  constexpr int kHolders = CT < G ? G / CT : 1;
  if constexpr (BLOCK) {
    __shared__ T partial[kBlock / 32][CT];
    if (lane % kHolders == 0)
#pragma unroll
      for (int i = 0; i < P; ++i) partial[warp][base + i] = acc[i];
    __syncthreads();
    const int c = static_cast<int>(threadIdx.x);
    if (c >= CT || c0 + c >= k) return;
    T sum = T(0);
#pragma unroll
    for (int w = 0; w < kBlock / 32; ++w) sum += partial[w][c];
    store_axpby_fixed<BETA_ZERO>(y + (c0 + c) * ldy + row, alpha, sum, beta);
  } else {
    if (!active || lane % kHolders != 0) return;
#pragma unroll
    for (int i = 0; i < P; ++i) {
      const std::int64_t c = c0 + base + i;
      if (c < k) store_axpby_fixed<BETA_ZERO>(y + c * ldy + row, alpha, acc[i], beta);
    }
  }
}

template <class T>
class CsrSpmmColMajorGatherPlan final : public CudaSpmmPlanBase<T> {
 public:
  CsrSpmmColMajorGatherPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_colmajor_gather", false, true) {
    const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
    group_ = 4;
    while (group_ < 32 && 2 * group_ <= mean / tuning::kSpmmCudaEntriesPerLane) group_ *= 2;
    tile_ = 1;
    while (tile_ < tuning::kSpmmCudaColMajorTile && tile_ < s.k) tile_ *= 2;
    tiles_ = (s.k + tile_ - 1) / tile_;
    if (tiles_ > 65535) throw TooLarge("cuda.csr.spmm_colmajor_gather: k needs more than 65535 column tiles", 0);
    // Rows far over the mean take a warp from a list, power-law hubs a block (as in csr_rowsplit.cuh).
    bins_ = bin_rows(a, group_ < 32);
    this->upload_csr(a);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    if (beta == T(0)) launch<true>(alpha, x, ldx, beta, y, ldy, s);
    else launch<false>(alpha, x, ldx, beta, y, ldy, s);
  }
  std::string detail() const override {
    return std::to_string(group_) + " lanes per row, " + std::to_string(tile_) + "-column tiles (" +
           std::to_string(tiles_) + "), " + describe(bins_);
  }

 private:
  template <bool BZ>
  void launch(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, cudaStream_t s) {
    // count groups (or blocks, for BLOCK) over all rows (list null) or the listed ones.
    auto go = [&](auto kernel, int lanes, bool block, std::int64_t count, const std::int64_t* list, std::int64_t max_len) {
      const std::int64_t blocks = block ? count : blocks_for(count * lanes, kBlock, this->props());
      const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(tiles_));
      kernel<<<grid, kBlock, 0, s>>>(count, list, max_len, this->shape_.k, this->row_ptr_.get(), this->col_idx_.get(),
                                     this->values_.get(), x, ldx, alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_colmajor_kernel");
    };
    const std::int64_t rows = this->rows_;
    const auto all_rows = [&](auto kernel, int lanes) { go(kernel, lanes, false, rows, nullptr, bins_.warp_row_nnz); };
    switch (group_) {
      case 4: with_tile<4, BZ, false>([&](auto kernel) { all_rows(kernel, 4); }); break;
      case 8: with_tile<8, BZ, false>([&](auto kernel) { all_rows(kernel, 8); }); break;
      case 16: with_tile<16, BZ, false>([&](auto kernel) { all_rows(kernel, 16); }); break;
      default: with_tile<32, BZ, false>([&](auto kernel) { all_rows(kernel, 32); }); break;
    }
    if (bins_.warp_count)
      with_tile<32, BZ, false>([&](auto kernel) { go(kernel, 32, false, bins_.warp_count, bins_.warp_rows.get(), 0); });
    if (bins_.long_count)
      with_tile<32, BZ, true>([&](auto kernel) { go(kernel, 32, true, bins_.long_count, bins_.long_rows.get(), 0); });
  }
  template <int G, bool BZ, bool BLOCK, class Go>
  void with_tile(Go&& go) {
    switch (tile_) {
      case 1: return go(csr_spmm_colmajor_kernel<G, 1, BZ, BLOCK, T>);
      case 2: return go(csr_spmm_colmajor_kernel<G, 2, BZ, BLOCK, T>);
      case 4: return go(csr_spmm_colmajor_kernel<G, 4, BZ, BLOCK, T>);
      case 8: return go(csr_spmm_colmajor_kernel<G, 8, BZ, BLOCK, T>);
      case 16: return go(csr_spmm_colmajor_kernel<G, 16, BZ, BLOCK, T>);
      case 32: return go(csr_spmm_colmajor_kernel<G, 32, BZ, BLOCK, T>);
    }
    throw Error("cuda.csr.spmm_colmajor_gather: no kernel for " + std::to_string(tile_) + "-column tiles");
  }

  int group_ = 4, tile_ = 1;
  std::int64_t tiles_ = 1;
  RowBins bins_;
};

}  // namespace

void register_cuda_csr_colmajor_gather_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_colmajor_gather";
  k.backend = Backend::cuda;
  k.row_major = false;
  k.description = "CSR SpMM, column-major X/Y gathered in place: 4-32 lanes per row over its non-zeros, A read once per "
                  "tile of up to 32 columns, the columns summed by a reduce-scatter shuffle butterfly";
  add_spmm_kernel<CsrSpmmColMajorGatherPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_colmajor_gather_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_colmajor_gather_spmm(reg); }
}  // namespace spkit
