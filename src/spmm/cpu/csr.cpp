// CPU CSR SpMM kernels, Y = alpha*A*X + beta*Y:
//   cpu.csr.spmm_serial    the reference loop (both layouts), the baseline of the speedup column;
//   cpu.csr.spmm_rowmajor  row-major X and Y: each non-zero a_ij scales row j of X into a register tile of
//                          Y's row i whose width follows k (spmm_tiles.hpp: one 256-bit vector at k = 4
//                          doubles, up to eight 512-bit vectors), OpenMP over nnz-balanced row ranges, the
//                          rows of a badly numbered matrix visited in RCM order (src/spmm/row_order.hpp);
//   cpu.csr.spmm_colmajor  column-major X and Y: X's columns copied into a row-major panel (up to
//                          tuning::kSpmmCpuColPanelBytes per row), then the same register tiles over it,
//                          A read once per panel, Y's tile written column by column.
// Both run short rows as slices of 8 rows sorted by length (spmm_sliced.hpp, SELL-C-sigma) where
// cpu::spmm::use_slices says so (k = 4 floats or 2 doubles; column-major also 32/64-byte rows of short rows).
// Each writes Y's entries where it finishes them (cpu::with_epilogue: beta == 0 never reads Y); with beta == 0
// the row-major kernel writes a large, line-aligned Y with streaming stores (no read of the line first), and the
// column-major one a very large Y, each column's vectors shifted onto whole lines (spmm_tiles.hpp).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "kernels/cpu/cpu_common.hpp"
#include "spmm/cpu/spmm_sliced.hpp"
#include "spmm/cpu/spmm_tiles.hpp"
#include "spmm/row_order.hpp"
#include "spkit/error.hpp"
#include "spkit/spmm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

template <class T>
std::uint64_t csr_spmm_bytes(const Csr<T>& a, std::int64_t k) {
  return static_cast<std::uint64_t>(a.rows + 1) * 8 + static_cast<std::uint64_t>(a.nnz()) * (4 + sizeof(T)) +
         static_cast<std::uint64_t>(a.rows + a.cols) * static_cast<std::uint64_t>(k) * sizeof(T);
}

// What the CSR SpMM plans share: their own copy of A, the shape, the threads and a row partition.
template <class T>
class CpuCsrSpmmBase : public SpmmPlan<T> {
 public:
  CpuCsrSpmmBase(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& o, int threads, const char* name,
                 bool row_major, bool col_major)
      : a_(a), shape_(shape), threads_(threads) {
    if (shape.k < 1) throw Error(std::string(name) + ": k must be at least 1 (got " + std::to_string(shape.k) + ")");
    if ((shape.layout == DenseLayout::row_major && !row_major) || (shape.layout == DenseLayout::col_major && !col_major))
      throw NotApplicable(std::string(name) + " does not handle " + std::string(to_string(shape.layout)) +
                          "-major X and Y");
    (void)o;
    cut_ = cpu::nnz_balanced_rows(a_.row_ptr, a_.rows, threads_);
  }
  Backend backend() const final { return Backend::cpu; }
  std::uint64_t bytes_moved() const override {
    if (sliced_)
      return sliced_->bytes() + static_cast<std::uint64_t>(a_.rows + a_.cols) * static_cast<std::uint64_t>(shape_.k) *
                                    sizeof(T);
    const std::uint64_t saved = offsets_.empty() ? 0 : static_cast<std::uint64_t>(a_.nnz()) * 2;
    return csr_spmm_bytes(a_, shape_.k) - saved;
  }

 protected:
  // body(first_row, last_row) once per range, the ranges spread over the plan's threads.
  // The tiled plans' column indices as 16-bit offsets from the row, where they all fit (spmm_tiles.hpp);
  // with `row_of`, stored row q is row row_of[q] of A.
  void use_diagonal_offsets(const std::int32_t* row_of = nullptr) {
    constexpr std::int64_t lim = std::numeric_limits<cpu::spmm::DiagOffset>::max();
    auto row = [row_of](std::int64_t q) -> std::int64_t { return row_of ? row_of[q] : q; };
    for (std::int64_t q = 0; q < a_.rows; ++q)
      for (std::int64_t p = a_.row_ptr[q]; p < a_.row_ptr[q + 1]; ++p)
        if (a_.col_idx[p] - row(q) > lim || row(q) - a_.col_idx[p] > lim) return;
    offsets_.resize(static_cast<std::size_t>(a_.nnz()));
    for (std::int64_t q = 0; q < a_.rows; ++q)
      for (std::int64_t p = a_.row_ptr[q]; p < a_.row_ptr[q + 1]; ++p)
        offsets_[p] = static_cast<cpu::spmm::DiagOffset>(a_.col_idx[p] - row(q));
  }
  // Stores A's rows in the order `rows` (row_order.hpp) and re-cuts the threads' ranges over it.
  void store_rows_in_order(const std::vector<std::int32_t>& rows) {
    Csr<T> b;
    b.rows = a_.rows, b.cols = a_.cols;
    b.row_ptr.resize(static_cast<std::size_t>(a_.rows) + 1);
    b.row_ptr[0] = 0;
    for (std::int64_t q = 0; q < a_.rows; ++q) b.row_ptr[q + 1] = b.row_ptr[q] + a_.row_length(rows[q]);
    b.col_idx.resize(a_.col_idx.size());
    b.values.resize(a_.values.size());
#pragma omp parallel for schedule(static) num_threads(threads_) if (threads_ > 1)
    for (std::int64_t q = 0; q < a_.rows; ++q) {
      const std::int64_t from = a_.row_ptr[rows[q]], n = a_.row_length(rows[q]);
      std::copy_n(a_.col_idx.data() + from, n, b.col_idx.data() + b.row_ptr[q]);
      std::copy_n(a_.values.data() + from, n, b.values.data() + b.row_ptr[q]);
    }
    a_ = std::move(b);
    cut_ = cpu::nnz_balanced_rows(a_.row_ptr, a_.rows, threads_);
  }
  // body(indices) with the 16-bit offsets where the plan has them, else the 32-bit columns.
  template <class Body>
  void with_indices(Body&& body) const {
    if (!offsets_.empty()) body(offsets_.data());
    else body(a_.col_idx.data());
  }
  std::string index_detail() const { return offsets_.empty() ? "32-bit columns" : "16-bit offsets from the diagonal"; }

  // Short rows as slices (spmm_sliced.hpp) where use_slices says so for k columns; true if taken.
  bool use_slices_for(std::int64_t k) {
    if (!cpu::spmm::use_slices<T>(a_, k, shape_.layout == DenseLayout::col_major)) return false;
    sliced_ = std::make_unique<cpu::spmm::SlicedRows<T>>(cpu::spmm::make_sliced_rows(a_, threads_));
    return true;
  }
  // Part `part` of the sliced rows (its slices, then its long rows through tiles of tile_bytes): the
  // share of one thread. x row-major with ldx (or a row-major panel); Y column-major when ColOut.
  template <bool ColOut, class Out>
  void run_sliced_part(int part, int tile_bytes, const T* x, std::int64_t ldx, T* y, std::int64_t ldy,
                       Out out) const {
    const cpu::spmm::SlicedRows<T>& s = *sliced_;
    const std::int64_t k = shape_.k;
    cpu::spmm::slices_dispatch<ColOut>(k * static_cast<std::int64_t>(sizeof(T)), s, s.slice_cut[part],
                                       s.slice_cut[part + 1], x, ldx, y, ldy, out);
    for (std::int64_t q = s.long_cut[part]; q < s.long_cut[part + 1]; ++q) {
      const std::int64_t i = s.long_rows[q];
      cpu::spmm::rows_dispatch<ColOut>(tile_bytes, a_.row_ptr.data(), a_.col_idx.data(), a_.values.data(), i, i + 1,
                                       x, ldx, y, ldy, k, out);
    }
  }
  int sliced_parts() const { return static_cast<int>(sliced_->slice_cut.size()) - 1; }
  std::string sliced_detail() const {
    return std::to_string(sliced_->slice_ptr.size() - 1) + " slices of " + std::to_string(cpu::spmm::kSliceRows) +
           " rows sorted by length (" + std::to_string(sliced_->long_rows.size()) + " longer rows apart, " +
           std::to_string(sliced_->padding_percent(a_)) + "% padding)";
  }

  template <class Body>
  void for_row_ranges(Body&& body) const {
    const int ranges = static_cast<int>(cut_.size()) - 1;
    if (threads_ == 1) {
      for (int r = 0; r < ranges; ++r) body(cut_[r], cut_[r + 1]);
      return;
    }
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int r = omp_get_thread_num(); r < ranges; r += nt) body(cut_[r], cut_[r + 1]);
    }
  }

  Csr<T> a_;
  SpmmShape shape_;
  int threads_;
  std::vector<std::int64_t> cut_;
  std::vector<cpu::spmm::DiagOffset> offsets_;
  std::unique_ptr<cpu::spmm::SlicedRows<T>> sliced_;  // null: rows one by one
};

// ---------------------------------------------------------------------------------------------
template <class T>
class CsrSpmmSerial final : public CpuCsrSpmmBase<T> {
 public:
  CsrSpmmSerial(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CpuCsrSpmmBase<T>(a, s, o, 1, "cpu.csr.spmm_serial", true, true) {}
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    const Csr<T>& a = this->a_;
    check_spmm_leading_dims(a.rows, a.cols, this->shape_, ldx, ldy);
    const bool row = this->shape_.layout == DenseLayout::row_major;
    const std::int64_t xs_j = row ? ldx : 1, xs_c = row ? 1 : ldx, ys_i = row ? ldy : 1, ys_c = row ? 1 : ldy;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      for (std::int64_t i = 0; i < a.rows; ++i)
        for (std::int64_t c = 0; c < this->shape_.k; ++c) {
          T sum = 0;
          for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            sum += a.values[p] * x[a.col_idx[p] * xs_j + c * xs_c];
          out.write(y[i * ys_i + c * ys_c], sum);
        }
    });
  }
  std::string detail() const override { return "reference loop"; }
};

// ---------------------------------------------------------------------------------------------
template <class T>
class CsrSpmmRowMajor final : public CpuCsrSpmmBase<T> {
 public:
  CsrSpmmRowMajor(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CpuCsrSpmmBase<T>(a, s, o, cpu::plan_threads(o.threads), "cpu.csr.spmm_rowmajor", true, false),
        tile_bytes_(cpu::spmm::main_tile_bytes<T>(s.k)) {
    if (this->use_slices_for(s.k) || s.k == 1) return;
    // A badly numbered matrix's rows are stored in their visiting order: visited in place, each row's
    // start was a cache miss the prefetcher could not foresee (2M entries, 1 thread: 28 ms against 20 ms
    // for the same visits over rows stored in that order).
    const bool few_entries = a.nnz() < tuning::kSpmmRowOrderCpuShortRowMinMean * a.rows;
    order_ = spmm_detail::locality_row_order(a, s.k, tuning::kSpmmRowOrderCpuLineBytes,
                                             few_entries ? tuning::kSpmmRowOrderCpuSparseRowBytes
                                                         : tuning::kSpmmRowOrderCpuShortRowBytes);
    if (!order_.rows.empty()) this->store_rows_in_order(order_.rows);
    this->use_diagonal_offsets(order_.rows.empty() ? nullptr : order_.rows.data());
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    const Csr<T>& a = this->a_;
    check_spmm_leading_dims(a.rows, a.cols, this->shape_, ldx, ldy);
    const std::int64_t* ptr = a.row_ptr.data();
    const std::int32_t* col = a.col_idx.data();
    const T* val = a.values.data();
    const std::int64_t k = this->shape_.k;
    if (this->sliced_) {
      with_streaming_epilogue(alpha, beta, y, ldy, [&](auto out) {
        const int parts = this->sliced_parts();
#pragma omp parallel for schedule(static, 1) num_threads(this->threads_) if (this->threads_ > 1)
        for (int part = 0; part < parts; ++part) {
          this->template run_sliced_part<false>(part, tile_bytes_, x, ldx, y, ldy, out);
          if constexpr (cpu::spmm::is_streaming_out<decltype(out)>) cpu::spmm::finish_stores();
        }
      });
      return;
    }
    with_streaming_epilogue(alpha, beta, y, ldy, [&](auto out) {
      this->for_row_ranges([&](std::int64_t r0, std::int64_t r1) {
        if (k == 1 && ldx == 1) {  // one contiguous vector: the SpMV row dot product (gather over the row)
          for (std::int64_t i = r0; i < r1; ++i) out.write(y[i * ldy], cpu::row_dot(val, col, ptr[i], ptr[i + 1], x));
          return;
        }
        this->with_indices([&](const auto* idx) {
          cpu::spmm::rows_dispatch<false>(tile_bytes_, ptr, idx, val, r0, r1, x, ldx, y, ldy, k, out,
                                          order_.rows.empty() ? nullptr : order_.rows.data());
        });
        if constexpr (cpu::spmm::is_streaming_out<decltype(out)>) cpu::spmm::finish_stores();
      });
    });
  }
  std::string detail() const override {
    if (this->sliced_)
      return this->sliced_detail() + ", " + std::to_string(this->shape_.k * sizeof(T)) + "-byte register tiles";
    return std::to_string(this->cut_.size() - 1) + " row ranges, " + std::to_string(tile_bytes_) +
           "-byte register tiles, " + this->index_detail() + (order_.rows.empty() ? "" : ", " + order_.reason);
  }

 private:
  // body(out) with the epilogue of alpha and beta, its 64-byte stores streaming (spmm_tiles.hpp) where
  // Y is only written, lies on whole lines and is too large to be read soon from the caches it would fill.
  template <class Body>
  void with_streaming_epilogue(T alpha, T beta, T* y, std::int64_t ldy, Body&& body) const {
    const std::int64_t bytes = this->a_.rows * ldy * static_cast<std::int64_t>(sizeof(T));
    const bool stream = this->shape_.k * static_cast<std::int64_t>(sizeof(T)) >= 64 &&
                        cpu::spmm::streaming_fits(y, ldy) && bytes >= tuning::kSpmmCpuStreamingMinBytes;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      if constexpr (!decltype(out)::reads_y) {
        if (stream) return body(cpu::spmm::StreamingOut<decltype(out)>{out});
      }
      body(out);
    });
  }

  int tile_bytes_;
  spmm_detail::RowOrder order_;  // empty: rows in their natural order
};

// ---------------------------------------------------------------------------------------------
template <class T>
class CsrSpmmColMajor final : public CpuCsrSpmmBase<T> {
 public:
  CsrSpmmColMajor(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CpuCsrSpmmBase<T>(a, s, o, cpu::plan_threads(o.threads), "cpu.csr.spmm_colmajor", false, true),
        panel_cols_(std::min<std::int64_t>(s.k, tuning::kSpmmCpuColPanelBytes / static_cast<int>(sizeof(T)))) {
    if (s.k == 1) return;
    panel_ = cpu::FirstTouchArray<T>(static_cast<std::size_t>(a.cols * panel_cols_));
    if (!this->use_slices_for(s.k)) this->use_diagonal_offsets();  // slices: k within one panel
  }
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    const Csr<T>& a = this->a_;
    check_spmm_leading_dims(a.rows, a.cols, this->shape_, ldx, ldy);
    const std::int64_t* ptr = a.row_ptr.data();
    const std::int32_t* col = a.col_idx.data();
    const T* val = a.values.data();
    const std::int64_t k = this->shape_.k;
    if (k == 1) {  // X is one contiguous vector: the SpMV row dot product
      cpu::with_epilogue(alpha, beta, [&](auto out) {
        this->for_row_ranges([&](std::int64_t r0, std::int64_t r1) {
          for (std::int64_t i = r0; i < r1; ++i) out.write(y[i], cpu::row_dot(val, col, ptr[i], ptr[i + 1], x));
        });
      });
      return;
    }
    T* panel = panel_.data();
    const bool stream = cpu::spmm::column_streaming_fits(y, ldy, k);  // and Y only written (below)
    cpu::with_epilogue(alpha, beta, [&](auto plain_out) {
      if constexpr (!decltype(plain_out)::reads_y) {
        if (stream) return run_panels(cpu::spmm::StreamingOut<decltype(plain_out)>{plain_out}, x, ldx, y, ldy, panel);
      }
      run_panels(plain_out, x, ldx, y, ldy, panel);
    });
  }
  std::string detail() const override {
    if (this->sliced_) return this->sliced_detail() + ", X copied into a row-major panel";
    return std::to_string(this->cut_.size() - 1) + " row ranges, X copied into row-major panels of " +
           std::to_string(panel_cols_) + " columns, " + this->index_detail();
  }

 private:
  template <class Out>
  void run_panels(Out out, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, T* panel) const {
    const Csr<T>& a = this->a_;
    const std::int64_t* ptr = a.row_ptr.data();
    const T* val = a.values.data();
    const std::int64_t k = this->shape_.k, cols = a.cols;
    const int ranges = static_cast<int>(this->cut_.size()) - 1;
    const std::int64_t* cut = this->cut_.data();
#pragma omp parallel num_threads(this->threads_) if (this->threads_ > 1)
    {
      const int nt = omp_get_num_threads(), me = omp_get_thread_num();
      for (std::int64_t c0 = 0; c0 < k; c0 += panel_cols_) {
        const std::int64_t g = std::min(panel_cols_, k - c0);
        // panel(j, c) = X(j, c0 + c), lanes x lanes blocks at a time (spmm_transpose.hpp).
        constexpr std::int64_t L = cpu::Vec64<T>::lanes;
#pragma omp for schedule(static)
        for (std::int64_t j0 = 0; j0 < cols; j0 += L) {
          const std::int64_t rows_here = std::min(L, cols - j0);
          for (std::int64_t c = 0; c < g; c += L)
            cpu::spmm::transpose_block(x + (c0 + c) * ldx + j0, ldx, panel + j0 * g + c, g, rows_here,
                                       std::min(L, g - c));
        }  // (implied barrier: the panel is complete)
        const int tb = cpu::spmm::main_tile_bytes<T>(g);
        if (this->sliced_) {
          for (int part = me; part < this->sliced_parts(); part += nt)
            this->template run_sliced_part<true>(part, tb, panel, g, y + c0 * ldy, ldy, out);
          continue;  // k is one panel: no next panel to wait for
        }
        this->with_indices([&](const auto* idx) {
          for (int r = me; r < ranges; r += nt)
            cpu::spmm::rows_dispatch<true>(tb, ptr, idx, val, cut[r], cut[r + 1], panel, g, y + c0 * ldy, ldy, g, out);
        });
#pragma omp barrier
      }
      if constexpr (cpu::spmm::is_streaming_out<Out>) cpu::spmm::finish_stores();
    }
  }

  std::int64_t panel_cols_;
  cpu::FirstTouchArray<T> panel_;
};

}  // namespace

void register_cpu_csr_spmm(SpmmRegistry& reg) {
  {
    SpmmKernelInfo k;
    k.name = "cpu.csr.spmm_serial";
    k.description = "serial CSR SpMM reference loop (row by row, column by column), both layouts";
    add_spmm_kernel<CsrSpmmSerial>(reg, std::move(k));
  }
  {
    SpmmKernelInfo k;
    k.name = "cpu.csr.spmm_rowmajor";
    k.parallel = true;
    k.col_major = false;
    k.description = "CSR SpMM, row-major X/Y: each a_ij scales row j of X into a register tile of Y's row "
                    "sized to k (16-512 bytes, int16 diagonal offsets where they fit), OpenMP over nnz-balanced "
                    "row ranges, a badly numbered matrix's rows visited in reverse Cuthill-McKee order; 16-byte "
                    "rows as slices of 8 rows sorted by length (Kreutzer et al.'s SELL-C-sigma); a large Y on whole "
                    "cache lines written with streaming stores when beta = 0";
    add_spmm_kernel<CsrSpmmRowMajor>(reg, std::move(k));
  }
  {
    SpmmKernelInfo k;
    k.name = "cpu.csr.spmm_colmajor";
    k.parallel = true;
    k.row_major = false;
    k.description = "CSR SpMM, column-major X/Y: X copied into row-major panels (block transposes), the "
                    "row-major register tiles over them, Y written back by blocks (streaming stores for a very large Y "
                    "when beta = 0), OpenMP over nnz-balanced row ranges; short rows as slices of 8 rows sorted by "
                    "length (Kreutzer et al.'s SELL-C-sigma)";
    add_spmm_kernel<CsrSpmmColMajor>(reg, std::move(k));
  }
}

}  // namespace spkit
