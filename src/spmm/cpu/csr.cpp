// CPU CSR SpMM kernels, Y = alpha*A*X + beta*Y:
//   cpu.csr.spmm_serial    the reference loop (both layouts), the baseline of the speedup column;
//   cpu.csr.spmm_rowmajor  row-major X and Y: each non-zero a_ij scales row j of X into a register tile of
//                          Y's row i (vectorised over the k columns, tiles of tuning::kSpmmCpuTileBytes),
//                          OpenMP over contiguous row ranges with balanced non-zeros;
//   cpu.csr.spmm_colmajor  column-major X and Y: per row, kSpmmCpuColTile columns at a time, each a
//                          vectorised gather dot product sharing the row's indices and values (read from
//                          memory once, from L1 for the next tiles), same row partition.
// Each writes Y's entries where it finishes them (cpu::with_epilogue: beta == 0 never reads Y).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/cpu/cpu_common.hpp"
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
  std::uint64_t bytes_moved() const override { return csr_spmm_bytes(a_, shape_.k); }

 protected:
  // body(first_row, last_row) once per range, the ranges spread over the plan's threads.
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
// Y(i, 0..W) = sum_p val[p] * X(col[p], 0..W) for one row and one tile of W columns (x, y at the tile).
template <int W, class T, class Out>
inline void rowmajor_tile(const T* __restrict val, const std::int32_t* __restrict col, std::int64_t b,
                          std::int64_t e, const T* __restrict x, std::int64_t ldx, T* __restrict y, Out out) {
  T acc[W];
#pragma omp simd
  for (int c = 0; c < W; ++c) acc[c] = T(0);
  for (std::int64_t p = b; p < e; ++p) {
    const T v = val[p];
    const T* __restrict xr = x + static_cast<std::int64_t>(col[p]) * ldx;
#pragma omp simd
    for (int c = 0; c < W; ++c) acc[c] += v * xr[c];
  }
  for (int c = 0; c < W; ++c) out.write(y[c], acc[c]);
}

// The columns [0, k) of one row in tiles of W, the rest in halving power-of-two tiles (k = 33: 32 + 1).
template <int W, class T, class Out>
inline void rowmajor_row(const T* val, const std::int32_t* col, std::int64_t b, std::int64_t e, const T* x,
                         std::int64_t ldx, T* y, std::int64_t k, Out out) {
  std::int64_t c = 0;
  for (; c + W <= k; c += W) rowmajor_tile<W>(val, col, b, e, x + c, ldx, y + c, out);
  if constexpr (W > 1) {
    if (c < k) rowmajor_row<W / 2>(val, col, b, e, x + c, ldx, y + c, k - c, out);
  }
}

template <class T>
class CsrSpmmRowMajor final : public CpuCsrSpmmBase<T> {
 public:
  static constexpr int kTile = tuning::kSpmmCpuTileBytes / static_cast<int>(sizeof(T));
  CsrSpmmRowMajor(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CpuCsrSpmmBase<T>(a, s, o, cpu::plan_threads(o.threads), "cpu.csr.spmm_rowmajor", true, false) {}
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    const Csr<T>& a = this->a_;
    check_spmm_leading_dims(a.rows, a.cols, this->shape_, ldx, ldy);
    const std::int64_t* ptr = a.row_ptr.data();
    const std::int32_t* col = a.col_idx.data();
    const T* val = a.values.data();
    const std::int64_t k = this->shape_.k;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      this->for_row_ranges([&](std::int64_t r0, std::int64_t r1) {
        if (k == 1 && ldx == 1) {  // one contiguous vector: the SpMV row dot product (gather over the row)
          for (std::int64_t i = r0; i < r1; ++i) out.write(y[i * ldy], cpu::row_dot(val, col, ptr[i], ptr[i + 1], x));
          return;
        }
        for (std::int64_t i = r0; i < r1; ++i) rowmajor_row<kTile>(val, col, ptr[i], ptr[i + 1], x, ldx, y + i * ldy, k, out);
      });
    });
  }
  std::string detail() const override {
    return std::to_string(this->cut_.size() - 1) + " row ranges, " + std::to_string(kTile) + "-column register tiles";
  }
};

// ---------------------------------------------------------------------------------------------
// Column-major: C columns of one row at once, x0 the first column of X, ldx its stride.
template <int C, class T>
inline void colmajor_dots(const T* __restrict val, const std::int32_t* __restrict col, std::int64_t b, std::int64_t e,
                          const T* __restrict x0, std::int64_t ldx, T (&sum)[C]) {
  if constexpr (C == 4) {
    const T *x1 = x0 + ldx, *x2 = x1 + ldx, *x3 = x2 + ldx;
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
    for (std::int64_t p = b; p < e; ++p) {
      const std::int64_t j = col[p];
      const T v = val[p];
      s0 += v * x0[j], s1 += v * x1[j], s2 += v * x2[j], s3 += v * x3[j];
    }
    sum[0] = s0, sum[1] = s1, sum[2] = s2, sum[3] = s3;
  } else {
    static_assert(C == 1, "column tiles of 4 or 1");
    sum[0] = cpu::row_dot(val, col, b, e, x0);
  }
}

template <class T>
class CsrSpmmColMajor final : public CpuCsrSpmmBase<T> {
 public:
  static_assert(tuning::kSpmmCpuColTile == 4, "colmajor_dots is written for tiles of 4 columns");
  CsrSpmmColMajor(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CpuCsrSpmmBase<T>(a, s, o, cpu::plan_threads(o.threads), "cpu.csr.spmm_colmajor", false, true) {}
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    const Csr<T>& a = this->a_;
    check_spmm_leading_dims(a.rows, a.cols, this->shape_, ldx, ldy);
    const std::int64_t* ptr = a.row_ptr.data();
    const std::int32_t* col = a.col_idx.data();
    const T* val = a.values.data();
    const std::int64_t k = this->shape_.k;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      this->for_row_ranges([&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t i = r0; i < r1; ++i) {
          std::int64_t c = 0;
          for (; c + 4 <= k; c += 4) {
            T sum[4];
            colmajor_dots<4>(val, col, ptr[i], ptr[i + 1], x + c * ldx, ldx, sum);
            for (int q = 0; q < 4; ++q) out.write(y[(c + q) * ldy + i], sum[q]);
          }
          for (; c < k; ++c) {
            T sum[1];
            colmajor_dots<1>(val, col, ptr[i], ptr[i + 1], x + c * ldx, ldx, sum);
            out.write(y[c * ldy + i], sum[0]);
          }
        }
      });
    });
  }
  std::string detail() const override {
    return std::to_string(this->cut_.size() - 1) + " row ranges, " + std::to_string(tuning::kSpmmCpuColTile) +
           " columns per pass";
  }
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
                    "(vectorised over k), OpenMP over nnz-balanced row ranges";
    add_spmm_kernel<CsrSpmmRowMajor>(reg, std::move(k));
  }
  {
    SpmmKernelInfo k;
    k.name = "cpu.csr.spmm_colmajor";
    k.parallel = true;
    k.row_major = false;
    k.description = "CSR SpMM, column-major X/Y: per row, 4 columns per pass as vectorised gather dot products "
                    "sharing A's row, OpenMP over nnz-balanced row ranges";
    add_spmm_kernel<CsrSpmmColMajor>(reg, std::move(k));
  }
}

}  // namespace spkit
