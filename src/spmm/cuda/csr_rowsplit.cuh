#pragma once
// Row-split CSR SpMM on the GPU with row-major X, after Yang, Buluç and Owens ("Design Principles for
// Sparse Matrix Multiplication on the GPU", Euro-Par 2018) and the coalesced row caching of Huang et al.'s
// GE-SpMM (SC 2020); Y row-major (cuda.csr.spmm_rowmajor) or column-major (cuda.csr.spmm_colmajor, after
// X is transposed into row-major).
//
// A group of L = GC x GN lanes serves one row. The group loads L entries of A's row at once, coalesced
// (one (col, val) per lane), and broadcasts them to its lanes with shuffles: no lane reads A one entry at
// a time. GC lanes share the columns of X's row, V consecutive columns each in one vector load (16 bytes:
// double2 / float4, when k, the leading dimensions and the pointers allow; else V = 1), CPL such vectors
// per lane for wide k (at most 32 x V x CPL columns per pass; more passes over gridDim.y). GN sub-groups
// take every GN-th entry of the row (short rows need fewer, so the warp holds fewer rows of unequal
// length) and are summed with shuffles at the end. Each entry of Y is written once, with alpha and beta.
// Rows of unequal length hold a warp as long as its longest, so rows are binned at plan time: rows over
// tuning::kSpmmCudaWarpRowMeans times the mean (at least 32 entries) take a whole warp (GN = 32 / GC) from
// a list, and rows over tuning::kSpmmCudaLongRowNnz (power-law hubs) are cut into chunks of at most
// tuning::kSpmmCudaRowChunkNnz entries, a block of 256 threads each, whose groups take interleaved pieces and
// meet in shared memory; the chunk sums of one row are added in chunk order by a second kernel.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spmm/cuda/spmm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {  // each including file instantiates its own Y layout

constexpr int kBlock = 256;

// V consecutive elements of T in one load (__ldg: X is read-only for the product) or one store.
template <int V, class T>
__device__ __forceinline__ void load_vec(const T* p, T (&out)[V]) {
  if constexpr (V == 1) {
    out[0] = __ldg(p);
  } else if constexpr (sizeof(T) == 8 && V == 2) {
    const double2 v = __ldg(reinterpret_cast<const double2*>(p));
    out[0] = v.x, out[1] = v.y;
  } else {
    static_assert(sizeof(T) == 4 && V == 4, "vectors of 16 bytes");
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  }
}
template <int V, class T>
__device__ __forceinline__ void load_y(const T* p, T (&out)[V]) {  // Y is written too: no __ldg
  if constexpr (V == 1) {
    out[0] = *p;
  } else if constexpr (V == 2) {
    const double2 v = *reinterpret_cast<const double2*>(p);
    out[0] = v.x, out[1] = v.y;
  } else {
    const float4 v = *reinterpret_cast<const float4*>(p);
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  }
}
template <int V, class T>
__device__ __forceinline__ void store_vec(T* p, const T (&in)[V]) {
  if constexpr (V == 1) *p = in[0];
  else if constexpr (V == 2) *reinterpret_cast<double2*>(p) = make_double2(in[0], in[1]);
  else *reinterpret_cast<float4*>(p) = make_float4(in[0], in[1], in[2], in[3]);
}

// V consecutive entries of a row-major Y: alpha sums + beta Y (Y not read when beta == 0).
template <int V, class T>
__device__ __forceinline__ void store_y(T* yp, const T (&sums)[V], T alpha, T beta) {
  T out[V];
  if (beta == T(0)) {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = alpha * sums[v];
  } else {
    load_y<V>(yp, out);
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = alpha * sums[v] + beta * out[v];
  }
  store_vec<V>(yp, out);
}

// Whether a row-major operand (first element p, leading dimension ld) has every row on a 16-byte boundary, so
// that the vector loads and stores of 16 / sizeof(T) elements apply.
template <class T>
inline bool rows_on_16_bytes(const T* p, std::int64_t ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % (16 / static_cast<std::int64_t>(sizeof(T))) == 0;
}

// The lanes of this thread's group of L consecutive lanes, for the shuffles (groups of one warp may run
// different trip counts).
template <int L>
__device__ __forceinline__ unsigned group_mask() {
  if constexpr (L == 32) return 0xffffffffu;
  else return ((1u << L) - 1u) << ((threadIdx.x % 32) / L * L);
}

// acc += a * X(c, col0 + t * GC * V + (0..V-1)) for t < CPL: one entry of A against its row of X.
template <int GC, int V, int CPL, class T>
__device__ __forceinline__ void add_entry(std::int32_t c, T a, std::int64_t col0, std::int64_t k, const T* __restrict__ x,
                                          std::int64_t ldx, T (&acc)[CPL][V]) {
  const T* xr = x + static_cast<std::int64_t>(c) * ldx + col0;
#pragma unroll
  for (int t = 0; t < CPL; ++t) {
    if (col0 + t * GC * V >= k) continue;
    T xv[V];
    load_vec<V>(xr + t * GC * V, xv);
#pragma unroll
    for (int v = 0; v < V; ++v) acc[t][v] += a * xv[v];
  }
}

// A group's partial sums over entries [start, end) of one row, taken in chunks of L at start, start +
// stride, ...; lane = n * GC + c. On return the lanes with n == 0 hold the sums over all GN sub-groups
// for columns col0 + t * GC * V + (0..V-1), t < CPL. A chunk of L entries runs without per-entry tests, so
// its loads of X can all be in flight at once (a row split into hub chunks is almost only such chunks);
// the last, partial chunk of a row tests each entry (loading nothing for the missing ones: unconditional
// loads there cost fem_mesh and lap3d 3-27% on an H100, 2026-11-27). Groups wider than
// tuning::kSpmmCudaFullChunkMaxLanes lanes over columns keep the per-entry loop in every chunk.
template <int GC, int GN, int V, int CPL, class T>
__device__ __forceinline__ void accumulate(std::int64_t start, std::int64_t end, std::int64_t stride, int lane,
                                           unsigned mask, std::int64_t col0, std::int64_t k,
                                           const std::int32_t* __restrict__ col, const T* __restrict__ val,
                                           const T* __restrict__ x, std::int64_t ldx, T (&acc)[CPL][V]) {
  constexpr int L = GC * GN;
  const int n = lane / GC;
  for (std::int64_t base = start; base < end; base += stride) {
    const std::int64_t p = base + lane;
    const bool have = p < end;
    const std::int32_t my_col = have ? __ldg(col + p) : 0;
    const T my_val = have ? __ldg(val + p) : T(0);
    if (GC <= tuning::kSpmmCudaFullChunkMaxLanes && base + L <= end) {  // the same for the whole group
#pragma unroll
      for (int j = 0; j < GC; ++j) {
        const int src = j * GN + n;
        add_entry<GC, V, CPL>(__shfl_sync(mask, my_col, src, L), __shfl_sync(mask, my_val, src, L), col0, k, x, ldx, acc);
      }
      continue;
    }
#pragma unroll
    for (int j = 0; j < GC; ++j) {
      if (base + j * GN >= end) break;  // the same for the whole group: short rows skip the empty shuffles
      const int src = j * GN + n;
      const std::int32_t cj = __shfl_sync(mask, my_col, src, L);
      const T vj = __shfl_sync(mask, my_val, src, L);
      if (base + src < end) add_entry<GC, V, CPL>(cj, vj, col0, k, x, ldx, acc);
    }
  }
#pragma unroll
  for (int o = GC; o < L; o *= 2)
#pragma unroll
    for (int t = 0; t < CPL; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] += __shfl_xor_sync(mask, acc[t][v], o, L);
}

// One row per group of GC x GN lanes: row g, or list[g] when a list is given. Without a list, rows over
// max_len are left to the other kernels.
template <int GC, int GN, int V, int CPL, bool COL_Y, class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_rows_kernel(std::int64_t rows, const std::int64_t* __restrict__ list, std::int64_t max_len,
                         std::int64_t k, const std::int64_t* __restrict__ ptr, const std::int32_t* __restrict__ col,
                         const T* __restrict__ val, const T* __restrict__ x, std::int64_t ldx, T alpha, T beta,
                         T* __restrict__ y, std::int64_t ldy) {
  constexpr int L = GC * GN;
  const std::int64_t g = (static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x) / L;
  if (g >= rows) return;  // the whole group leaves: its shuffles name only its own lanes
  const std::int64_t row = list ? list[g] : g;
  const std::int64_t begin = ptr[row], end = ptr[row + 1];
  if (!list && end - begin > max_len) return;
  const int lane = static_cast<int>(threadIdx.x % L);
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * (GC * V * CPL) + (lane % GC) * V;
  T acc[CPL][V];
#pragma unroll
  for (int t = 0; t < CPL; ++t)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[t][v] = T(0);
  accumulate<GC, GN, V, CPL>(begin, end, L, lane, group_mask<L>(), col0, k, col, val, x, ldx, acc);
  if (lane >= GC) return;
#pragma unroll
  for (int t = 0; t < CPL; ++t) {
    const std::int64_t c = col0 + t * GC * V;
    if (c >= k) continue;
    if constexpr (COL_Y) {  // column-major Y: one entry per column, rows of neighbouring groups adjacent
#pragma unroll
      for (int v = 0; v < V; ++v) {
        T* yp = y + (c + v) * ldy + row;
        *yp = beta == T(0) ? alpha * acc[t][v] : alpha * acc[t][v] + beta * *yp;
      }
      continue;
    }
    store_y<V>(y + row * ldy + c, acc[t], alpha, beta);
  }
}

// One block per chunk of a long row (chunks: row, first entry, end, slot per chunk): its kBlock / L groups take
// interleaved pieces of L entries, then sum their partial rows in shared memory. A row of one chunk writes Y
// (each entry once); the chunks of a longer row write their sums to partial[slot][0..k), added in chunk
// order by csr_spmm_chunk_sums_kernel (the same sums on every run).
template <int GC, int GN, int V, int CPL, bool COL_Y, class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_chunks_kernel(const std::int64_t* __restrict__ chunks, std::int64_t k, const std::int32_t* __restrict__ col,
                           const T* __restrict__ val, const T* __restrict__ x, std::int64_t ldx, T alpha, T beta,
                           T* __restrict__ y, std::int64_t ldy, T* __restrict__ partial) {
  constexpr int L = GC * GN, G = kBlock / L, W = GC * V * CPL;
  __shared__ T sums[G][W];  // at most 256 x V x CPL elements: 16 KiB
  const std::int64_t* chunk = chunks + 4 * static_cast<std::int64_t>(blockIdx.x);
  const std::int64_t row = chunk[0], begin = chunk[1], end = chunk[2], slot = chunk[3];
  const int group = static_cast<int>(threadIdx.x / L), lane = static_cast<int>(threadIdx.x % L);
  const std::int64_t tile0 = static_cast<std::int64_t>(blockIdx.y) * W;
  T acc[CPL][V];
#pragma unroll
  for (int t = 0; t < CPL; ++t)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[t][v] = T(0);
  accumulate<GC, GN, V, CPL>(begin + static_cast<std::int64_t>(group) * L, end, static_cast<std::int64_t>(G) * L,
                             lane, group_mask<L>(), tile0 + (lane % GC) * V, k, col, val, x, ldx, acc);
  if (lane < GC)
#pragma unroll
    for (int t = 0; t < CPL; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) sums[group][t * GC * V + lane * V + v] = acc[t][v];
  __syncthreads();
  for (int w = static_cast<int>(threadIdx.x); w < W; w += kBlock) {
    if (tile0 + w >= k) break;
    T sum = T(0);
    for (int g = 0; g < G; ++g) sum += sums[g][w];
    if (slot >= 0) {
      partial[slot * k + tile0 + w] = sum;
      continue;
    }
    T* yp = COL_Y ? y + (tile0 + w) * ldy + row : y + row * ldy + tile0 + w;
    *yp = beta == T(0) ? alpha * sum : alpha * sum + beta * *yp;
  }
}

// One thread per (split row, column): the row's chunk sums added in chunk order, then Y written once.
// splits: row, first slot, slot count per row.
template <bool COL_Y, class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_chunk_sums_kernel(std::int64_t split_rows, const std::int64_t* __restrict__ splits, std::int64_t k,
                               const T* __restrict__ partial, T alpha, T beta, T* __restrict__ y, std::int64_t ldy) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (t >= split_rows * k) return;
  const std::int64_t* s = splits + 3 * (t / k);
  const std::int64_t c = t % k, row = s[0];
  T sum = T(0);
  for (std::int64_t slot = s[1]; slot < s[1] + s[2]; ++slot) sum += partial[slot * k + c];
  T* yp = COL_Y ? y + c * ldy + row : y + row * ldy + c;
  *yp = beta == T(0) ? alpha * sum : alpha * sum + beta * *yp;
}

// The rows over tuning::kSpmmCudaLongRowNnz, cut into chunks of at most tuning::kSpmmCudaRowChunkNnz entries
// (equal parts of a row), a block each: a power-law hub of 45,000 entries held one block, and the whole
// product waited for it (4.5 ms against cuSPARSE's 2.9 at k = 64 on an H200).
struct RowChunks {
  std::int64_t count = 0, split_rows = 0, slots = 0;
  DeviceBuffer<std::int64_t> chunks, splits;  // 4 per chunk (row, begin, end, slot or -1), 3 per split row
};
template <class T>
RowChunks chunk_long_rows(const Csr<T>& a) {
  RowChunks r;
  std::vector<std::int64_t> chunks, splits;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t begin = a.row_ptr[i], len = a.row_ptr[i + 1] - begin;
    if (len <= tuning::kSpmmCudaLongRowNnz) continue;
    const std::int64_t parts = (len + tuning::kSpmmCudaRowChunkNnz - 1) / tuning::kSpmmCudaRowChunkNnz;
    if (parts > 1) splits.insert(splits.end(), {i, r.slots, parts});
    for (std::int64_t c = 0; c < parts; ++c)
      chunks.insert(chunks.end(), {i, begin + len * c / parts, begin + len * (c + 1) / parts, parts > 1 ? r.slots + c : -1});
    if (parts > 1) r.slots += parts;
  }
  r.count = static_cast<std::int64_t>(chunks.size() / 4);
  r.split_rows = static_cast<std::int64_t>(splits.size() / 3);
  if (r.count) r.chunks = DeviceBuffer<std::int64_t>(chunks, "SpMM long-row chunks");
  if (r.split_rows) r.splits = DeviceBuffer<std::int64_t>(splits, "SpMM split rows");
  return r;
}

// A launch shape: GC lanes over columns, GN sub-groups over entries, vectors of V, CPL vectors per lane.
struct Shape {
  int gc = 1, gn = 1, v = 1, cpl = 1;
  std::int64_t tiles = 1;
  int width() const { return gc * v * cpl; }
};
template <int GC, int GN, int V, int CPL>
struct Config {
  static constexpr int gc = GC, gn = GN, v = V, cpl = CPL;
};

// Columns first: the fewest lanes (a power of two) whose vectors cover k, CPL vectors each past 32 lanes;
// then sub-groups over entries while the row's mean length gives each at least
// tuning::kSpmmCudaEntriesPerSubgroup, a mean row still spans tuning::kSpmmCudaMinChunksPerRow chunks of
// the group's lanes, and the group fits a warp; then at least tuning::kSpmmCudaMinGroupLanes lanes a group
// on rows of tuning::kSpmmCudaMinGroupRowMean entries or more.
inline Shape choose_shape(std::int64_t k, int v, double mean_row) {
  Shape s;
  s.v = v;
  const std::int64_t vectors = (k + v - 1) / v;
  while (s.gc < 32 && s.gc < vectors) s.gc *= 2;
  while (s.gc == 32 && s.cpl < 4 && 32 * s.cpl < vectors) s.cpl *= 2;
  while (s.gc * s.gn * 2 <= 32 && s.gn < 8 && mean_row >= 2.0 * s.gn * tuning::kSpmmCudaEntriesPerSubgroup &&
         mean_row >= 2.0 * s.gc * s.gn * tuning::kSpmmCudaMinChunksPerRow)
    s.gn *= 2;
  // Narrow k leaves one or two lanes over columns: rows of 8 or more entries still get a group of
  // tuning::kSpmmCudaMinGroupLanes, so that a row's loads of A and X are not one lane's serial walk.
  if (mean_row >= tuning::kSpmmCudaMinGroupRowMean)
    while (s.gc * s.gn < tuning::kSpmmCudaMinGroupLanes) s.gn *= 2;
  s.tiles = (k + s.width() - 1) / s.width();
  return s;
}

// Calls go(Config<...>{}) for the shape's compile-time configuration.
template <int GC, int V, class Go>
void with_gn(const Shape& s, Go&& go) {
  if (s.gn == 1) return go(Config<GC, 1, V, 1>{});
  if constexpr (GC * 2 <= 32)
    if (s.gn == 2) return go(Config<GC, 2, V, 1>{});
  if constexpr (GC * 4 <= 32)
    if (s.gn == 4) return go(Config<GC, 4, V, 1>{});
  if constexpr (GC * 8 <= 32)
    if (s.gn == 8) return go(Config<GC, 8, V, 1>{});
  throw Error("cuda.csr.spmm_rowmajor: no kernel for " + std::to_string(GC) + " x " + std::to_string(s.gn) + " lanes");
}
// The warp-per-row configuration of the same columns: GN = 32 / GC.
template <int V, class Go>
void dispatch_warp(const Shape& s, Go&& go) {
  switch (s.gc) {
    case 1: return go(Config<1, 32, V, 1>{});
    case 2: return go(Config<2, 16, V, 1>{});
    case 4: return go(Config<4, 8, V, 1>{});
    case 8: return go(Config<8, 4, V, 1>{});
    case 16: return go(Config<16, 2, V, 1>{});
    default:
      if (s.cpl == 1) return go(Config<32, 1, V, 1>{});
      if (s.cpl == 2) return go(Config<32, 1, V, 2>{});
      return go(Config<32, 1, V, 4>{});
  }
}
template <int V, class Go>
void dispatch(const Shape& s, Go&& go) {
  switch (s.gc) {
    case 1: return with_gn<1, V>(s, go);
    case 2: return with_gn<2, V>(s, go);
    case 4: return with_gn<4, V>(s, go);
    case 8: return with_gn<8, V>(s, go);
    case 16: return with_gn<16, V>(s, go);
    default:
      if (s.cpl == 1) return go(Config<32, 1, V, 1>{});
      if (s.cpl == 2) return go(Config<32, 1, V, 2>{});
      return go(Config<32, 1, V, 4>{});
  }
}


// The launch shapes and row bins of one matrix and k, planned once; launch() enqueues the product.
template <class T>
class RowSplitSchedule {
 public:
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T));

  RowSplitSchedule() = default;
  // order: A's rows in a visiting order (src/spmm/row_order.hpp; row-major Y only), or empty for 0, 1, ...
  RowSplitSchedule(const Csr<T>& a, std::int64_t k, const char* name, const std::vector<std::int32_t>& order = {}) {
    const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
    vector_ = choose_shape(k, k % kVec == 0 ? kVec : 1, mean);
    scalar_ = choose_shape(k, 1, mean);
    if (std::max(vector_.tiles, scalar_.tiles) > 65535)
      throw TooLarge(std::string(name) + ": k = " + std::to_string(k) + " needs more than 65535 column tiles", 0);
    // The lists serve both shapes, whose groups differ only in vector width.
    bins_ = bin_rows(a, std::min(vector_.gc * vector_.gn, scalar_.gc * scalar_.gn) < 32, false);
    chunks_ = chunk_long_rows(a);
    if (!order.empty()) {  // the rows the all-rows launch takes (at most warp_row_nnz entries), in that order
      std::vector<std::int64_t> rows;
      rows.reserve(order.size());
      for (const std::int32_t i : order)
        if (a.row_length(i) <= bins_.warp_row_nnz) rows.push_back(i);
      ordered_count_ = static_cast<std::int64_t>(rows.size());
      if (ordered_count_ > 0) ordered_rows_ = DeviceBuffer<std::int64_t>(rows, "SpMM rows in visiting order");
      ordered_ = true;
    }
    if (chunks_.slots > 0) partial_ = DeviceBuffer<T>(static_cast<std::size_t>(chunks_.slots * k), "SpMM chunk sums");
  }

  // Y = alpha A X + beta Y for the rows x k operands: X row-major (ldx), Y row-major (ldy) or, with
  // COL_Y, column-major. 16-byte vectors when X's rows (and row-major Y's) are 16-byte aligned.
  template <bool COL_Y>
  void launch(const DeviceProps& props, std::int64_t rows, std::int64_t k, const std::int64_t* ptr,
              const std::int32_t* col, const T* val, T alpha, const T* x, std::int64_t ldx, T beta, T* y,
              std::int64_t ldy, cudaStream_t stream) const {
    const bool vec = vector_.v > 1 && rows_on_16_bytes(x, ldx) && (COL_Y || rows_on_16_bytes<T>(y, ldy));
    const Shape& shape = vec ? vector_ : scalar_;
    // Groups of C's shape over `count` rows: all rows (list null, those over max_len skipped) or a list.
    const auto groups = [&](auto c, std::int64_t count, const std::int64_t* list, std::int64_t max_len) {
      using C = decltype(c);
      constexpr int L = C::gc * C::gn;
      const dim3 grid(static_cast<unsigned>(blocks_for(count * L, kBlock, props)), static_cast<unsigned>(shape.tiles));
      csr_spmm_rows_kernel<C::gc, C::gn, C::v, C::cpl, COL_Y, T>
          <<<grid, kBlock, 0, stream>>>(count, list, max_len, k, ptr, col, val, x, ldx, alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_rows_kernel");
    };
    const auto blocks = [&](auto c) {
      using C = decltype(c);
      if (chunks_.count == 0) return;
      const dim3 grid(static_cast<unsigned>(chunks_.count), static_cast<unsigned>(shape.tiles));
      csr_spmm_chunks_kernel<C::gc, C::gn, C::v, C::cpl, COL_Y, T><<<grid, kBlock, 0, stream>>>(
          chunks_.chunks.get(), k, col, val, x, ldx, alpha, beta, y, ldy, partial_.get());
      SPKIT_LAUNCH_CHECK("csr_spmm_chunks_kernel");
      if (chunks_.split_rows == 0) return;
      const std::int64_t sums = blocks_for(chunks_.split_rows * k, kBlock, props);
      csr_spmm_chunk_sums_kernel<COL_Y, T><<<static_cast<unsigned>(sums), kBlock, 0, stream>>>(
          chunks_.split_rows, chunks_.splits.get(), k, partial_.get(), alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_chunk_sums_kernel");
    };
    const auto all = [&](auto c) {
      if (ordered_) {
        if (ordered_count_ > 0) groups(c, ordered_count_, ordered_rows_.get(), 0);
      } else {
        groups(c, rows, nullptr, bins_.warp_row_nnz);
      }
      blocks(c);
    };
    const auto warps = [&](auto c) { groups(c, bins_.warp_count, bins_.warp_rows.get(), 0); };
    if (vec) {
      dispatch<kVec>(shape, all);
      if (bins_.warp_count) dispatch_warp<kVec>(shape, warps);
    } else {
      dispatch<1>(shape, all);
      if (bins_.warp_count) dispatch_warp<1>(shape, warps);
    }
  }

  std::string detail() const {
    const Shape& v = vector_;
    return std::to_string(v.gc) + "x" + std::to_string(v.gn) + " lanes per row, " + std::to_string(v.v) +
           "-wide vectors x " + std::to_string(v.cpl) + " per lane, " + std::to_string(v.tiles) + " column tile(s), " +
           describe(bins_) + ", cut into " + std::to_string(chunks_.count) + " chunks of at most " +
           std::to_string(tuning::kSpmmCudaRowChunkNnz) + " entries";
  }

 private:
  Shape vector_, scalar_;  // the launch shape with 16-byte vectors (when k allows) and without
  RowBins bins_;
  RowChunks chunks_;
  bool ordered_ = false;  // the short rows launched from ordered_rows_ instead of 0..rows-1
  std::int64_t ordered_count_ = 0;
  DeviceBuffer<std::int64_t> ordered_rows_;
  DeviceBuffer<T> partial_;  // chunks_.slots x k sums of the split rows' chunks: one product at a time per plan
};

}  // namespace
}  // namespace spkit::cuda
