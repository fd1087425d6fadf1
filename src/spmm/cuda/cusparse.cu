// cuSPARSE SpMM baselines cuda.cusparse.spmm_alg1/alg2/alg3 (cusparseSpMM on CSR with CUSPARSE_SPMM_CSR_ALG1,
// ALG2, ALG3), called as a knowledgeable user would: descriptors, workspace and cusparseSpMM_preprocess once
// at plan time (for the leading dimensions X and Y have without padding: k, or the rows); run() rebinds X
// and Y, sets the stream and calls cusparseSpMM with the caller's alpha and beta. A run with other leading
// dimensions recreates the dense descriptors and preprocesses again first (slow once, then fast).
// ALG1 takes both layouts; ALG2 and ALG3 are registered for row-major X and Y only, where cuSPARSE
// documents them. Blocked-ELL (CUSPARSE_SPMM_BLOCKED_ELL_ALG1) is not wrapped yet.
#include <cusparse.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "spmm/cuda/spmm_cuda_common.cuh"

namespace spkit::cuda {
namespace {

template <class T>
constexpr cudaDataType spmm_data_type() { return sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F; }

// CSR_ALG3's vector width in bytes (its X and Y accesses).
constexpr std::int64_t kCsrAlg3VectorBytes = 16;

template <class T, cusparseSpMMAlg_t Alg>
class CusparseSpmmPlan final : public CudaSpmmPlanBase<T> {
 public:
  static constexpr bool kColMajor = Alg == CUSPARSE_SPMM_CSR_ALG1;
  CusparseSpmmPlan(const Csr<T>& a, const SpmmShape& s, const PlanOptions& o)
      : CudaSpmmPlanBase<T>(a, s, o, "cuda.cusparse.spmm", true, kColMajor) {
    if (this->rows_ == 0 || this->nnz_ == 0) return;
    constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
    if (a.nnz() > kMax || a.rows > kMax)
      throw NotApplicable("cuSPARSE CSR with 32-bit offsets: nnz " + std::to_string(a.nnz()) + " exceeds 2^31-1");
    std::vector<std::int32_t> rp(a.row_ptr.begin(), a.row_ptr.end());
    row_ptr32_ = DeviceBuffer<std::int32_t>(rp, "cuSPARSE SpMM row_ptr");
    this->col_idx_ = DeviceBuffer<std::int32_t>(a.col_idx, "cuSPARSE SpMM col_idx");
    this->values_ = DeviceBuffer<T>(a.values, "cuSPARSE SpMM values");
    SPKIT_CUSPARSE_CHECK(cusparseCreate(&handle_));
    SPKIT_CUSPARSE_CHECK(cusparseCreateCsr(&mat_, a.rows, a.cols, a.nnz(), row_ptr32_.get(), this->col_idx_.get(),
                                           this->values_.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, spmm_data_type<T>()));
    const bool row = s.layout == DenseLayout::row_major;
    const std::int64_t ldx = row ? s.k : this->cols_, ldy = row ? s.k : this->rows_;
    require_vector_alignment(ldx, ldy, nullptr, nullptr);
    DeviceBuffer<T> x0(static_cast<std::size_t>(this->cols_ * s.k), "cuSPARSE SpMM preprocess X");
    DeviceBuffer<T> y0(static_cast<std::size_t>(this->rows_ * s.k), "cuSPARSE SpMM preprocess Y");
    SPKIT_CUDA_CHECK(cudaMemset(x0.get(), 0, x0.bytes()));
    prepare(x0.get(), ldx, y0.get(), ldy, nullptr);
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~CusparseSpmmPlan() override {
    destroy_dense();
    if (mat_) cusparseDestroySpMat(mat_);
    if (handle_) cusparseDestroy(handle_);
  }
  CusparseSpmmPlan(const CusparseSpmmPlan&) = delete;
  CusparseSpmmPlan& operator=(const CusparseSpmmPlan&) = delete;

  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    require_vector_alignment(ldx, ldy, x, y);
    const cudaStream_t s = cuda_stream(stream);
    if (this->trivial_run(beta, y, ldx, ldy, s)) return;
    if (ldx != ldx_ || ldy != ldy_) prepare(const_cast<T*>(x), ldx, y, ldy, s);
    SPKIT_CUSPARSE_CHECK(cusparseSetStream(handle_, s));
    SPKIT_CUSPARSE_CHECK(cusparseDnMatSetValues(mat_x_, const_cast<T*>(x)));
    SPKIT_CUSPARSE_CHECK(cusparseDnMatSetValues(mat_y_, y));
    SPKIT_CUSPARSE_CHECK(cusparseSpMM(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      &alpha, mat_, mat_x_, &beta, mat_y_, spmm_data_type<T>(), Alg, workspace_.get()));
  }
  std::string detail() const override {
    const char* name = Alg == CUSPARSE_SPMM_CSR_ALG1 ? "CSR_ALG1" : Alg == CUSPARSE_SPMM_CSR_ALG2 ? "CSR_ALG2" : "CSR_ALG3";
    return std::string(name) + " + cusparseSpMM_preprocess";
  }

 private:
  // CSR_ALG3 reads X (and writes Y) in 16-byte vectors: other leading dimensions or addresses give
  // misaligned accesses (compute-sanitizer), so they are refused rather than run.
  static void require_vector_alignment(std::int64_t ldx, std::int64_t ldy, const void* x, const void* y) {
    if constexpr (Alg == CUSPARSE_SPMM_CSR_ALG3) {
      const auto aligned = [](std::int64_t ld) { return (ld * static_cast<std::int64_t>(sizeof(T))) % kCsrAlg3VectorBytes == 0; };
      const auto at = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % kCsrAlg3VectorBytes == 0; };
      if (!aligned(ldx) || !aligned(ldy) || !at(x) || !at(y))
        throw NotApplicable("cuSPARSE CSR_ALG3 reads 16-byte vectors: leading dimensions of X and Y (" +
                            std::to_string(ldx) + ", " + std::to_string(ldy) + " elements of " +
                            std::to_string(sizeof(T)) + " bytes) and their addresses must be multiples of 16 bytes");
    }
  }

  // Dense descriptors for (ldx, ldy), workspace and preprocess, on `stream` (null: the default stream).
  void prepare(T* x, std::int64_t ldx, T* y, std::int64_t ldy, cudaStream_t stream) {
    destroy_dense();
    const auto order = this->shape_.layout == DenseLayout::row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    SPKIT_CUSPARSE_CHECK(cusparseCreateDnMat(&mat_x_, this->cols_, this->shape_.k, ldx, x, spmm_data_type<T>(), order));
    SPKIT_CUSPARSE_CHECK(cusparseCreateDnMat(&mat_y_, this->rows_, this->shape_.k, ldy, y, spmm_data_type<T>(), order));
    SPKIT_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    const T alpha = 1, beta = 0;
    std::size_t ws = 0;
    SPKIT_CUSPARSE_CHECK(cusparseSpMM_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                 CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, mat_x_, &beta, mat_y_,
                                                 spmm_data_type<T>(), Alg, &ws));
    if (workspace_.size() < std::max<std::size_t>(ws, 1)) {
      if (stream) SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old workspace may be in use
      workspace_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(ws, 1), "cuSPARSE SpMM workspace");
    }
    SPKIT_CUSPARSE_CHECK(cusparseSpMM_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                 CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat_, mat_x_, &beta, mat_y_,
                                                 spmm_data_type<T>(), Alg, workspace_.get()));
    ldx_ = ldx, ldy_ = ldy;
  }
  void destroy_dense() {
    if (mat_x_) cusparseDestroyDnMat(mat_x_);
    if (mat_y_) cusparseDestroyDnMat(mat_y_);
    mat_x_ = nullptr, mat_y_ = nullptr;
  }

  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t mat_ = nullptr;
  cusparseDnMatDescr_t mat_x_ = nullptr, mat_y_ = nullptr;
  std::int64_t ldx_ = -1, ldy_ = -1;
  DeviceBuffer<std::int32_t> row_ptr32_;  // cuSPARSE wants one index width for offsets and columns
  DeviceBuffer<unsigned char> workspace_;
};

template <class T>
using CusparseSpmmAlg1 = CusparseSpmmPlan<T, CUSPARSE_SPMM_CSR_ALG1>;
template <class T>
using CusparseSpmmAlg2 = CusparseSpmmPlan<T, CUSPARSE_SPMM_CSR_ALG2>;
template <class T>
using CusparseSpmmAlg3 = CusparseSpmmPlan<T, CUSPARSE_SPMM_CSR_ALG3>;

SpmmKernelInfo cusparse_info(const char* name, bool col_major, const char* description, int ld_multiple_bytes = 0) {
  SpmmKernelInfo k;
  k.ld_multiple_bytes = ld_multiple_bytes;
  k.name = name;
  k.backend = Backend::cuda;
  k.comparison = true;
  k.col_major = col_major;
  k.description = description;
  return k;
}

}  // namespace

void register_cuda_cusparse_spmm(SpmmRegistry& reg) {
  add_spmm_kernel<CusparseSpmmAlg1>(
      reg, cusparse_info("cuda.cusparse.spmm_alg1", true, "cuSPARSE cusparseSpMM CSR_ALG1 + preprocess, both layouts"));
  add_spmm_kernel<CusparseSpmmAlg2>(
      reg, cusparse_info("cuda.cusparse.spmm_alg2", false, "cuSPARSE cusparseSpMM CSR_ALG2 + preprocess, row-major"));
  add_spmm_kernel<CusparseSpmmAlg3>(
      reg, cusparse_info("cuda.cusparse.spmm_alg3", false, "cuSPARSE cusparseSpMM CSR_ALG3 + preprocess, row-major",
                     16));
}

}  // namespace spkit::cuda

namespace spkit {
void register_cuda_cusparse_spmm(SpmmRegistry& reg) { cuda::register_cuda_cusparse_spmm(reg); }
}  // namespace spkit
