// cuda.csr.spmm_nnzsplit: CSR SpMM with row-major X and Y by non-zero splitting, after the merge-based SpMM
// of Yang, Buluç and Owens (Euro-Par 2018). Every group of GC lanes (over k's columns, as in the row split of
// csr_rowsplit.cuh) takes an equal span of A's non-zeros whatever the rows, so rows of unequal length
// (power-law, R-MAT) leave no lane idle and no warp waits for its longest row; the span's entries are walked
// in batches whose loads of X are all in flight together. A row inside one span is written to Y once; a row
// cut by a span boundary leaves one sum per span in a slot, added in span order by a second kernel (the same
// bits on every run); empty rows get Y = beta Y from a third.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spmm/cuda/csr_rowsplit.cuh"

namespace spkit::cuda {
namespace {

constexpr int kBatch = tuning::kSpmmCudaSpanBatch;

// Group s walks span s: entries [s * span, min((s + 1) * span, nnz)), starting in row info[3s]; its first row's
// sum goes to slot info[3s + 1] when that row began in an earlier span, its last row's to slot info[3s + 2] when
// it goes on into the next (-1: written to Y). The column tile is blockIdx.y, as in csr_spmm_rows_kernel.
template <int GC, int V, int CPL, class T>
__global__ void __launch_bounds__(kBlock, tuning::kSpmmCudaSpanMinBlocks)
    csr_spmm_span_kernel(std::int64_t spans, std::int64_t span, std::int64_t nnz, const std::int64_t* __restrict__ info,
                         std::int64_t k, const std::int64_t* __restrict__ ptr, const std::int32_t* __restrict__ col,
                         const T* __restrict__ val, const T* __restrict__ x, std::int64_t ldx, T alpha, T beta,
                         T* __restrict__ y, std::int64_t ldy, T* __restrict__ partial) {
  const std::int64_t s = (static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x) / GC;
  if (s >= spans) return;
  const int lane = static_cast<int>(threadIdx.x % GC);
  const std::int64_t col0 = static_cast<std::int64_t>(blockIdx.y) * (GC * V * CPL) + lane * V;
  const std::int64_t begin = s * span, end = begin + span < nnz ? begin + span : nnz;
  std::int64_t row = info[3 * s], head = info[3 * s + 1];
  const std::int64_t tail = info[3 * s + 2];
  std::int64_t row_end = ptr[row + 1];
  T acc[CPL][V];
#pragma unroll
  for (int t = 0; t < CPL; ++t)
#pragma unroll
    for (int v = 0; v < V; ++v) acc[t][v] = T(0);
  // The finished row's sums to its slot (slot >= 0) or to Y; acc is cleared for the next row.
  const auto flush = [&](std::int64_t slot) {
#pragma unroll
    for (int t = 0; t < CPL; ++t) {
      const std::int64_t c = col0 + t * GC * V;
      if (c < k) {
        if (slot >= 0) {
#pragma unroll
          for (int v = 0; v < V; ++v) partial[slot * k + c + v] = acc[t][v];
        } else {
          store_y<V>(y + row * ldy + c, acc[t], alpha, beta);
        }
      }
#pragma unroll
      for (int v = 0; v < V; ++v) acc[t][v] = T(0);
    }
  };
  for (std::int64_t p = begin; p < end; p += kBatch) {
    std::int32_t cj[kBatch];
    T aj[kBatch];
    T xv[kBatch][CPL][V];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const bool in = p + j < end;
      cj[j] = in ? __ldg(col + p + j) : 0;
      aj[j] = in ? __ldg(val + p + j) : T(0);
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const T* xr = x + static_cast<std::int64_t>(cj[j]) * ldx + col0;
#pragma unroll
      for (int t = 0; t < CPL; ++t) {
        if (p + j < end && col0 + t * GC * V < k) {
          load_vec<V>(xr + t * GC * V, xv[j][t]);
        } else {
#pragma unroll
          for (int v = 0; v < V; ++v) xv[j][t][v] = T(0);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const std::int64_t q = p + j;
      if (q >= end) break;
      if (q >= row_end) {  // the row is done: it ends inside the span, so only a head row goes to a slot
        flush(head);
        head = -1;
        do ++row;  // past empty rows to the row of entry q
        while (ptr[row + 1] <= q);
        row_end = ptr[row + 1];
      }
#pragma unroll
      for (int t = 0; t < CPL; ++t)
#pragma unroll
        for (int v = 0; v < V; ++v) acc[t][v] += aj[j] * xv[j][t][v];
    }
  }
  flush(head >= 0 ? head : tail);  // a row through the whole span keeps its head slot (tail is then -1)
}

// One thread per (empty row, column): Y = beta Y (0 when beta == 0, Y not read).
template <class T>
__global__ void __launch_bounds__(kBlock)
    csr_spmm_empty_rows_kernel(std::int64_t count, const std::int64_t* __restrict__ rows, std::int64_t k, T beta,
                               T* __restrict__ y, std::int64_t ldy) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (t >= count * k) return;
  T* yp = y + rows[t / k] * ldy + t % k;
  *yp = beta == T(0) ? T(0) : beta * *yp;
}

// The spans of A's non-zeros, planned once: each span's first row and its slots, the rows cut by span boundaries
// (row, first slot, slot count: csr_spmm_chunk_sums_kernel's layout) and the empty rows.
struct Spans {
  std::int64_t span = 0, count = 0, slots = 0, split_rows = 0, empty_rows = 0;
  DeviceBuffer<std::int64_t> info, splits, empty;
};
template <class T>
Spans plan_spans(const Csr<T>& a) {
  Spans r;
  const std::int64_t nnz = a.nnz();
  const double mean = a.rows > 0 ? static_cast<double>(nnz) / static_cast<double>(a.rows) : 0.0;
  // Spans of at least kSpmmCudaSpanMeanRows mean rows keep the slots (two rows of k per span at most) small
  // beside Y; a power of two from kSpmmCudaSpanMin to kSpmmCudaSpanMax.
  r.span = tuning::kSpmmCudaSpanMin;
  while (r.span < tuning::kSpmmCudaSpanMax && static_cast<double>(r.span) < tuning::kSpmmCudaSpanMeanRows * mean) r.span *= 2;
  r.count = (nnz + r.span - 1) / r.span;
  std::vector<std::int64_t> info(static_cast<std::size_t>(3 * r.count)), splits, empty;
  const auto row_of = [&](std::int64_t entry) {  // the row holding entry (empty rows have none)
    return static_cast<std::int64_t>(std::upper_bound(a.row_ptr.begin(), a.row_ptr.end(), entry) - a.row_ptr.begin()) - 1;
  };
  for (std::int64_t s = 0; s < r.count; ++s) {
    const std::int64_t begin = s * r.span, end = std::min(begin + r.span, nnz);
    const std::int64_t first = row_of(begin), last = row_of(end - 1);
    std::int64_t head = -1, tail = -1;
    if (a.row_ptr[first] < begin) {  // the open cut row goes on in this span
      head = r.slots++;
      ++splits.back();
    }
    if (a.row_ptr[last + 1] > end && !(last == first && head >= 0)) {  // a row cut here, its first slot
      tail = r.slots++;
      splits.insert(splits.end(), {last, tail, 1});
    }
    info[3 * s] = first, info[3 * s + 1] = head, info[3 * s + 2] = tail;
  }
  for (std::int64_t i = 0; i < a.rows; ++i)
    if (a.row_ptr[i + 1] == a.row_ptr[i]) empty.push_back(i);
  r.split_rows = static_cast<std::int64_t>(splits.size() / 3);
  r.empty_rows = static_cast<std::int64_t>(empty.size());
  if (r.count) r.info = DeviceBuffer<std::int64_t>(info, "SpMM spans");
  if (r.split_rows) r.splits = DeviceBuffer<std::int64_t>(splits, "SpMM rows cut by spans");
  if (r.empty_rows) r.empty = DeviceBuffer<std::int64_t>(empty, "SpMM empty rows");
  return r;
}

template <class T>
class CsrSpmmNnzSplitPlan final : public CudaSpmmPlanBase<T> {
 public:
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T));

  CsrSpmmNnzSplitPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.csr.spmm_nnzsplit", true, false),
        vector_(choose_shape(s.k, s.k % kVec == 0 ? kVec : 1, 0.0)),
        scalar_(choose_shape(s.k, 1, 0.0)),
        spans_(plan_spans(a)) {
    if (std::max(vector_.tiles, scalar_.tiles) > 65535)
      throw TooLarge("cuda.csr.spmm_nnzsplit: k = " + std::to_string(s.k) + " needs more than 65535 column tiles", 0);
    if (spans_.slots > 0)
      partial_ = DeviceBuffer<T>(static_cast<std::size_t>(spans_.slots * s.k), "SpMM span sums");
    this->upload_csr(a);
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    const cudaStream_t st = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, st)) return;
    const std::int64_t k = this->shape_.k;
    const bool vec = vector_.v > 1 && rows_on_16_bytes(x, ldx) && rows_on_16_bytes<T>(y, ldy);
    const Shape& shape = vec ? vector_ : scalar_;
    const auto go = [&](auto c) {
      using C = decltype(c);
      const dim3 grid(static_cast<unsigned>(blocks_for(spans_.count * C::gc, kBlock, this->props())),
                      static_cast<unsigned>(shape.tiles));
      csr_spmm_span_kernel<C::gc, C::v, C::cpl, T><<<grid, kBlock, 0, st>>>(
          spans_.count, spans_.span, this->nnz_, spans_.info.get(), k, this->row_ptr_.get(), this->col_idx_.get(),
          this->values_.get(), x, ldx, alpha, beta, y, ldy, partial_.get());
      SPKIT_LAUNCH_CHECK("csr_spmm_span_kernel");
    };
    if (vec) dispatch<kVec>(shape, go);
    else dispatch<1>(shape, go);
    if (spans_.split_rows > 0) {
      const std::int64_t blocks = blocks_for(spans_.split_rows * k, kBlock, this->props());
      csr_spmm_chunk_sums_kernel<false, T><<<static_cast<unsigned>(blocks), kBlock, 0, st>>>(
          spans_.split_rows, spans_.splits.get(), k, partial_.get(), alpha, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_chunk_sums_kernel");
    }
    if (spans_.empty_rows > 0) {
      const std::int64_t blocks = blocks_for(spans_.empty_rows * k, kBlock, this->props());
      csr_spmm_empty_rows_kernel<T><<<static_cast<unsigned>(blocks), kBlock, 0, st>>>(spans_.empty_rows,
                                                                                       spans_.empty.get(), k, beta, y, ldy);
      SPKIT_LAUNCH_CHECK("csr_spmm_empty_rows_kernel");
    }
  }
  std::string detail() const override {
    return std::to_string(spans_.count) + " spans of " + std::to_string(spans_.span) + " non-zeros, " +
           std::to_string(vector_.gc) + " lanes each over columns in " + std::to_string(vector_.v) + "-wide vectors x " +
           std::to_string(vector_.cpl) + ", " + std::to_string(spans_.split_rows) + " rows cut by spans, " +
           std::to_string(spans_.empty_rows) + " empty rows";
  }

 private:
  Shape vector_, scalar_;  // lanes over columns with 16-byte vectors (when k allows) and without; gn is 1
  Spans spans_;
  DeviceBuffer<T> partial_;  // spans_.slots x k sums of the cut rows: one product at a time per plan
};

}  // namespace

void register_cuda_csr_nnzsplit_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cuda.csr.spmm_nnzsplit";
  k.backend = Backend::cuda;
  k.col_major = false;
  k.description = "CSR SpMM, row-major X/Y: non-zero splitting after the merge-based SpMM of Yang, Buluç and Owens "
                  "(2018): equal spans of A's non-zeros per group of lanes over k's columns, X's rows loaded in "
                  "batches, rows cut by a span boundary summed in span order by a second kernel";
  add_spmm_kernel<CsrSpmmNnzSplitPlan>(reg, std::move(k));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_csr_nnzsplit_spmm(SpmmRegistry& reg) { cuda::register_cuda_csr_nnzsplit_spmm(reg); }
}  // namespace spkit
