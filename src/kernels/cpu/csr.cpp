// CPU CSR kernels: the serial reference loop, three OpenMP row schedules (balanced contiguous ranges,
// dynamic, guided), and spkit's own merge-path kernel (cpu.csr.omp.spkit, after Merrill & Garland's
// merge-based SpMV) built to be the fastest CSR SpMV on the CPU. Each writes y = alpha*A*x + beta*y
// where it finishes a row (cpu::with_epilogue).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "kernels/cpu/csr_simd.hpp"
#include "spkit/error.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

using cpu::csr_bytes;
using cpu::row_dot;

// Plain serial CSR (the reference loop), inner product vectorised with a gather.
template <class T>
class CsrSerial : public CpuSpmvPlan<T> {
 public:
  CsrSerial(const Csr<T>& a, const PlanOptions&) : a_(a) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      for (std::int64_t i = 0; i < a_.rows; ++i)
        out.write(y[i], row_dot(a_.values.data(), a_.col_idx.data(), ptr[i], ptr[i + 1], x));
    });
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }

 private:
  Csr<T> a_;
};

// Contiguous row ranges with balanced non-zero counts, one per thread, computed at plan time.
template <class T>
class CsrNnzBalanced : public CpuSpmvPlan<T> {
 public:
  CsrNnzBalanced(const Csr<T>& a, const PlanOptions& o)
      : a_(a), threads_(cpu::plan_threads(o.threads)), cut_(cpu::nnz_balanced_rows(a_.row_ptr, a_.rows, threads_)) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    const std::int32_t* col = a_.col_idx.data();
    const T* val = a_.values.data();
    const int ranges = static_cast<int>(cut_.size()) - 1;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel num_threads(threads_)
      {
        const int nt = omp_get_num_threads();
        for (int r = omp_get_thread_num(); r < ranges; r += nt)
          for (std::int64_t i = cut_[r]; i < cut_[r + 1]; ++i)
            out.write(y[i], row_dot(val, col, ptr[i], ptr[i + 1], x));
      }
    });
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }
  std::string detail() const override { return std::to_string(cut_.size() - 1) + " row ranges"; }

 private:
  Csr<T> a_;
  int threads_;
  std::vector<std::int64_t> cut_;
};

// schedule(dynamic, chunk) with chunk = tuning::kCsrDynamicNzPerChunk / mean row length.
template <class T>
class CsrDynamic : public CpuSpmvPlan<T> {
 public:
  CsrDynamic(const Csr<T>& a, const PlanOptions& o) : a_(a), threads_(cpu::plan_threads(o.threads)) {
    const std::int64_t mean = a_.rows > 0 ? std::max<std::int64_t>(1, a_.nnz() / a_.rows) : 1;
    chunk_ = static_cast<int>(std::max<std::int64_t>(1, tuning::kCsrDynamicNzPerChunk / mean));
  }
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    const std::int32_t* col = a_.col_idx.data();
    const T* val = a_.values.data();
    const std::int64_t rows = a_.rows;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel for num_threads(threads_) schedule(dynamic, chunk_)
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], row_dot(val, col, ptr[i], ptr[i + 1], x));
    });
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }
  std::string detail() const override { return "chunk " + std::to_string(chunk_) + " rows"; }

 private:
  Csr<T> a_;
  int threads_;
  int chunk_ = 1;
};

template <class T>
class CsrGuided : public CpuSpmvPlan<T> {
 public:
  CsrGuided(const Csr<T>& a, const PlanOptions& o) : a_(a), threads_(cpu::plan_threads(o.threads)) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    const std::int32_t* col = a_.col_idx.data();
    const T* val = a_.values.data();
    const std::int64_t rows = a_.rows;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel for num_threads(threads_) schedule(guided)
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], row_dot(val, col, ptr[i], ptr[i + 1], x));
    });
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }

 private:
  Csr<T> a_;
  int threads_;
};

// spkit's CSR kernel. At plan time:
//  * the work is cut along the merge path of (row ends, non-zeros) into equal shares (Merrill & Garland),
//    so rows and non-zeros are balanced together and a long row is split between threads: each share
//    ends with a partial "carry" for the row it stops in, and a share whose first row began in an
//    earlier share keeps that row's last part aside ("head"); after the parallel region the carries and
//    the head of each split row are summed and the epilogue applied once, so alpha and beta meet every
//    row exactly once;
//  * the plan keeps its own copies of the arrays, written by the thread that reads them (first touch);
//  * row offsets are 32-bit when nnz < 2^31, and column indices are stored as 16-bit offsets from the
//    row index when every |col - row| < 2^15 (stencils, FEM, banded matrices), so fewer bytes move;
//  * the row dot product is explicit AVX-512 (full-width gathers and one masked tail) where available.
// Stencils and bands are better as DIA: cpu.dia.omp / cpu.dia.omp_sym (kernels/cpu/dia.cpp), picked by auto.
template <class T>
class CsrSpkit : public CpuSpmvPlan<T> {
 public:
  CsrSpkit(const Csr<T>& a, const PlanOptions& o)
      : threads_(cpu::plan_threads(o.threads)), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
    narrow_ptr_ = nnz_ < std::numeric_limits<std::int32_t>::max();
    bool fits16 = rows_ < std::numeric_limits<std::int32_t>::max();
    const std::int64_t rows = rows_;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(&& : fits16)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::int64_t d = a.col_idx[k] - i;
        fits16 = fits16 && d >= std::numeric_limits<std::int16_t>::min() && d <= std::numeric_limits<std::int16_t>::max();
      }
    rel16_ = fits16;
    // Merge-path split: share p starts at diagonal p * (rows + nnz) / parts. With several threads,
    // kSharesPerThread shares each, handed out dynamically: equal non-zeros are not equal time when
    // gathers from x miss the cache unevenly (random and power-law matrices on many cores).
    parts_ = threads_ == 1 ? 1 : threads_ * tuning::kCsrSpkitSharesPerThread;
    row_begin_.resize(parts_ + 1);
    nz_begin_.resize(parts_ + 1);
    for (int p = 0; p <= parts_; ++p) {
      const std::int64_t diag = (rows_ + nnz_) * p / parts_;
      std::int64_t lo = std::max<std::int64_t>(0, diag - nnz_), hi = std::min(diag, rows_);
      while (lo < hi) {  // first i on this diagonal whose row i ends after the non-zeros consumed
        const std::int64_t mid = (lo + hi) / 2;
        if (a.row_ptr[mid + 1] <= diag - mid - 1) lo = mid + 1; else hi = mid;
      }
      row_begin_[p] = lo;
      nz_begin_[p] = diag - lo;
    }
    // Share p's first row began in an earlier share when the share starts inside it.
    split_head_.assign(static_cast<std::size_t>(parts_), 0);
    for (int p = 1; p < parts_; ++p)
      split_head_[p] = row_begin_[p] < rows_ && nz_begin_[p] > a.row_ptr[row_begin_[p]];
    carry_.resize(static_cast<std::size_t>(parts_) * kPad, T(0));
    head_.resize(static_cast<std::size_t>(parts_) * kPad, T(0));
    // Own copies, first touched by the thread that will read them.
    if (narrow_ptr_) ptr32_ = cpu::FirstTouchArray<std::uint32_t>(static_cast<std::size_t>(rows_) + 1);
    else ptr64_ = cpu::FirstTouchArray<std::int64_t>(static_cast<std::size_t>(rows_) + 1);
    if (rel16_) col16_ = cpu::FirstTouchArray<std::int16_t>(static_cast<std::size_t>(nnz_));
    else col32_ = cpu::FirstTouchArray<std::int32_t>(static_cast<std::size_t>(nnz_));
    val_ = cpu::FirstTouchArray<T>(static_cast<std::size_t>(nnz_));
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int p = omp_get_thread_num(); p < parts_; p += nt) {
        const std::int64_t r0 = p == 0 ? 0 : row_begin_[p] + 1, r1 = row_begin_[p + 1];
        for (std::int64_t i = r0; i <= r1 && i <= rows_; ++i) {
          if (narrow_ptr_) ptr32_[i] = static_cast<std::uint32_t>(a.row_ptr[i]);
          else ptr64_[i] = a.row_ptr[i];
        }
        // Non-zeros of this share, with the row each belongs to for the relative columns.
        std::int64_t i = row_begin_[p];
        for (std::int64_t k = nz_begin_[p]; k < nz_begin_[p + 1]; ++k) {
          while (a.row_ptr[i + 1] <= k) ++i;
          if (rel16_) col16_[k] = static_cast<std::int16_t>(a.col_idx[k] - i);
          else col32_[k] = a.col_idx[k];
          val_[k] = a.values[k];
        }
      }
    }
  }

  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      if (narrow_ptr_) {
        if (rel16_) run_with(ptr32_.data(), col16_.data(), x, y, out);
        else run_with(ptr32_.data(), col32_.data(), x, y, out);
      } else {
        if (rel16_) run_with(ptr64_.data(), col16_.data(), x, y, out);
        else run_with(ptr64_.data(), col32_.data(), x, y, out);
      }
    });
  }

  std::uint64_t bytes_moved() const override {
    return static_cast<std::uint64_t>(rows_ + 1) * (narrow_ptr_ ? 4 : 8) +
           static_cast<std::uint64_t>(nnz_) * ((rel16_ ? 2 : 4) + sizeof(T)) +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    return std::string(narrow_ptr_ ? "32" : "64") + "-bit row offsets, " +
           (rel16_ ? "16-bit relative" : "32-bit") + " columns, " + std::to_string(parts_) + " merge-path shares";
  }

 private:
  static constexpr std::size_t kPad = 64 / sizeof(T);  // one carry per cache line
  template <class Col>
  static T dot(const T* __restrict val, const Col* __restrict col, std::int64_t b, std::int64_t e, std::int64_t row,
               const T* __restrict x) {
#if defined(SPKIT_CSR_AVX512)
    return cpu::simd_row_dot(val, col, b, e, sizeof(Col) == 2 ? static_cast<std::int32_t>(row) : 0, x);
#else
    T sum = 0;
    if constexpr (sizeof(Col) == 2) {
      const T* xr = x + row;  // columns are stored as col - row
#pragma omp simd reduction(+ : sum)
      for (std::int64_t k = b; k < e; ++k) sum += val[k] * xr[col[k]];
    } else {
#pragma omp simd reduction(+ : sum)
      for (std::int64_t k = b; k < e; ++k) sum += val[k] * x[col[k]];
    }
    return sum;
#endif
  }

  template <class Ptr, class Col, class Out>
  void run_with(const Ptr* __restrict ptr, const Col* __restrict col, const T* __restrict x, T* __restrict y,
                Out out) {
    const T* __restrict val = val_.data();
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
    for (int p = 0; p < parts_; ++p) {
      std::int64_t j = nz_begin_[p], i = row_begin_[p];
      const std::int64_t i_end = row_begin_[p + 1], j_end = nz_begin_[p + 1];
      if (split_head_[p] && i < i_end) {  // the rest of a row begun in an earlier share: kept aside
        const std::int64_t e = static_cast<std::int64_t>(ptr[i + 1]);
        head_[p * kPad] = dot(val, col, j, e, i, x);
        j = e;
        ++i;
      }
      for (; i < i_end; ++i) {
        const std::int64_t e = static_cast<std::int64_t>(ptr[i + 1]);
        out.write(y[i], dot(val, col, j, e, i, x));
        j = e;
      }
      carry_[p * kPad] = j < j_end ? dot(val, col, j, j_end, i_end, x) : T(0);
    }
    // Split rows: the carries of the shares that stop inside a row, then the head of the share that
    // finishes it, summed in order and written once.
    T pending = 0;
    for (int p = 1; p < parts_; ++p) {
      pending += carry_[(p - 1) * kPad];
      if (!split_head_[p] || row_begin_[p + 1] == row_begin_[p]) continue;  // row unsplit, or still going on
      out.write(y[row_begin_[p]], pending + head_[p * kPad]);
      pending = 0;
    }
  }

  int threads_;
  std::int64_t rows_, cols_, nnz_;
  bool narrow_ptr_ = false, rel16_ = false;
  int parts_ = 1;
  std::vector<std::int64_t> row_begin_, nz_begin_;
  std::vector<char> split_head_;  // per share: its first row began in an earlier share
  std::vector<T> carry_, head_;
  cpu::FirstTouchArray<std::uint32_t> ptr32_;
  cpu::FirstTouchArray<std::int64_t> ptr64_;
  cpu::FirstTouchArray<std::int16_t> col16_;
  cpu::FirstTouchArray<std::int32_t> col32_;
  cpu::FirstTouchArray<T> val_;
};

// Cost model of cpu.csr.omp.spkit as a CSR kernel: 32-bit offsets below 2^31 non-zeros, 16-bit relative
// columns when every |col - row| < 2^15, merge-path shares (no imbalance from long rows). Its diagonal
// path is not modelled (a DIA kernel is the place for stencils). Efficiency: docs/perf/selector.md.
CostEstimate csr_spkit_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e;
  e.applicable = true;
  const bool narrow_cols = s.max_diag_distance < (1 << 15);
  e.bytes = cost::csr_bytes(s, p, s.nnz < (std::int64_t{1} << 31) ? 4 : 8, narrow_cols ? 2 : 4);
  e.efficiency = cost::with_gathers(tuning::kCsrSpkitEfficiency, e.bytes, s, Backend::cpu);
  e.launch_us = tuning::kCpuForkJoinUs + tuning::kCpuPerThreadUs * o.threads;  // fork-join, carries
  e.note = narrow_cols ? "16-bit relative columns" : "32-bit columns";
  return e;
}

}  // namespace

void register_cpu_csr_kernels(Registry& reg) {
  {
    KernelInfo k;
    k.name = "cpu.csr.serial";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.description = "serial CSR, one row at a time, vectorised gather-dot (the reference loop)";
    add_kernel<CsrSerial>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.csr.omp.nnz_balanced";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP CSR, one contiguous row range per thread with balanced non-zeros";
    add_kernel<CsrNnzBalanced>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.csr.omp.dynamic";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP CSR, schedule(dynamic) with chunks of ~8192 non-zeros, omp simd rows";
    add_kernel<CsrDynamic>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.csr.omp.guided";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP CSR, schedule(guided) over rows";
    add_kernel<CsrGuided>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.csr.omp.spkit";
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "spkit: Merrill & Garland's merge-path split with carries, first-touch own copies, 32-bit "
                    "offsets, 16-bit relative columns when they fit, AVX-512 rows";
    k.cost = csr_spkit_cost;
    add_kernel<CsrSpkit>(reg, std::move(k));
  }
}

}  // namespace spkit
