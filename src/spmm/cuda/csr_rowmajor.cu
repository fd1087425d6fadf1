// cuda.csr.spmm_rowmajor: CSR SpMM with row-major X and Y, after the row-splitting design of Yang, Buluç
// and Owens ("Design Principles for Sparse Matrix Multiplication on the GPU", Euro-Par 2018) and the
// coalesced row caching of Huang et al.'s GE-SpMM (SC 2020).
//
// A group of L = GC x GN lanes serves one row. The group loads L entries of A's row at once, coalesced
// (one (col, val) per lane), and broadcasts them to its lanes with shuffles: no lane reads A one entry at
// a time. GC lanes share the columns of X's row, V consecutive columns each in one vector load (16 bytes:
// double2 / float4, when k, the leading dimensions and the pointers allow; else V = 1), CPL such vectors
// per lane for wide k (at most 32 x V x CPL columns per pass; more passes over gridDim.y). GN sub-groups
// take every GN-th entry of the row (short rows need fewer, so the warp holds fewer rows of unequal
// length) and are summed with shuffles at the end. Each entry of Y is written once, with alpha and beta.
// Rows longer than tuning::kSpmmCudaLongRowNnz (power-law hubs) are left to a second kernel, a block of
// 256 threads per row whose groups take interleaved chunks and meet in shared memory, so that one hub
// does not hold a warp for the whole product.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "spmm/cuda/spmm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

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

// The lanes of this thread's group of L consecutive lanes, for the shuffles (groups of one warp may run
// different trip counts).
template <int L>
__device__ __forceinline__ unsigned group_mask() {
  if constexpr (L == 32) return 0xffffffffu;
  else return ((1u << L) - 1u) << ((threadIdx.x % 32) / L * L);
}

// A group's partial sums over entries [start, end) of one row, taken in chunks of L at start, start +
// stride, ...; lane = n * GC + c. On return the lanes with n == 0 hold the sums over all GN sub-groups
// for columns col0 + t * GC * V + (0..V-1), t < CPL.
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
#pragma unroll
    for (int j = 0; j < GC; ++j) {
      const int src = j * GN + n;
      const std::int32_t cj = __shfl_sync(mask, my_col, src, L);
      const T vj = __shfl_sync(mask, my_val, src, L);
      if (base + src < end) {
        const T* xr = x + static_cast<std::int64_t>(cj) * ldx + col0;
#pragma unroll
        for (int t = 0; t < CPL; ++t) {
          if (col0 + t * GC * V >= k) continue;
          T xv[V];
          load_vec<V>(xr + t * GC * V, xv);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[t][v] += vj * xv[v];
        }
      }
    }
  }
#pragma unroll
  for (int o = GC; o < L; o *= 2)
#pragma unroll
    for (int t = 0; t < CPL; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] += __shfl_xor_sync(mask, acc[t][v], o, L);
}

// One row per group of GC x GN lanes; rows over long_row_nnz are the long-row kernel's.
template <int GC, int GN, int V, int CPL, class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_rows_kernel(std::int64_t rows, std::int64_t k, std::int64_t long_row_nnz,
                         const std::int64_t* __restrict__ ptr, const std::int32_t* __restrict__ col,
                         const T* __restrict__ val, const T* __restrict__ x, std::int64_t ldx, T alpha, T beta,
                         T* __restrict__ y, std::int64_t ldy) {
  constexpr int L = GC * GN;
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x) / L;
  if (row >= rows) return;  // the whole group leaves: its shuffles name only its own lanes
  const std::int64_t begin = ptr[row], end = ptr[row + 1];
  if (end - begin > long_row_nnz) return;
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
    T* yp = y + row * ldy + c;
    T out[V];
    if (beta == T(0)) {
#pragma unroll
      for (int v = 0; v < V; ++v) out[v] = alpha * acc[t][v];
    } else {
      load_y<V>(yp, out);
#pragma unroll
      for (int v = 0; v < V; ++v) out[v] = alpha * acc[t][v] + beta * out[v];
    }
    store_vec<V>(yp, out);
  }
}

// One block per long row (row indices in long_rows): its kBlock / L groups take interleaved chunks of L
// entries, then sum their partial rows in shared memory; each entry of Y written once.
template <int GC, int GN, int V, int CPL, class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_long_rows_kernel(const std::int64_t* __restrict__ long_rows, std::int64_t k,
                              const std::int64_t* __restrict__ ptr, const std::int32_t* __restrict__ col,
                              const T* __restrict__ val, const T* __restrict__ x, std::int64_t ldx, T alpha, T beta,
                              T* __restrict__ y, std::int64_t ldy) {
  constexpr int L = GC * GN, G = kBlock / L, W = GC * V * CPL;
  __shared__ T partial[G][W];  // at most 256 x V x CPL elements: 16 KiB
  const std::int64_t row = long_rows[blockIdx.x];
  const int group = static_cast<int>(threadIdx.x / L), lane = static_cast<int>(threadIdx.x % L);
  const std::int64_t tile0 = static_cast<std::int64_t>(blockIdx.y) * W;
  T acc[CPL][V];
#pragma unroll
  for (int t = 0; t < CPL; ++t)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[t][v] = T(0);
  accumulate<GC, GN, V, CPL>(ptr[row] + static_cast<std::int64_t>(group) * L, ptr[row + 1],
                             static_cast<std::int64_t>(G) * L, lane, group_mask<L>(), tile0 + (lane % GC) * V, k,
                             col, val, x, ldx, acc);
  if (lane < GC)
#pragma unroll
    for (int t = 0; t < CPL; ++t)
#pragma unroll
      for (int v = 0; v < V; ++v) partial[group][t * GC * V + lane * V + v] = acc[t][v];
  __syncthreads();
  for (int w = static_cast<int>(threadIdx.x); w < W; w += kBlock) {
    if (tile0 + w >= k) break;
    T sum = T(0);
    for (int g = 0; g < G; ++g) sum += partial[g][w];
    T* yp = y + row * ldy + tile0 + w;
    *yp = beta == T(0) ? alpha * sum : alpha * sum + beta * *yp;
  }
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
// tuning::kSpmmCudaEntriesPerSubgroup and the group fits a warp.
Shape choose_shape(std::int64_t k, int v, double mean_row) {
  Shape s;
  s.v = v;
  const std::int64_t vectors = (k + v - 1) / v;
  while (s.gc < 32 && s.gc < vectors) s.gc *= 2;
  while (s.gc == 32 && s.cpl < 4 && 32 * s.cpl < vectors) s.cpl *= 2;
  while (s.gc * s.gn * 2 <= 32 && s.gn < 8 && mean_row >= 2.0 * s.gn * tuning::kSpmmCudaEntriesPerSubgroup) s.gn *= 2;
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

template <class T>
class CsrSpmmRowMajorPlan final : public CudaSpmmPlanBase<T> {
 public:
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T));

  CsrSpmmRowMajorPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_rowmajor", true, false) {
    const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
    vector_ = choose_shape(s.k, s.k % kVec == 0 ? kVec : 1, mean);
    scalar_ = choose_shape(s.k, 1, mean);
    if (std::max(vector_.tiles, scalar_.tiles) > 65535)
      throw TooLarge("cuda.csr.spmm_rowmajor: k = " + std::to_string(s.k) + " needs more than 65535 column tiles", 0);
    std::vector<std::int64_t> long_rows;
    for (std::int64_t i = 0; i < a.rows; ++i)
      if (a.row_ptr[i + 1] - a.row_ptr[i] > tuning::kSpmmCudaLongRowNnz) long_rows.push_back(i);
    long_rows_count_ = static_cast<std::int64_t>(long_rows.size());
    if (!long_rows.empty()) long_rows_ = DeviceBuffer<std::int64_t>(long_rows, "SpMM long-row list");
    this->upload_csr(a);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    // 16-byte vectors need 16-byte aligned rows of X and Y.
    const auto aligned = [](const void* p, std::int64_t ld) {
      return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % kVec == 0;
    };
    if (vector_.v > 1 && aligned(x, ldx) && aligned(y, ldy)) dispatch<kVec>(vector_, Launch{this, vector_, alpha, x, ldx, beta, y, ldy, s});
    else dispatch<1>(scalar_, Launch{this, scalar_, alpha, x, ldx, beta, y, ldy, s});
  }
  std::string detail() const override {
    const Shape& v = vector_;
    return std::to_string(v.gc) + "x" + std::to_string(v.gn) + " lanes per row, " + std::to_string(v.v) +
           "-wide vectors x " + std::to_string(v.cpl) + " per lane, " + std::to_string(v.tiles) + " column tile(s), " +
           std::to_string(long_rows_count_) + " long rows";
  }

 private:
  struct Launch {
    CsrSpmmRowMajorPlan* plan;
    const Shape& shape;
    T alpha;
    const T* x;
    std::int64_t ldx;
    T beta;
    T* y;
    std::int64_t ldy;
    cudaStream_t stream;
    template <class C>
    void operator()(C) const {
      constexpr int L = C::gc * C::gn;
      const dim3 grid(static_cast<unsigned>(blocks_for(plan->rows_ * L, kBlock, plan->props())),
                      static_cast<unsigned>(shape.tiles));
      csr_spmm_rows_kernel<C::gc, C::gn, C::v, C::cpl, T><<<grid, kBlock, 0, stream>>>(
          plan->rows_, plan->shape_.k, tuning::kSpmmCudaLongRowNnz, plan->row_ptr_.get(), plan->col_idx_.get(),
          plan->values_.get(), x, ldx, alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_rows_kernel");
      if (plan->long_rows_count_ == 0) return;
      const dim3 long_grid(static_cast<unsigned>(plan->long_rows_count_), static_cast<unsigned>(shape.tiles));
      csr_spmm_long_rows_kernel<C::gc, C::gn, C::v, C::cpl, T><<<long_grid, kBlock, 0, stream>>>(
          plan->long_rows_.get(), plan->shape_.k, plan->row_ptr_.get(), plan->col_idx_.get(), plan->values_.get(), x,
          ldx, alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_long_rows_kernel");
    }
  };

  Shape vector_, scalar_;  // the launch shape with 16-byte vectors (when k allows) and without
  std::int64_t long_rows_count_ = 0;
  DeviceBuffer<std::int64_t> long_rows_;
};

}  // namespace

void register_cuda_csr_rowmajor_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_rowmajor";
  k.backend = Backend::cuda;
  k.col_major = false;
  k.description = "CSR SpMM, row-major X/Y: row splitting after Yang, Buluç and Owens (2018): A's row loaded "
                  "coalesced and shuffle-broadcast, lanes over k columns in 16-byte vectors, a block per long row";
  add_spmm_kernel<CsrSpmmRowMajorPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_rowmajor_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_rowmajor_spmm(reg); }
}  // namespace spkit
