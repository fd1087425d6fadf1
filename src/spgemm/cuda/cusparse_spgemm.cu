// cusparseSpGEMM on CSR (32-bit indices), the comparison baseline, in each of its algorithms: DEFAULT
// (ALG1: fastest, most memory), ALG2 (deterministic, less memory) and ALG3 (the product in chunks of
// its intermediate products, memory bounded by the chunk fraction); "cuSPARSE best" in the harness is
// the fastest of them. Each is timed as a user pays for it on every product: descriptors, the
// work-estimation, memory-estimation (ALG2/3) and compute buffer queries with their allocations, the
// size query, C's arrays and the copy into them. Allocations come from
// the same stream-ordered pool as the bmSparse pipeline's, so neither side is charged cudaMalloc's
// page mapping where the other is not. Uploading A and B and creating the handle are preparation.
#include <cusparse.h>

#include <limits>
#include <string>
#include <vector>

#include "spgemm/cuda/spgemm_cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

template <class T>
constexpr cudaDataType value_type() { return sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F; }

struct CusparseHandle {
  cusparseHandle_t h = nullptr;
  CusparseHandle() { SPKIT_CUSPARSE_CHECK(cusparseCreate(&h)); }
  ~CusparseHandle() { if (h) cusparseDestroy(h); }
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;
};
struct SpMat {
  cusparseSpMatDescr_t d = nullptr;
  SpMat() = default;
  ~SpMat() { if (d) cusparseDestroySpMat(d); }
  SpMat(const SpMat&) = delete;
  SpMat& operator=(const SpMat&) = delete;
};
struct SpgemmDescr {
  cusparseSpGEMMDescr_t d = nullptr;
  SpgemmDescr() { SPKIT_CUSPARSE_CHECK(cusparseSpGEMM_createDescr(&d)); }
  ~SpgemmDescr() { if (d) cusparseSpGEMM_destroyDescr(d); }
  SpgemmDescr(const SpgemmDescr&) = delete;
  SpgemmDescr& operator=(const SpgemmDescr&) = delete;
};

template <class T>
struct DeviceCsr32 {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<std::int32_t> row_ptr, col_idx;
  DeviceBuffer<T> values;
};

template <class T>
DeviceCsr32<T> upload_csr32(const Csr<T>& m) {
  DeviceCsr32<T> d;
  d.rows = m.rows, d.cols = m.cols, d.nnz = m.nnz();
  d.row_ptr = DeviceBuffer<std::int32_t>(std::vector<std::int32_t>(m.row_ptr.begin(), m.row_ptr.end()), "cuSPARSE row_ptr");
  d.col_idx = DeviceBuffer<std::int32_t>(m.col_idx, "cuSPARSE col_idx");
  d.values = DeviceBuffer<T>(m.values, "cuSPARSE values");
  return d;
}

template <class T>
void create_csr(SpMat& m, const DeviceCsr32<T>& d) {
  SPKIT_CUSPARSE_CHECK(cusparseCreateCsr(&m.d, d.rows, d.cols, d.nnz, d.row_ptr.get(), d.col_idx.get(), d.values.get(),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                         value_type<T>()));
}

// One registry entry: the algorithm, its name and how its detail reads.
struct Algorithm {
  cusparseSpGEMMAlg_t alg;
  const char* name;
  const char* detail;
};
constexpr Algorithm kAlgorithms[] = {
    {CUSPARSE_SPGEMM_DEFAULT, "cuda.cusparse.spgemm", "CSR, CUSPARSE_SPGEMM_DEFAULT"},
    {CUSPARSE_SPGEMM_ALG2, "cuda.cusparse.spgemm_alg2", "CSR, CUSPARSE_SPGEMM_ALG2"},
    {CUSPARSE_SPGEMM_ALG3, "cuda.cusparse.spgemm_alg3", "CSR, CUSPARSE_SPGEMM_ALG3"},
};

template <class T>
SpgemmResult<T> run_cusparse_spgemm(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& o, const Algorithm& algorithm) {
  const std::string name = algorithm.name;
  if (a.cols != b.rows)
    throw Error(name + ": A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols));
  constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
  if (a.nnz() > kMax32 || b.nnz() > kMax32 || a.rows > kMax32 || b.rows > kMax32)
    throw NotApplicable(name + ": 32-bit CSR indices cannot hold these matrices");
  set_device(o.device);
  const cudaStream_t stream = cuda_stream(o.stream);
  const detail::StageMarks marks(o);
  SpgemmResult<T> r;
  r.detail = algorithm.detail;
  if (algorithm.alg == CUSPARSE_SPGEMM_ALG3)
    r.detail += ", chunk fraction " + std::to_string(tuning::spgemm::kCusparseAlg3ChunkFraction).substr(0, 4);
  const bool trivial = a.nnz() == 0 || b.nnz() == 0 || a.rows == 0 || b.cols == 0;
  marks.host("upload", false);
  if (trivial) {  // cuSPARSE is not called on a product without a single multiply: C is empty
    marks.end();
    r.c.rows = a.rows, r.c.cols = b.cols;
    r.c.row_ptr.assign(static_cast<std::size_t>(std::max<std::int64_t>(a.rows, 0)) + 1, 0);
    r.detail = "empty product, cuSPARSE not called";
    return r;
  }
  DeviceCsr32<T> da = upload_csr32(a), db = upload_csr32(b);
  CusparseHandle handle;
  SPKIT_CUSPARSE_CHECK(cusparseSetStream(handle.h, stream));
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());  // the uploads from pageable memory have landed
  // cuSPARSE's default algorithm refuses some shapes outright (seen: 8 rows of B over 600k columns):
  // that is a limit of the baseline, reported as NotApplicable rather than as a failure.
  const auto call = [&](cusparseStatus_t status, const char* what) {
    if (status == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES || status == CUSPARSE_STATUS_NOT_SUPPORTED)
      throw NotApplicable(name + ": " + what + " reports " + cusparseGetErrorName(status) + " for a " +
                          std::to_string(a.rows) + "x" + std::to_string(a.cols) + " by " + std::to_string(b.rows) +
                          "x" + std::to_string(b.cols) + " product");
    check_cusparse(status, what);
  };
  const T alpha = 1, beta = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const auto alg = algorithm.alg;
  marks.device("work estimation");
  SpMat ma, mb, mc;
  create_csr(ma, da);
  create_csr(mb, db);
  SPKIT_CUSPARSE_CHECK(cusparseCreateCsr(&mc.d, a.rows, b.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type<T>()));
  SpgemmDescr desc;
  std::size_t bytes1 = 0, bytes2 = 0;
  call(cusparseSpGEMM_workEstimation(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d,
                                     &bytes1, nullptr),
       "cusparseSpGEMM_workEstimation");
  PoolBuffer<unsigned char> buffer1(std::max<std::size_t>(bytes1, 1), "cusparseSpGEMM work estimation buffer", stream);
  call(cusparseSpGEMM_workEstimation(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d,
                                     &bytes1, buffer1.get()),
       "cusparseSpGEMM_workEstimation");
  PoolBuffer<unsigned char> buffer3;
  std::size_t bytes3 = 0;
  if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
    // ALG2/ALG3 size the compute buffer from an inspection of A and B (whose own buffer is freed before
    // compute); ALG3 bounds it by computing chunk_fraction of the intermediate products at a time.
    marks.device("memory estimation");
    const float chunk = tuning::spgemm::kCusparseAlg3ChunkFraction;
    call(cusparseSpGEMM_estimateMemory(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d,
                                       chunk, &bytes3, nullptr, nullptr),
         "cusparseSpGEMM_estimateMemory");
    buffer3 = PoolBuffer<unsigned char>(std::max<std::size_t>(bytes3, 1), "cusparseSpGEMM memory estimation buffer", stream);
    call(cusparseSpGEMM_estimateMemory(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d,
                                       chunk, &bytes3, buffer3.get(), &bytes2),
         "cusparseSpGEMM_estimateMemory");
    buffer3 = PoolBuffer<unsigned char>();
  }
  marks.device("compute");
  if (alg != CUSPARSE_SPGEMM_ALG2 && alg != CUSPARSE_SPGEMM_ALG3)  // their size came from estimateMemory
    call(cusparseSpGEMM_compute(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d,
                                &bytes2, nullptr),
         "cusparseSpGEMM_compute");
  PoolBuffer<unsigned char> buffer2(std::max<std::size_t>(bytes2, 1), "cusparseSpGEMM compute buffer", stream);
  call(cusparseSpGEMM_compute(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d, &bytes2,
                              buffer2.get()),
       "cusparseSpGEMM_compute");
  marks.device("copy");
  std::int64_t rows = 0, cols = 0, c_nnz = 0;
  SPKIT_CUSPARSE_CHECK(cusparseSpMatGetSize(mc.d, &rows, &cols, &c_nnz));
  PoolBuffer<std::int32_t> c_row_ptr(static_cast<std::size_t>(a.rows) + 1, "cuSPARSE C row_ptr", stream);
  PoolBuffer<std::int32_t> c_col_idx(static_cast<std::size_t>(std::max<std::int64_t>(c_nnz, 1)), "cuSPARSE C col_idx",
                                     stream);
  PoolBuffer<T> c_values(static_cast<std::size_t>(std::max<std::int64_t>(c_nnz, 1)), "cuSPARSE C values", stream);
  SPKIT_CUSPARSE_CHECK(cusparseCsrSetPointers(mc.d, c_row_ptr.get(), c_col_idx.get(), c_values.get()));
  SPKIT_CUSPARSE_CHECK(
      cusparseSpGEMM_copy(handle.h, op, op, &alpha, ma.d, mb.d, &beta, mc.d, value_type<T>(), alg, desc.d));
  marks.host("download", false);
  const std::vector<std::int32_t> rp = c_row_ptr.to_host(static_cast<std::size_t>(a.rows) + 1);
  r.c.col_idx = c_col_idx.to_host(static_cast<std::size_t>(c_nnz));
  r.c.values = c_values.to_host(static_cast<std::size_t>(c_nnz));
  marks.host("to CSR", false);
  r.c.rows = a.rows, r.c.cols = b.cols;
  r.c.row_ptr.assign(rp.begin(), rp.end());
  drop_zeros_and_sort(r.c);
  marks.end();
  c_row_ptr = PoolBuffer<std::int32_t>(), c_col_idx = PoolBuffer<std::int32_t>(), c_values = PoolBuffer<T>();
  buffer1 = PoolBuffer<unsigned char>(), buffer2 = PoolBuffer<unsigned char>();
  release_spgemm_pool(o, stream);
  return r;
}

}  // namespace

void register_cusparse_spgemm_kernel(SpgemmRegistry& reg) {
  for (const Algorithm& algorithm : kAlgorithms) {
    SpgemmKernelInfo k;
    k.name = algorithm.name;
    k.format = Format::csr;
    k.backend = Backend::cuda;
    k.comparison = true;
    k.description = std::string("NVIDIA cuSPARSE's cusparseSpGEMM (CSR, ") +
                    (algorithm.alg == CUSPARSE_SPGEMM_DEFAULT ? "default algorithm, ALG1"
                     : algorithm.alg == CUSPARSE_SPGEMM_ALG2  ? "ALG2: deterministic, less memory"
                                                             : "ALG3: chunks of the products, bounded memory") +
                    "): buffer queries, allocations and copy timed as paid";
    const Algorithm* alg = &algorithm;  // static storage: the lambdas may keep the pointer
    k.run_f32 = [alg](const Csr<float>& a, const Csr<float>& b, const SpgemmOptions& o) {
      return run_cusparse_spgemm(a, b, o, *alg);
    };
    k.run_f64 = [alg](const Csr<double>& a, const Csr<double>& b, const SpgemmOptions& o) {
      return run_cusparse_spgemm(a, b, o, *alg);
    };
    reg.add(std::move(k));
  }
}

}  // namespace spkit::cuda
