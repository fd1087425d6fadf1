// cpu.sell.omp.simd: SELL-C-sigma (Kreutzer et al., "A unified sparse matrix data format for efficient
// general sparse matrix-vector multiply on modern processors with wide SIMD units") cut for one AVX-512
// register: slices of 16 rows, so a column step of a slice is one 16-lane gather of x and one FMA into
// sums that stay in registers for the whole slice (no horizontal reduction per row, which dominates CSR
// on rows of ~10 entries). Rows are sorted by length within windows of sigma rows, so a slice's rows have
// about the same length; each step's lanes past a row's end are masked off (a 16-bit mask per step), so
// padding never reads x and a NaN or Inf in x cannot leak into other rows through 0 * x.
// Column indices are 16-bit offsets from the slice's smallest column where the slice spans < 2^16 columns
// (every slice of a matrix with < 65536 columns), else 32-bit: 6 bytes per fp32 non-zero against CSR's 8.
// Rows much longer than the mean are left out of the slices (they would pad their slice) and run as CSR
// rows cut into chunks, so one huge row is shared by all threads; the chunks' sums are added after the
// parallel loop. Without AVX-512 the same steps run as a portable loop over the 16 lanes.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "kernels/cpu/csr_simd.hpp"
#include "spkit/error.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

constexpr int kLanes = 16;  // rows per slice: one zmm of fp32 indices and sums (two zmm of fp64 sums)

// Whether row i of `a` runs as chunked CSR rather than in a slice.
inline std::int64_t long_row_threshold(std::int64_t rows, std::int64_t nnz) {
  const std::int64_t mean = rows > 0 ? (nnz + rows - 1) / rows : 0;
  return std::max<std::int64_t>(tuning::kCpuSellSimdLongRowMin, tuning::kCpuSellSimdLongRowFactor * mean);
}

// The 16 lanes of one column step: sums[r] += val[r] * x[col[r]] where mask bit r is set.
#if defined(SPKIT_CSR_AVX512)
inline void slice_step(__m512& acc, __m512& /*unused*/, __mmask16 m, __m512i idx, const float* val, const float* x) {
  acc = _mm512_fmadd_ps(_mm512_loadu_ps(val), _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, idx, x, 4), acc);
}
inline void slice_step(__m512d& lo, __m512d& hi, __mmask16 m, __m512i idx, const double* val, const double* x) {
  const __m512d xl = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), static_cast<__mmask8>(m), _mm512_castsi512_si256(idx), x, 8);
  const __m512d xh = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), static_cast<__mmask8>(m >> 8),
                                              _mm512_extracti64x4_epi64(idx, 1), x, 8);
  lo = _mm512_fmadd_pd(_mm512_loadu_pd(val), xl, lo);
  hi = _mm512_fmadd_pd(_mm512_loadu_pd(val + 8), xh, hi);
}
template <class T>
struct LaneSums;
template <>
struct LaneSums<float> {
  __m512 a = _mm512_setzero_ps(), b = _mm512_setzero_ps();
  void store(float* out) const { _mm512_storeu_ps(out, a); }
};
template <>
struct LaneSums<double> {
  __m512d a = _mm512_setzero_pd(), b = _mm512_setzero_pd();
  void store(double* out) const {
    _mm512_storeu_pd(out, a);
    _mm512_storeu_pd(out + 8, b);
  }
};
inline __m512i lane_index(const std::uint16_t* c, __m512i base) {
  return _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c))), base);
}
inline __m512i lane_index(const std::int32_t* c, __m512i) { return _mm512_loadu_si512(c); }
#endif

template <class T>
class SellSimd : public CpuSpmvPlan<T> {
 public:
  SellSimd(const Csr<T>& a, const PlanOptions& o)
      : threads_(cpu::plan_threads(o.threads)), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
    if (a.rows >= std::numeric_limits<std::int32_t>::max())
      throw NotApplicable("cpu.sell.omp.simd: " + std::to_string(a.rows) + " rows exceed its 32-bit row numbers");
    const std::int64_t long_min = long_row_threshold(rows_, nnz_);
    std::vector<std::int32_t> short_rows;
    for (std::int64_t i = 0; i < rows_; ++i) {
      const std::int64_t len = a.row_ptr[i + 1] - a.row_ptr[i];
      if (len >= long_min) long_rows_.push_back(static_cast<std::int32_t>(i));
      else short_rows.push_back(static_cast<std::int32_t>(i));
    }
    // Sigma windows: rows by descending length, stable, so equal rows keep their order (x locality).
    const std::int64_t sigma = std::max<std::int64_t>(kLanes, tuning::kCpuSellSimdSigma);
    for (std::size_t w = 0; w < short_rows.size(); w += static_cast<std::size_t>(sigma)) {
      const auto b = short_rows.begin() + static_cast<std::ptrdiff_t>(w);
      const auto e = short_rows.begin() + static_cast<std::ptrdiff_t>(std::min(short_rows.size(), w + sigma));
      std::stable_sort(b, e, [&](std::int32_t p, std::int32_t q) {
        return a.row_ptr[p + 1] - a.row_ptr[p] > a.row_ptr[q + 1] - a.row_ptr[q];
      });
    }
    build_slices(a, short_rows);
    build_long_chunks(a);
    build_tasks();
  }

  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) { run_with(x, y, out); });
  }

  std::uint64_t bytes_moved() const override {
    return static_cast<std::uint64_t>(val_.size()) * sizeof(T) + idx16_.size() * 2 + idx32_.size() * 4 +
           mask_.size() * 2 + perm_.size() * 4 + slices() * sizeof(Slice) +
           static_cast<std::uint64_t>(long_nnz_) * (4 + sizeof(T)) + chunks_.size() * sizeof(Chunk) +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    std::int64_t n16 = 0;
    for (const Slice& s : slice_) n16 += s.narrow;
    const double slots = static_cast<double>(val_.size());
    return "C 16, sigma " + std::to_string(tuning::kCpuSellSimdSigma) + ", padding " +
           cpu::percent(slots - static_cast<double>(nnz_ - long_nnz_), slots) + ", " + std::to_string(n16) + "/" +
           std::to_string(slices()) + " slices 16-bit, " + std::to_string(long_rows_.size()) + " long rows in " +
           std::to_string(chunks_.size()) + " chunks";
  }

 private:
  struct Slice {
    std::int64_t slot;   // first slot in val_ (and in mask_ / kLanes)
    std::int64_t index;  // first index in idx16_ or idx32_
    std::int32_t width;  // column steps
    std::int32_t base;   // smallest column of a 16-bit slice
    std::int32_t rows;   // rows in use (16 but in the last slice)
    std::int32_t narrow;  // 16-bit indices
  };
  struct Chunk {
    std::int64_t begin, end;  // non-zeros of a long row
    std::int32_t row;
    std::int32_t whole;  // the row's only chunk: written directly
  };

  std::uint64_t slices() const { return slice_.size(); }

  void build_slices(const Csr<T>& a, const std::vector<std::int32_t>& order) {
    const std::int64_t n = static_cast<std::int64_t>(order.size());
    perm_.assign(static_cast<std::size_t>((n + kLanes - 1) / kLanes * kLanes), 0);
    std::copy(order.begin(), order.end(), perm_.begin());
    for (std::int64_t first = 0; first < n; first += kLanes) {
      Slice s{static_cast<std::int64_t>(val_.size()), 0, 0, 0, static_cast<std::int32_t>(std::min<std::int64_t>(kLanes, n - first)), 0};
      std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
      for (std::int32_t r = 0; r < s.rows; ++r) {
        const std::int64_t i = order[first + r];
        s.width = std::max(s.width, static_cast<std::int32_t>(a.row_ptr[i + 1] - a.row_ptr[i]));
        for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
          lo = std::min<std::int64_t>(lo, a.col_idx[k]);
          hi = std::max<std::int64_t>(hi, a.col_idx[k]);
        }
      }
      s.narrow = hi < 0 || hi - lo <= std::numeric_limits<std::uint16_t>::max();
      s.base = s.narrow && hi >= 0 ? static_cast<std::int32_t>(lo) : 0;
      s.index = static_cast<std::int64_t>(s.narrow ? idx16_.size() : idx32_.size());
      const std::size_t slots = static_cast<std::size_t>(s.width) * kLanes;
      val_.resize(val_.size() + slots, T(0));
      mask_.resize(mask_.size() + static_cast<std::size_t>(s.width), 0);
      if (s.narrow) idx16_.resize(idx16_.size() + slots, 0);
      else idx32_.resize(idx32_.size() + slots, 0);
      for (std::int32_t r = 0; r < s.rows; ++r) {
        const std::int64_t i = order[first + r], b = a.row_ptr[i], len = a.row_ptr[i + 1] - b;
        for (std::int64_t k = 0; k < len; ++k) {
          const std::size_t at = static_cast<std::size_t>(k * kLanes + r);
          val_[static_cast<std::size_t>(s.slot) + at] = a.values[b + k];
          if (s.narrow) idx16_[static_cast<std::size_t>(s.index) + at] = static_cast<std::uint16_t>(a.col_idx[b + k] - s.base);
          else idx32_[static_cast<std::size_t>(s.index) + at] = a.col_idx[b + k];
          mask_[static_cast<std::size_t>(s.slot / kLanes + k)] |= static_cast<std::uint16_t>(1u << r);
        }
      }
      slice_.push_back(s);
    }
  }

  void build_long_chunks(const Csr<T>& a) {
    for (std::int32_t i : long_rows_) {
      const std::int64_t b = a.row_ptr[i], e = a.row_ptr[i + 1];
      long_nnz_ += e - b;
      const std::int64_t pieces = (e - b + tuning::kCpuSellSimdChunkNnz - 1) / tuning::kCpuSellSimdChunkNnz;
      const auto at = static_cast<std::int64_t>(long_col_.size());
      for (std::int64_t p = 0; p < pieces; ++p)
        chunks_.push_back({at + (e - b) * p / pieces, at + (e - b) * (p + 1) / pieces, i, pieces == 1});
      long_col_.insert(long_col_.end(), a.col_idx.begin() + b, a.col_idx.begin() + e);
      long_val_.insert(long_val_.end(), a.values.begin() + b, a.values.begin() + e);
    }
    chunk_sum_.assign(chunks_.size(), T(0));
  }

  // Tasks handed out dynamically: runs of chunks, then runs of slices, each about total / parts slots.
  void build_tasks() {
    const int parts = threads_ == 1 ? 1 : threads_ * tuning::kCsrSpkitSharesPerThread;
    const std::int64_t total = static_cast<std::int64_t>(val_.size()) + long_nnz_;
    const std::int64_t target = std::max<std::int64_t>(kLanes, total / parts);
    std::int64_t load = 0, start = 0;
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      load += chunks_[c].end - chunks_[c].begin;
      if (load >= target || c + 1 == chunks_.size()) {
        task_.push_back({true, start, static_cast<std::int64_t>(c) + 1});
        start = static_cast<std::int64_t>(c) + 1;
        load = 0;
      }
    }
    load = start = 0;
    for (std::size_t s = 0; s < slice_.size(); ++s) {
      load += static_cast<std::int64_t>(slice_[s].width) * kLanes + kLanes;  // + the per-row work of writing y
      if (load >= target || s + 1 == slice_.size()) {
        task_.push_back({false, start, static_cast<std::int64_t>(s) + 1});
        start = static_cast<std::int64_t>(s) + 1;
        load = 0;
      }
    }
  }

  template <class Out>
  void run_slice(std::int64_t at, const T* __restrict x, T* __restrict y, Out out) const {
    const Slice& s = slice_[static_cast<std::size_t>(at)];
    alignas(64) T sums[kLanes];
    const T* __restrict val = val_.data() + s.slot;
    const std::uint16_t* __restrict mask = mask_.data() + s.slot / kLanes;
#if defined(SPKIT_CSR_AVX512)
    LaneSums<T> acc;
    const __m512i base = _mm512_set1_epi32(s.base);
    auto steps = [&](const auto* __restrict idx) {
      for (std::int32_t k = 0; k < s.width; ++k)
        slice_step(acc.a, acc.b, mask[k], lane_index(idx + k * kLanes, base), val + k * kLanes, x);
    };
    if (s.narrow) steps(idx16_.data() + s.index);
    else steps(idx32_.data() + s.index);
    acc.store(sums);
#else
    for (int r = 0; r < kLanes; ++r) sums[r] = T(0);
    auto steps = [&](const auto* __restrict idx) {
      for (std::int32_t k = 0; k < s.width; ++k) {
        const unsigned m = mask[k];
#pragma omp simd
        for (int r = 0; r < kLanes; ++r)
          if (m >> r & 1u) sums[r] += val[k * kLanes + r] * x[s.base + static_cast<std::int64_t>(idx[k * kLanes + r])];
      }
    };
    if (s.narrow) steps(idx16_.data() + s.index);
    else steps(idx32_.data() + s.index);
#endif
    const std::int32_t* __restrict rows = perm_.data() + at * kLanes;
    for (std::int32_t r = 0; r < s.rows; ++r) out.write(y[rows[r]], sums[r]);
  }

  template <class Out>
  void run_with(const T* __restrict x, T* __restrict y, Out out) {
    const std::int64_t tasks = static_cast<std::int64_t>(task_.size());
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (std::int64_t t = 0; t < tasks; ++t) {
      const Task& task = task_[t];
      for (std::int64_t i = task.begin; i < task.end; ++i) {
        if (!task.chunks) {
          run_slice(i, x, y, out);
          continue;
        }
        const Chunk& c = chunks_[i];
        const T sum = cpu::row_dot(long_val_.data(), long_col_.data(), c.begin, c.end, x);
        if (c.whole) out.write(y[c.row], sum);
        else chunk_sum_[i] = sum;
      }
    }
    // Rows split into several chunks: their sums in order, written once.
    for (std::size_t c = 0; c < chunks_.size();) {
      if (chunks_[c].whole) {
        ++c;
        continue;
      }
      T sum = 0;
      const std::int32_t row = chunks_[c].row;
      for (; c < chunks_.size() && chunks_[c].row == row; ++c) sum += chunk_sum_[c];
      out.write(y[row], sum);
    }
  }

  struct Task {
    bool chunks;  // a run of long-row chunks, else of slices
    std::int64_t begin, end;
  };

  int threads_;
  std::int64_t rows_, cols_, nnz_, long_nnz_ = 0;
  std::vector<Slice> slice_;
  std::vector<T> val_;               // slice-major, then step-major: 16 lanes per column step
  std::vector<std::uint16_t> idx16_, mask_;
  std::vector<std::int32_t> idx32_, perm_;  // perm_: the row of each lane (16 per slice)
  std::vector<std::int32_t> long_rows_, long_col_;
  std::vector<T> long_val_, chunk_sum_;
  std::vector<Chunk> chunks_;
  std::vector<Task> task_;
};

// Cost model: the slots of SELL-C-sigma as MatrixStats estimates them (C = 32, sigma 1024), capped at
// tuning::kCpuSellSimdPaddingCap since the long rows that pad those slices run outside ours; 16-bit indices
// when every column fits 16 bits, else 32-bit; a 2-byte mask per 16 slots and the 4-byte permutation per row.
CostEstimate sell_simd_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  if (s.rows >= std::numeric_limits<std::int32_t>::max()) return cost::not_applicable("rows exceed 32 bits");
  CostEstimate e;
  e.applicable = true;
  const double slots = static_cast<double>(s.nnz) * (1.0 + std::min(s.sell_padding_ratio, tuning::kCpuSellSimdPaddingCap));
  const bool narrow = s.cols <= 65536;
  e.bytes = static_cast<std::uint64_t>(slots * (static_cast<double>(cost::value_bytes(p)) + (narrow ? 2 : 4) + 2.0 / 16)) +
            static_cast<std::uint64_t>(s.rows) * 4 + cost::vector_bytes(s, p);
  e.efficiency = cost::with_gathers(tuning::kCpuSellSimdEfficiency, e.bytes, s, Backend::cpu);
  e.launch_us = tuning::kCpuForkJoinUs + tuning::kCpuPerThreadUs * o.threads;
  e.convert_bytes = cost::in(s.bytes_csr, p) * 2;
  e.note = std::string("SELL-16-sigma, ") + (narrow ? "16-bit" : "32-bit") + " columns";
  return e;
}

}  // namespace

void register_cpu_sell_simd_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "cpu.sell.omp.simd";
  k.format = Format::sell;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.description = "SELL-C-sigma (Kreutzer et al.) with C = 16 rows per AVX-512 register, masked gathers, 16-bit "
                  "column offsets per slice, long rows as chunked CSR shared by the threads";
  k.cost = sell_simd_cost;
  add_kernel<SellSimd>(reg, std::move(k));
}

}  // namespace spkit
