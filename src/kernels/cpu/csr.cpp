// CPU CSR kernels: the serial reference loop, the three OpenMP schedules of seeds 000/002, and spkit's
// own merge-path kernel (cpu.csr.omp.spkit) built to be the fastest CSR SpMV on the CPU.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/cpu/cpu_common.hpp"
#include "kernels/cpu/csr_simd.hpp"
#include "spkit/error.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

using cpu::csr_bytes;
using cpu::row_dot;

// Plain serial CSR (the reference loop), inner product vectorised with a gather.
template <class T>
class CsrSerial : public CpuSpmvPlan<T> {
 public:
  CsrSerial(const Csr<T>& a, const PlanOptions&) : a_(a) {}
  void run(const T* x, T* y) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    for (std::int64_t i = 0; i < a_.rows; ++i) y[i] = row_dot(a_.values.data(), a_.col_idx.data(), ptr[i], ptr[i + 1], x);
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }

 private:
  Csr<T> a_;
};

// Seed 000: contiguous row ranges with balanced non-zero counts, one per thread, computed at plan time.
template <class T>
class CsrNnzBalanced : public CpuSpmvPlan<T> {
 public:
  CsrNnzBalanced(const Csr<T>& a, const PlanOptions& o)
      : a_(a), threads_(cpu::plan_threads(o.threads)), cut_(cpu::nnz_balanced_rows(a_.row_ptr, a_.rows, threads_)) {}
  void run(const T* x, T* y) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    const std::int32_t* col = a_.col_idx.data();
    const T* val = a_.values.data();
    const int ranges = static_cast<int>(cut_.size()) - 1;
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int r = omp_get_thread_num(); r < ranges; r += nt)
        for (std::int64_t i = cut_[r]; i < cut_[r + 1]; ++i) y[i] = row_dot(val, col, ptr[i], ptr[i + 1], x);
    }
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }
  std::string detail() const override { return std::to_string(cut_.size() - 1) + " row ranges"; }

 private:
  Csr<T> a_;
  int threads_;
  std::vector<std::int64_t> cut_;
};

// Seed 002: schedule(dynamic, chunk) with chunk = NZ_PER_CHUNK / mean row length.
constexpr std::int64_t kNzPerChunk = 8192;

template <class T>
class CsrDynamic : public CpuSpmvPlan<T> {
 public:
  CsrDynamic(const Csr<T>& a, const PlanOptions& o) : a_(a), threads_(cpu::plan_threads(o.threads)) {
    const std::int64_t mean = a_.rows > 0 ? std::max<std::int64_t>(1, a_.nnz() / a_.rows) : 1;
    chunk_ = static_cast<int>(std::max<std::int64_t>(1, kNzPerChunk / mean));
  }
  void run(const T* x, T* y) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    const std::int32_t* col = a_.col_idx.data();
    const T* val = a_.values.data();
    const std::int64_t rows = a_.rows;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, chunk_)
    for (std::int64_t i = 0; i < rows; ++i) y[i] = row_dot(val, col, ptr[i], ptr[i + 1], x);
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
  void run(const T* x, T* y) override {
    const std::int64_t* ptr = a_.row_ptr.data();
    const std::int32_t* col = a_.col_idx.data();
    const T* val = a_.values.data();
    const std::int64_t rows = a_.rows;
#pragma omp parallel for num_threads(threads_) schedule(guided)
    for (std::int64_t i = 0; i < rows; ++i) y[i] = row_dot(val, col, ptr[i], ptr[i + 1], x);
  }
  std::uint64_t bytes_moved() const override { return csr_bytes<T>(a_.rows, a_.cols, a_.nnz()); }

 private:
  Csr<T> a_;
  int threads_;
};

// spkit's CSR kernel. At plan time:
//  * the work is cut along the merge path of (row ends, non-zeros) into one equal share per thread,
//    so rows and non-zeros are balanced together and a long row is split between threads (each share
//    ends with a partial "carry" for the row it stops in, added after the parallel region);
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
    parts_ = threads_ == 1 ? 1 : threads_ * kSharesPerThread;
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
    carry_.resize(static_cast<std::size_t>(parts_) * kPad, T(0));
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

  void run(const T* x, T* y) override {
    if (narrow_ptr_) {
      if (rel16_) run_with(ptr32_.data(), col16_.data(), x, y); else run_with(ptr32_.data(), col32_.data(), x, y);
    } else {
      if (rel16_) run_with(ptr64_.data(), col16_.data(), x, y); else run_with(ptr64_.data(), col32_.data(), x, y);
    }
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
  static constexpr int kSharesPerThread = 8;
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

  template <class Ptr, class Col>
  void run_with(const Ptr* __restrict ptr, const Col* __restrict col, const T* __restrict x, T* __restrict y) {
    const T* __restrict val = val_.data();
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
      for (int p = 0; p < parts_; ++p) {
        std::int64_t j = nz_begin_[p];
        const std::int64_t i_end = row_begin_[p + 1], j_end = nz_begin_[p + 1];
        for (std::int64_t i = row_begin_[p]; i < i_end; ++i) {
          const std::int64_t e = static_cast<std::int64_t>(ptr[i + 1]);
          y[i] = dot(val, col, j, e, i, x);
          j = e;
        }
        carry_[p * kPad] = j < j_end ? dot(val, col, j, j_end, i_end, x) : T(0);
      }
    for (int p = 0; p < parts_; ++p)
      if (row_begin_[p + 1] < rows_) y[row_begin_[p + 1]] += carry_[p * kPad];
  }

  int threads_;
  std::int64_t rows_, cols_, nnz_;
  bool narrow_ptr_ = false, rel16_ = false;
  int parts_ = 1;
  std::vector<std::int64_t> row_begin_, nz_begin_;
  std::vector<T> carry_;
  cpu::FirstTouchArray<std::uint32_t> ptr32_;
  cpu::FirstTouchArray<std::int64_t> ptr64_;
  cpu::FirstTouchArray<std::int16_t> col16_;
  cpu::FirstTouchArray<std::int32_t> col32_;
  cpu::FirstTouchArray<T> val_;
};

}  // namespace

void register_cpu_csr_kernels(Registry& reg) {
  add_kernel<CsrSerial>(reg, "cpu.csr.serial", Format::csr, Backend::cpu, false,
                        "serial CSR, one row at a time, vectorised gather-dot (seeds 000/002)");
  add_kernel<CsrNnzBalanced>(reg, "cpu.csr.omp.nnz_balanced", Format::csr, Backend::cpu, true,
                             "OpenMP CSR, one contiguous row range per thread with balanced non-zeros (seed 000)");
  add_kernel<CsrDynamic>(reg, "cpu.csr.omp.dynamic", Format::csr, Backend::cpu, true,
                         "OpenMP CSR, schedule(dynamic, NZ_PER_CHUNK / mean row length), omp simd (seed 002)");
  add_kernel<CsrGuided>(reg, "cpu.csr.omp.guided", Format::csr, Backend::cpu, true,
                        "OpenMP CSR, schedule(guided) over rows (seed 000)");
  add_kernel<CsrSpkit>(reg, "cpu.csr.omp.spkit", Format::csr, Backend::cpu, true,
                       "spkit: merge-path split with carries, first-touch own copies, 32-bit offsets, 16-bit relative "
                       "columns when they fit, AVX-512 rows");
}

}  // namespace spkit
