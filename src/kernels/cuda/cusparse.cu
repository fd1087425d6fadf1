// cuSPARSE baselines, called as a knowledgeable user would: descriptors, workspace and
// cusparseSpMV_preprocess done once at plan time; run() only rebinds x and y, sets the stream and calls
// cusparseSpMV with the caller's alpha and beta (host scalars). The preprocess was made with alpha = 1,
// beta = 0: it binds the matrix, operation, types and algorithm, not the scalars, which each call passes
// anew (the alpha/beta GPU test runs every plan with other values after that preprocess).
// CSR ALG1 and ALG2, sliced ELLPACK (slice 32, SELL_ALG1), and BSR where blocks pay.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_common.cuh"
#include "spkit/kernel.hpp"

namespace spkit::cuda {

void check_cusparse(cusparseStatus_t status, const char* call) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw DeviceError(call, std::string(cusparseGetErrorName(status)) + ": " + cusparseGetErrorString(status));
}

namespace {

template <class T>
constexpr cudaDataType data_type() { return sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F; }

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// Base: owns the handle, the matrix/vector descriptors and the workspace. A derived constructor
// uploads its arrays, calls create_matrix(...) with a cuSPARSE matrix descriptor, then finish().
template <class T>
class CusparsePlanBase : public CudaSpmvPlan<T> {
 public:
  CusparsePlanBase(const Csr<T>& a, const PlanOptions& o, cusparseSpMVAlg_t alg) : CudaSpmvPlan<T>(a, o), alg_(alg) {
    empty_ = this->rows_ == 0 || this->nnz_ == 0;
  }
  ~CusparsePlanBase() override {
    if (vec_x_) cusparseDestroyDnVec(vec_x_);
    if (vec_y_) cusparseDestroyDnVec(vec_y_);
    if (mat_) cusparseDestroySpMat(mat_);
    if (handle_) cusparseDestroy(handle_);
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->rows_ == 0) return;
    if (empty_) return this->scale_output(beta, y, s);
    const T* xin = x;
    T* yout = y;
    const std::size_t y_bytes = static_cast<std::size_t>(this->rows_) * sizeof(T);
    if (padded_x_.size() > 0) {  // BSR with a partial last block: x and y padded to whole blocks
      SPKIT_CUDA_CHECK(cudaMemcpyAsync(padded_x_.get(), x, static_cast<std::size_t>(this->cols_) * sizeof(T),
                                       cudaMemcpyDeviceToDevice, s));
      if (beta != T(0)) SPKIT_CUDA_CHECK(cudaMemcpyAsync(padded_y_.get(), y, y_bytes, cudaMemcpyDeviceToDevice, s));
      xin = padded_x_.get();
      yout = padded_y_.get();
    }
    SPKIT_CUSPARSE_CHECK(cusparseSetStream(handle_, s));
    SPKIT_CUSPARSE_CHECK(cusparseDnVecSetValues(vec_x_, const_cast<T*>(xin)));
    SPKIT_CUSPARSE_CHECK(cusparseDnVecSetValues(vec_y_, yout));
    SPKIT_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, vec_x_, &beta, vec_y_,
                                      data_type<T>(), alg_, workspace_.get()));
    if (padded_y_.size() > 0)
      SPKIT_CUDA_CHECK(cudaMemcpyAsync(y, padded_y_.get(), y_bytes, cudaMemcpyDeviceToDevice, s));
  }

 protected:
  // x_len/y_len: the lengths cuSPARSE sees (padded for BSR).
  void finish(std::int64_t x_len, std::int64_t y_len) {
    DeviceBuffer<T> x0(static_cast<std::size_t>(x_len), "cuSPARSE preprocess x");
    DeviceBuffer<T> y0(static_cast<std::size_t>(y_len), "cuSPARSE preprocess y");
    SPKIT_CUDA_CHECK(cudaMemset(x0.get(), 0, x0.bytes()));
    SPKIT_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_x_, x_len, x0.get(), data_type<T>()));
    SPKIT_CUSPARSE_CHECK(cusparseCreateDnVec(&vec_y_, y_len, y0.get(), data_type<T>()));
    const T alpha = 1, beta = 0;
    std::size_t ws = 0;
    SPKIT_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, vec_x_,
                                                 &beta, vec_y_, data_type<T>(), alg_, &ws));
    workspace_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(ws, 1), "cuSPARSE SpMV workspace");
    SPKIT_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, vec_x_,
                                                 &beta, vec_y_, data_type<T>(), alg_, workspace_.get()));
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void create_handle() { SPKIT_CUSPARSE_CHECK(cusparseCreate(&handle_)); }

  bool empty_ = false;
  cusparseSpMVAlg_t alg_;
  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnVecDescr_t vec_x_ = nullptr, vec_y_ = nullptr;
  DeviceBuffer<unsigned char> workspace_;
  DeviceBuffer<T> padded_x_, padded_y_;
};

// ---------------------------------------------------------------------------------------------
// CSR with 32-bit offsets and indices (cuSPARSE wants one index type for both).
template <class T>
class CusparseCsrPlanBase : public CusparsePlanBase<T> {
 public:
  CusparseCsrPlanBase(const Csr<T>& a, const PlanOptions& o, cusparseSpMVAlg_t alg) : CusparsePlanBase<T>(a, o, alg) {
    if (this->empty_) return;
    if (a.nnz() > kInt32Max || a.rows > kInt32Max)
      throw NotApplicable("cuSPARSE CSR with 32-bit offsets: nnz " + std::to_string(a.nnz()) + " exceeds 2^31-1");
    std::vector<std::int32_t> rp(a.row_ptr.begin(), a.row_ptr.end());
    row_ptr_ = DeviceBuffer<std::int32_t>(rp, "cuSPARSE CSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(a.col_idx, "cuSPARSE CSR col_idx");
    values_ = DeviceBuffer<T>(a.values, "cuSPARSE CSR values");
    this->create_handle();
    SPKIT_CUSPARSE_CHECK(cusparseCreateCsr(&this->mat_, a.rows, a.cols, a.nnz(), row_ptr_.get(), col_idx_.get(),
                                           values_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, data_type<T>()));
    this->finish(a.cols, a.rows);
  }
  std::uint64_t bytes_moved() const override { return this->csr_bytes(4); }

 private:
  DeviceBuffer<std::int32_t> row_ptr_, col_idx_;
  DeviceBuffer<T> values_;
};

template <class T>
class CusparseCsrAlg1Plan : public CusparseCsrPlanBase<T> {
 public:
  CusparseCsrAlg1Plan(const Csr<T>& a, const PlanOptions& o) : CusparseCsrPlanBase<T>(a, o, CUSPARSE_SPMV_CSR_ALG1) {}
  std::string detail() const override { return "CSR_ALG1 + preprocess"; }
};
template <class T>
class CusparseCsrAlg2Plan : public CusparseCsrPlanBase<T> {
 public:
  CusparseCsrAlg2Plan(const Csr<T>& a, const PlanOptions& o) : CusparseCsrPlanBase<T>(a, o, CUSPARSE_SPMV_CSR_ALG2) {}
  std::string detail() const override { return "CSR_ALG2 + preprocess"; }
};

// ---------------------------------------------------------------------------------------------
// Sliced ELLPACK, slice 32: each slice column-major (element k of row r at offset[s] + k*32 + r),
// padded to its longest row and to whole slices with column index -1.
template <class T>
class CusparseSellPlan : public CusparsePlanBase<T> {
 public:
  static constexpr std::int64_t kSlice = 32;
  CusparseSellPlan(const Csr<T>& a, const PlanOptions& o) : CusparsePlanBase<T>(a, o, CUSPARSE_SPMV_SELL_ALG1) {
    if (this->empty_) return;
    const std::int64_t slices = (a.rows + kSlice - 1) / kSlice;
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(slices) + 1, 0);
    for (std::int64_t s = 0; s < slices; ++s) {
      std::int64_t width = 0;
      for (std::int64_t r = s * kSlice; r < std::min(a.rows, (s + 1) * kSlice); ++r) width = std::max(width, a.row_length(r));
      offsets[s + 1] = offsets[s] + width * kSlice;
    }
    padded_ = offsets.back();
    const std::uint64_t need = static_cast<std::uint64_t>(padded_) * (4 + sizeof(T));
    if (padded_ > kInt32Max) throw TooLarge("cuSPARSE SELL with 32-bit offsets: padded size exceeds 2^31-1", need);
    if (o.memory_budget_bytes > 0 && need > o.memory_budget_bytes) throw TooLarge("cuSPARSE SELL arrays", need);
    std::vector<std::int32_t> off32(offsets.begin(), offsets.end());
    std::vector<std::int32_t> col(static_cast<std::size_t>(padded_), -1);
    std::vector<T> val(static_cast<std::size_t>(padded_), T(0));
    for (std::int64_t r = 0; r < a.rows; ++r) {
      const std::int64_t s = r / kSlice, lr = r % kSlice;
      std::int64_t k = 0;
      for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j, ++k) {
        const std::size_t at = static_cast<std::size_t>(offsets[s] + k * kSlice + lr);
        col[at] = a.col_idx[j];
        val[at] = a.values[j];
      }
    }
    slice_offsets_ = DeviceBuffer<std::int32_t>(off32, "cuSPARSE SELL slice offsets");
    col_idx_ = DeviceBuffer<std::int32_t>(col, "cuSPARSE SELL col_idx");
    values_ = DeviceBuffer<T>(val, "cuSPARSE SELL values");
    this->create_handle();
    SPKIT_CUSPARSE_CHECK(cusparseCreateSlicedEll(&this->mat_, a.rows, a.cols, a.nnz(), padded_, kSlice,
                                                 slice_offsets_.get(), col_idx_.get(), values_.get(),
                                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                                 data_type<T>()));
    this->finish(a.cols, a.rows);
  }
  std::uint64_t bytes_moved() const override {
    return static_cast<std::uint64_t>(slice_offsets_.size()) * 4 + static_cast<std::uint64_t>(padded_) * (4 + sizeof(T)) +
           static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    return "slice 32, padding " + std::to_string(this->nnz_ > 0 ? double(padded_) / double(this->nnz_) : 0.0).substr(0, 4) + "x";
  }

 private:
  std::int64_t padded_ = 0;
  DeviceBuffer<std::int32_t> slice_offsets_, col_idx_;
  DeviceBuffer<T> values_;
};

// ---------------------------------------------------------------------------------------------
// BSR: the block size (2..8) whose stored elements are fewest, accepted only when the block fill
// stays under 2x nnz and BSR moves fewer bytes than CSR; otherwise NotApplicable.
struct BsrChoice {
  int block = 0;
  std::int64_t blocks = 0;
};

template <class T>
std::int64_t count_bsr_blocks(const Csr<T>& a, int b) {
  const std::int64_t nb = (a.cols + b - 1) / b;
  std::vector<std::int64_t> mark(static_cast<std::size_t>(nb), -1);
  std::int64_t count = 0;
  for (std::int64_t br = 0; br * b < a.rows; ++br)
    for (std::int64_t r = br * b; r < std::min(a.rows, (br + 1) * b); ++r)
      for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j) {
        const std::int64_t bc = a.col_idx[j] / b;
        if (mark[bc] != br) mark[bc] = br, ++count;
      }
  return count;
}

template <class T>
class CusparseBsrPlan : public CusparsePlanBase<T> {
 public:
  CusparseBsrPlan(const Csr<T>& a, const PlanOptions& o) : CusparsePlanBase<T>(a, o, CUSPARSE_SPMV_BSR_ALG1) {
    if (this->empty_) return;
    std::uint64_t best = this->csr_bytes(4);  // BSR must beat CSR's bytes to be worth it
    for (int b : {2, 3, 4, 5, 6, 8}) {
      const std::int64_t blocks = count_bsr_blocks(a, b);
      const std::int64_t stored = blocks * b * b;
      if (stored > 2 * a.nnz()) continue;
      const std::uint64_t bytes = static_cast<std::uint64_t>(stored) * sizeof(T) +
                                  static_cast<std::uint64_t>(blocks + (a.rows + b - 1) / b + 1) * 4 +
                                  static_cast<std::uint64_t>(a.rows + a.cols) * sizeof(T);
      if (bytes < best) best = bytes, choice_ = {b, blocks};
    }
    if (choice_.block == 0)
      throw NotApplicable("no block size 2..8 keeps the BSR fill under 2x nnz and moves fewer bytes than CSR");
    const int b = choice_.block;
    const std::int64_t mb = (a.rows + b - 1) / b, nb = (a.cols + b - 1) / b;
    const std::int64_t stored = choice_.blocks * b * b;
    if (stored > kInt32Max || mb > kInt32Max) throw NotApplicable("BSR too large for 32-bit indices");
    // Build BSR (blocks row-major inside) on the host in one pass per block row.
    std::vector<std::int32_t> brp(static_cast<std::size_t>(mb) + 1, 0), bci;
    std::vector<T> bval;
    bci.reserve(static_cast<std::size_t>(choice_.blocks));
    bval.assign(static_cast<std::size_t>(stored), T(0));
    std::vector<std::int64_t> slot(static_cast<std::size_t>(nb), -1);
    std::vector<std::int64_t> cols_here;
    for (std::int64_t br = 0; br < mb; ++br) {
      cols_here.clear();
      for (std::int64_t r = br * b; r < std::min(a.rows, (br + 1) * b); ++r)
        for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j) {
          const std::int64_t bc = a.col_idx[j] / b;
          if (slot[bc] < 0) slot[bc] = 0, cols_here.push_back(bc);
        }
      std::sort(cols_here.begin(), cols_here.end());
      const std::int64_t base = static_cast<std::int64_t>(bci.size());
      for (std::size_t k = 0; k < cols_here.size(); ++k) {
        slot[cols_here[k]] = base + static_cast<std::int64_t>(k);
        bci.push_back(static_cast<std::int32_t>(cols_here[k]));
      }
      for (std::int64_t r = br * b; r < std::min(a.rows, (br + 1) * b); ++r)
        for (std::int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j) {
          const std::int64_t bc = a.col_idx[j] / b;
          bval[static_cast<std::size_t>(slot[bc] * b * b + (r - br * b) * b + a.col_idx[j] % b)] = a.values[j];
        }
      for (std::int64_t bc : cols_here) slot[bc] = -1;
      brp[br + 1] = static_cast<std::int32_t>(bci.size());
    }
    row_ptr_ = DeviceBuffer<std::int32_t>(brp, "cuSPARSE BSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(bci, "cuSPARSE BSR col_idx");
    values_ = DeviceBuffer<T>(bval, "cuSPARSE BSR values");
    if (mb * b != a.rows || nb * b != a.cols) {
      this->padded_x_ = DeviceBuffer<T>(static_cast<std::size_t>(nb * b), "BSR padded x");
      this->padded_y_ = DeviceBuffer<T>(static_cast<std::size_t>(mb * b), "BSR padded y");
      SPKIT_CUDA_CHECK(cudaMemset(this->padded_x_.get(), 0, this->padded_x_.bytes()));
      // The padding rows of y are never copied out; zero keeps beta*y finite there.
      SPKIT_CUDA_CHECK(cudaMemset(this->padded_y_.get(), 0, this->padded_y_.bytes()));
    }
    this->create_handle();
    SPKIT_CUSPARSE_CHECK(cusparseCreateBsr(&this->mat_, mb, nb, choice_.blocks, b, b, row_ptr_.get(), col_idx_.get(),
                                           values_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, data_type<T>(), CUSPARSE_ORDER_ROW));
    this->finish(nb * b, mb * b);
  }
  std::uint64_t bytes_moved() const override {
    const std::uint64_t b = static_cast<std::uint64_t>(choice_.block);
    return row_ptr_.bytes() + col_idx_.bytes() + static_cast<std::uint64_t>(choice_.blocks) * b * b * sizeof(T) +
           static_cast<std::uint64_t>(this->rows_ + this->cols_) * sizeof(T);
  }
  std::string detail() const override {
    if (choice_.block == 0) return "empty";
    const double fill = double(choice_.blocks) * choice_.block * choice_.block / double(this->nnz_);
    return "block " + std::to_string(choice_.block) + ", fill " + std::to_string(fill).substr(0, 4) + "x";
  }

 private:
  BsrChoice choice_;
  DeviceBuffer<std::int32_t> row_ptr_, col_idx_;
  DeviceBuffer<T> values_;
};

}  // namespace

void register_cuda_cusparse_kernels(Registry& reg) {
  // Vendor baselines: benchmark-only (comparison), never picked by "auto" (no cost model).
  const auto info = [](const char* name, Format format, const char* description) {
    KernelInfo k;
    k.name = name;
    k.format = format;
    k.backend = Backend::cuda;
    k.comparison = true;
    k.description = description;
    return k;
  };
  add_kernel<CusparseCsrAlg1Plan>(
      reg, info("cuda.cusparse.csr", Format::csr, "cuSPARSE SpMV CSR_ALG1 with preprocess at plan time (baseline)"));
  add_kernel<CusparseCsrAlg2Plan>(
      reg, info("cuda.cusparse.csr_alg2", Format::csr, "cuSPARSE SpMV CSR_ALG2 with preprocess at plan time (baseline)"));
  add_kernel<CusparseSellPlan>(
      reg, info("cuda.cusparse.sell", Format::sell, "cuSPARSE SpMV sliced ELLPACK, slice 32, SELL_ALG1 (baseline)"));
  add_kernel<CusparseBsrPlan>(reg, info("cuda.cusparse.bsr", Format::bsr,
                                        "cuSPARSE SpMV BSR_ALG1, block 2-8 where the fill stays under 2x (baseline)"));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_cusparse_kernels(Registry& reg) { cuda::register_cuda_cusparse_kernels(reg); }
}  // namespace spkit
