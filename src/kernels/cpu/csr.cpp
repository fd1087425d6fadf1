// CPU CSR kernels: the serial reference loop, the three OpenMP schedules of seeds 000/002, and spkit's
// own merge-path kernel (cpu.csr.omp.spkit) built to be the fastest CSR SpMV on the CPU.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/cost_model.hpp"
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
//  * the row dot product is explicit AVX-512 (full-width gathers and one masked tail) where available;
//  * matrices with at most 64 distinct diagonals whose dense diagonal storage is smaller than the
//    compressed CSR (stencils, bands) take a diagonal path that reads values only (no indices).
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
    if (build_diagonal(a)) return;
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
    if (sym_) return run_symmetric(x, y);
    if (dia_) return run_diagonal(x, y);
    if (narrow_ptr_) {
      if (rel16_) run_with(ptr32_.data(), col16_.data(), x, y); else run_with(ptr32_.data(), col32_.data(), x, y);
    } else {
      if (rel16_) run_with(ptr64_.data(), col16_.data(), x, y); else run_with(ptr64_.data(), col32_.data(), x, y);
    }
  }

  std::uint64_t bytes_moved() const override {
    if (sym_)
      return half_val_.size() * sizeof(T) + half_off_.size() * sizeof(std::int64_t) +
             static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
    if (dia_)
      return dia_val_.size() * sizeof(T) + diag_off_.size() * sizeof(std::int64_t) +
             static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
    return static_cast<std::uint64_t>(rows_ + 1) * (narrow_ptr_ ? 4 : 8) +
           static_cast<std::uint64_t>(nnz_) * ((rel16_ ? 2 : 4) + sizeof(T)) +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    if (sym_)
      return "symmetric diagonal path: " + std::to_string(half_off_.size()) + " of " +
             std::to_string(2 * half_off_.size() - 1) + " diagonals stored";
    if (dia_)
      return "diagonal path: " + std::to_string(diag_off_.size()) + " diagonals, padding " +
             cpu::percent(static_cast<double>(dia_val_.size() - nnz_), static_cast<double>(dia_val_.size()));
    return std::string(narrow_ptr_ ? "32" : "64") + "-bit row offsets, " +
           (rel16_ ? "16-bit relative" : "32-bit") + " columns, " + std::to_string(parts_) + " merge-path shares";
  }

 private:
  static constexpr std::size_t kPad = 64 / sizeof(T);  // one carry per cache line
  static constexpr int kSharesPerThread = 8;
  // Diagonal path: rows per tile. One tile is one register block, and its diagonals lie one after the
  // other in memory, so the values are a single sequential stream (prefetcher-friendly).
  static constexpr std::int64_t kTileRows = 64;
  static constexpr std::size_t kMaxDiagonals = 64;
  static constexpr int kRegRows = 64;  // rows whose sums stay in registers (8 zmm of doubles)

  // The diagonal path. When the matrix has few distinct diagonals (col - row), e.g. a stencil, and
  // storing them densely (zeros where a diagonal has no entry) moves fewer bytes than the compressed
  // CSR, the plan keeps values only, tile by tile ([tile][diagonal][row in tile]); the product is
  // then unit-stride on values and x alike and no index is read at all. Returns whether it was built.
  bool build_diagonal(const Csr<T>& a) {
    if (rows_ == 0 || nnz_ == 0) return false;
    std::atomic<bool> too_many{false};
    std::vector<std::int64_t> offs;
    const std::int64_t rows = rows_;
#pragma omp parallel num_threads(threads_)
    {
      std::vector<std::int64_t> local;  // sorted
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < rows; ++i) {
        if (too_many.load(std::memory_order_relaxed)) continue;
        // A row's offsets increase with its columns: walk the sorted set forward, no search per entry.
        std::size_t pos = 0;
        for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
          const std::int64_t d = a.col_idx[k] - i;
          while (pos < local.size() && local[pos] < d) ++pos;
          if (pos < local.size() && local[pos] == d) continue;
          if (local.size() >= kMaxDiagonals) { too_many = true; break; }
          local.insert(local.begin() + static_cast<std::ptrdiff_t>(pos), d);
        }
      }
#pragma omp critical
      {
        std::vector<std::int64_t> merged;
        std::set_union(offs.begin(), offs.end(), local.begin(), local.end(), std::back_inserter(merged));
        offs.swap(merged);
      }
    }
    if (too_many || offs.size() > kMaxDiagonals) return false;
    const std::int64_t tiles = (rows_ + kTileRows - 1) / kTileRows;
    const std::int64_t nd = static_cast<std::int64_t>(offs.size());
    const double dia_bytes = static_cast<double>(nd) * static_cast<double>(tiles * kTileRows) * sizeof(T);
    const double csr_bytes = static_cast<double>(rows_ + 1) * (narrow_ptr_ ? 4 : 8) +
                             static_cast<double>(nnz_) * ((rel16_ ? 2 : 4) + sizeof(T));
    if (build_symmetric(a, offs, csr_bytes)) return true;
    if (dia_bytes >= 0.95 * csr_bytes) return false;
    dia_ = true;
    diag_off_ = std::move(offs);
    tiles_ = tiles;
    dia_val_ = cpu::FirstTouchArray<T>(static_cast<std::size_t>(nd * tiles * kTileRows));
    // Same static schedule as run_diagonal: each tile is first touched by the thread that reads it.
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles; ++t) {
      T* block = dia_val_.data() + t * nd * kTileRows;
      for (std::int64_t e = 0; e < nd * kTileRows; ++e) block[e] = T(0);
      const std::int64_t r0 = t * kTileRows, r1 = std::min(rows, r0 + kTileRows);
      for (std::int64_t i = r0; i < r1; ++i) {
        std::int64_t d = 0;  // offsets increase along the row: walk forward
        for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
          while (diag_off_[d] < a.col_idx[k] - i) ++d;
          block[d * kTileRows + (i - r0)] += a.values[k];
        }
      }
    }
    return true;
  }

  // Symmetric diagonal path. A square matrix whose diagonal offsets and values are symmetric
  // (a_ij == a_ji exactly, e.g. Laplacians and FEM stiffness matrices) needs only its diagonals d >= 0:
  // row i reads a_{i,i+d} from diagonal d at i and a_{i,i-d} = a_{i-d,i} from diagonal d at i - d. The
  // second read was streamed from memory a few tiles earlier and comes back from cache, so memory
  // carries about half the values. Each row still computes its own y (pull), so threads never
  // write the same element. Returns whether it was built.
  bool build_symmetric(const Csr<T>& a, const std::vector<std::int64_t>& offs, double csr_bytes) {
    if (rows_ != cols_ || offs.empty() || offs.front() != -offs.back()) return false;
    const double half_bytes = static_cast<double>(offs.size() / 2 + 1) * static_cast<double>(rows_) * sizeof(T);
    if (half_bytes >= 0.95 * csr_bytes) return false;
    for (std::size_t k = 0; k < offs.size(); ++k)
      if (offs[k] != -offs[offs.size() - 1 - k]) return false;
    const std::int64_t rows = rows_;
    bool symmetric = true;
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(&& : symmetric)
    for (std::int64_t i = 0; i < rows; ++i) {
      if (!symmetric) continue;
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::int64_t j = a.col_idx[k];
        if (j <= i) continue;
        const auto* b = a.col_idx.data() + a.row_ptr[j];
        const auto* e = a.col_idx.data() + a.row_ptr[j + 1];
        const auto* hit = std::lower_bound(b, e, static_cast<std::int32_t>(i));
        if (hit == e || *hit != i || !(a.values[hit - a.col_idx.data()] == a.values[k])) {
          symmetric = false;
          break;
        }
      }
    }
    if (!symmetric) return false;
    half_off_.assign(offs.begin() + static_cast<std::ptrdiff_t>(offs.size() / 2), offs.end());
    const std::int64_t nh = static_cast<std::int64_t>(half_off_.size());
    half_val_ = cpu::FirstTouchArray<T>(static_cast<std::size_t>(nh * rows));
    const std::int64_t tiles = (rows + kTileRows - 1) / kTileRows;
    // Same static schedule over tiles as run_symmetric: each value first touched by its reader.
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t r0 = t * kTileRows, r1 = std::min(rows, r0 + kTileRows);
      for (std::int64_t h = 0; h < nh; ++h)
        for (std::int64_t i = r0; i < r1; ++i) half_val_[h * rows + i] = T(0);
      for (std::int64_t i = r0; i < r1; ++i) {
        std::int64_t h = 0;
        for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
          const std::int64_t d = a.col_idx[k] - i;
          if (d < 0) continue;
          while (half_off_[h] < d) ++h;
          half_val_[h * rows + i] = a.values[k];
        }
      }
    }
    tiles_ = tiles;
    sym_ = true;
    return true;
  }

  void run_symmetric(const T* __restrict x, T* __restrict y) {
    const std::int64_t nh = static_cast<std::int64_t>(half_off_.size()), rows = rows_;
    const std::int64_t* offs = half_off_.data();
    const std::int64_t reach = offs[nh - 1];
    const T* __restrict val = half_val_.data();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r0 = t * kTileRows, n = std::min(kTileRows, rows - r0);
      alignas(64) T acc[kTileRows];
      if (n == kTileRows && r0 - reach >= 0 && r0 + kTileRows - 1 + reach < rows) {
        // Interior tile: every diagonal in range for every row, no bounds.
#pragma omp simd
        for (int q = 0; q < kTileRows; ++q) acc[q] = val[r0 + q] * x[r0 + q];
        for (std::int64_t h = 1; h < nh; ++h) {
          const std::int64_t d = offs[h];
          const T* __restrict v = val + h * rows;
#pragma omp simd
          for (int q = 0; q < kTileRows; ++q)
            acc[q] += v[r0 + q] * x[r0 + q + d] + v[r0 + q - d] * x[r0 + q - d];
        }
      } else {
        for (std::int64_t r = 0; r < n; ++r) acc[r] = val[r0 + r] * x[r0 + r];
        for (std::int64_t h = 1; h < nh; ++h) {
          const std::int64_t d = offs[h];
          const T* __restrict v = val + h * rows;
          const std::int64_t upper_end = std::min(n, rows - d - r0);  // rows with column r + d inside
          for (std::int64_t r = 0; r < upper_end; ++r) acc[r] += v[r0 + r] * x[r0 + r + d];
          for (std::int64_t r = std::max<std::int64_t>(0, d - r0); r < n; ++r)  // rows with r - d >= 0
            acc[r] += v[r0 + r - d] * x[r0 + r - d];
        }
      }
      for (std::int64_t r = 0; r < n; ++r) y[r0 + r] = acc[r];
    }
  }

  void run_diagonal(const T* __restrict x, T* __restrict y) {
    const std::int64_t nd = static_cast<std::int64_t>(diag_off_.size()), rows = rows_, cols = cols_;
    const std::int64_t* offs = diag_off_.data();
    const T* __restrict val = dia_val_.data();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r0 = t * kTileRows, n = std::min(kTileRows, rows - r0);
      if (n == kTileRows && r0 + offs[0] >= 0 && r0 + kTileRows - 1 + offs[nd - 1] < cols) {
        // Interior tile (every diagonal inside the matrix for every row): kRegRows rows at a time
        // over all diagonals, the sums held in registers, so only values and x are loaded.
        for (std::int64_t r = 0; r < kTileRows; r += kRegRows) {
          T sum[kRegRows] = {};
          for (std::int64_t d = 0; d < nd; ++d) {
            const T* __restrict v = val + (t * nd + d) * kTileRows + r;
            const T* __restrict xs = x + (r0 + offs[d] + r);
#pragma omp simd
            for (int q = 0; q < kRegRows; ++q) sum[q] += v[q] * xs[q];
          }
          for (int q = 0; q < kRegRows; ++q) y[r0 + r + q] = sum[q];
        }
        continue;
      }
      alignas(64) T acc[kTileRows];
      for (std::int64_t r = 0; r < kTileRows; ++r) acc[r] = T(0);
      for (std::int64_t d = 0; d < nd; ++d) {
        const std::int64_t off = offs[d];
        // Rows of this tile whose column r0 + r + off lies inside the matrix.
        const std::int64_t lo = std::max<std::int64_t>(0, -off - r0), hi = std::min(n, cols - off - r0);
        const T* __restrict v = val + (t * nd + d) * kTileRows;
        const T* __restrict xs = x + (r0 + off);
#pragma omp simd
        for (std::int64_t r = lo; r < hi; ++r) acc[r] += v[r] * xs[r];
      }
      for (std::int64_t r = 0; r < n; ++r) y[r0 + r] = acc[r];
    }
  }

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
  bool dia_ = false;
  bool sym_ = false;
  std::vector<std::int64_t> half_off_;  // diagonal offsets >= 0 of the symmetric path, ascending
  cpu::FirstTouchArray<T> half_val_;    // [diagonal][row]: a_{i, i + half_off_[h]} at h * rows + i
  std::int64_t tiles_ = 0;
  std::vector<std::int64_t> diag_off_;
  cpu::FirstTouchArray<T> dia_val_;
  int parts_ = 1;
  std::vector<std::int64_t> row_begin_, nz_begin_;
  std::vector<T> carry_;
  cpu::FirstTouchArray<std::uint32_t> ptr32_;
  cpu::FirstTouchArray<std::int64_t> ptr64_;
  cpu::FirstTouchArray<std::int16_t> col16_;
  cpu::FirstTouchArray<std::int32_t> col32_;
  cpu::FirstTouchArray<T> val_;
};

// Fraction of the copy bandwidth cpu.csr.omp.spkit reaches over its own bytes when the matrix is far
// larger than the caches (docs/perf/selector.md; L3-resident matrices run faster, as every kernel does).
constexpr double kCsrSpkitEfficiency = 0.9;

// Cost model of cpu.csr.omp.spkit as a CSR kernel: 32-bit offsets below 2^31 non-zeros, 16-bit relative
// columns when every |col - row| < 2^15, merge-path shares (no imbalance from long rows). Its diagonal
// path is not modelled (a DIA kernel is the place for stencils). Efficiency: docs/perf/selector.md.
CostEstimate csr_spkit_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e;
  e.applicable = true;
  const bool narrow_cols = s.max_diag_distance < (1 << 15);
  e.bytes = cost::csr_bytes(s, p, s.nnz < (std::int64_t{1} << 31) ? 4 : 8, narrow_cols ? 2 : 4);
  e.efficiency = cost::with_gathers(kCsrSpkitEfficiency, e.bytes, s, Backend::cpu);
  e.launch_us = 2 + 0.5 * o.threads;  // fork-join and the carries between shares
  e.note = narrow_cols ? "16-bit relative columns" : "32-bit columns";
  return e;
}

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
                       "columns when they fit, AVX-512 rows; diagonal path (values only) for stencils and bands",
                       false, csr_spkit_cost);
}

}  // namespace spkit
