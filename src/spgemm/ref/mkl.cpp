// Comparison SpGEMM ref.mkl.sp2m and ref.mkl.sp2m_1stage: Intel MKL's mkl_sparse_sp2m in its two
// modes, timed as a user pays it for C = A B with A, B and C in plain CSR arrays (the harness, and the
// tables of docs/perf/spgemm.md, take the better of the two as "MKL"):
//   create    mkl_sparse_?_create_csr for A (and B when it is not A);
//   count     two-stage: mkl_sparse_sp2m(SPARSE_STAGE_NNZ_COUNT): C's structure;
//   finalize  two-stage: mkl_sparse_sp2m(SPARSE_STAGE_FINALIZE_MULT): C's values;
//   multiply  one-stage: mkl_sparse_sp2m(SPARSE_STAGE_FULL_MULT): structure and values in one call;
//   order     mkl_sparse_order: sp2m leaves C's columns unsorted, spkit's contract (and cuSPARSE's
//             output) has them sorted, so a user who needs that pays it;
//   export    mkl_sparse_?_export_csr: C's arrays, as an MKL user receives them;
//   to spkit CSR  the copy into spkit's CSR (64-bit row pointers, exact zeros dropped as every spkit
//             kernel does): reported but not in the total, since an MKL user would not pay it.
// The int64 -> MKL_INT copy of the row pointers and column indices (MKL's LP64 interface) is the
// stage "convert", outside the product time, as the SpMV comparison does it at plan time.
#include "kernels/ref/mkl_layers.hpp"
#include <mkl.h>
#include <mkl_spblas.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit {
namespace {

void check_mkl(sparse_status_t s, const char* call) {
  if (s == SPARSE_STATUS_SUCCESS) return;
  if (s == SPARSE_STATUS_ALLOC_FAILED) throw TooLarge(std::string("MKL ") + call + ": allocation failed", 0);
  throw Error(std::string("MKL ") + call + " failed with status " + std::to_string(static_cast<int>(s)));
}

// An MKL sparse handle that is destroyed however the scope is left.
struct MklHandle {
  sparse_matrix_t h = nullptr;
  MklHandle() = default;
  MklHandle(const MklHandle&) = delete;
  MklHandle& operator=(const MklHandle&) = delete;
  ~MklHandle() {
    if (h) mkl_sparse_destroy(h);
  }
};

// A CSR matrix in MKL's 32-bit index arrays (values copied too: MKL takes non-const pointers).
template <class T>
struct MklCsr {
  MKL_INT rows = 0, cols = 0;
  std::vector<MKL_INT> row_ptr, col_idx;
  std::vector<T> values;
  explicit MklCsr(const Csr<T>& a)
      : rows(static_cast<MKL_INT>(a.rows)), cols(static_cast<MKL_INT>(a.cols)),
        row_ptr(a.row_ptr.begin(), a.row_ptr.end()), col_idx(a.col_idx.begin(), a.col_idx.end()),
        values(a.values) {}
  void create(MklHandle& handle) {
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_create_csr(&handle.h, SPARSE_INDEX_BASE_ZERO, rows, cols, row_ptr.data(), row_ptr.data() + 1,
                                  col_idx.data(), values.data());
    else
      s = mkl_sparse_s_create_csr(&handle.h, SPARSE_INDEX_BASE_ZERO, rows, cols, row_ptr.data(), row_ptr.data() + 1,
                                  col_idx.data(), values.data());
    check_mkl(s, "mkl_sparse_?_create_csr");
  }
};

// C's arrays as mkl_sparse_?_export_csr hands them out (owned by the handle).
template <class T>
struct MklExport {
  sparse_index_base_t base;
  MKL_INT rows = 0, cols = 0;
  MKL_INT *starts = nullptr, *ends = nullptr, *col = nullptr;
  T* val = nullptr;
  explicit MklExport(sparse_matrix_t c_handle) {
    sparse_status_t s;
    if constexpr (sizeof(T) == 8)
      s = mkl_sparse_d_export_csr(c_handle, &base, &rows, &cols, &starts, &ends, &col, &val);
    else
      s = mkl_sparse_s_export_csr(c_handle, &base, &rows, &cols, &starts, &ends, &col, &val);
    check_mkl(s, "mkl_sparse_?_export_csr");
  }
};

// The exported arrays copied into spkit's CSR in two parallel passes (kept entries per row, then
// the copy), dropping exact zeros.
template <class T>
Csr<T> to_spkit_csr(const MklExport<T>& e, int threads) {
  const MKL_INT rows = e.rows, cols = e.cols, b = e.base == SPARSE_INDEX_BASE_ONE ? 1 : 0;
  const MKL_INT *starts = e.starts, *ends = e.ends, *col = e.col;
  const T* val = e.val;
  Csr<T> c;
  c.rows = rows;
  c.cols = cols;
  c.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (MKL_INT i = 0; i < rows; ++i) {
    std::int64_t kept = 0;
    for (MKL_INT p = starts[i] - b; p < ends[i] - b; ++p) kept += val[p] != T(0);
    c.row_ptr[i] = kept;
  }
  const std::int64_t nnz = detail::exclusive_scan_inplace(c.row_ptr);
  c.col_idx.resize(static_cast<std::size_t>(nnz));
  c.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (MKL_INT i = 0; i < rows; ++i) {
    std::int64_t out = c.row_ptr[i];
    for (MKL_INT p = starts[i] - b; p < ends[i] - b; ++p)
      if (val[p] != T(0)) c.col_idx[out] = col[p] - b, c.values[out] = val[p], ++out;
  }
  return c;
}

template <class T, bool kTwoStage>
SpgemmResult<T> mkl_sp2m(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  constexpr std::int64_t limit = std::numeric_limits<MKL_INT>::max();
  if (a.nnz() >= limit || b.nnz() >= limit || a.rows >= limit || a.cols >= limit || b.cols >= limit)
    throw TooLarge("ref.mkl.sp2m uses MKL's 32-bit (LP64) interface; these matrices need 64-bit indices",
                   static_cast<std::uint64_t>(a.nnz() + b.nnz()) * (sizeof(T) + 8));
  if (a.rows == 0 || a.cols == 0 || b.cols == 0)
    throw NotApplicable("MKL sparse handles need at least one row and one column");
  mkl_set_num_threads_local(std::max(1, opts.threads));
  const detail::ScopedOmpThreads team(opts.threads);

  const detail::StageMarks marks(opts);
  const matrix_descr general{SPARSE_MATRIX_TYPE_GENERAL, SPARSE_FILL_MODE_FULL, SPARSE_DIAG_NON_UNIT};
  marks.host("convert", false);
  MklCsr<T> ma(a);
  std::unique_ptr<MklCsr<T>> mb;
  if (&a != &b) mb = std::make_unique<MklCsr<T>>(b);
  marks.host("create");
  MklHandle ha, hb_own, hc;
  ma.create(ha);
  if (mb) mb->create(hb_own);
  const sparse_matrix_t hb = mb ? hb_own.h : ha.h;
  const auto sp2m = [&](sparse_request_t stage, const char* what) {
    check_mkl(mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, general, ha.h, SPARSE_OPERATION_NON_TRANSPOSE, general,
                              hb, stage, &hc.h),
              what);
  };
  if constexpr (kTwoStage) {
    marks.host("count");
    sp2m(SPARSE_STAGE_NNZ_COUNT, "mkl_sparse_sp2m (nnz count)");
    marks.host("finalize");
    sp2m(SPARSE_STAGE_FINALIZE_MULT, "mkl_sparse_sp2m (finalize)");
  } else {
    marks.host("multiply");
    sp2m(SPARSE_STAGE_FULL_MULT, "mkl_sparse_sp2m (full)");
  }
  marks.host("order");
  check_mkl(mkl_sparse_order(hc.h), "mkl_sparse_order");  // sp2m leaves columns unsorted
  marks.host("export");
  const MklExport<T> exported(hc.h);
  marks.host("to spkit CSR", false);
  SpgemmResult<T> r;
  r.c = to_spkit_csr(exported, std::max(1, opts.threads));
  marks.end();
  r.detail = "MKL " + std::to_string(std::max(1, opts.threads)) + (kTwoStage ? " threads, two-stage sp2m" : " threads, one-stage sp2m");
  return r;
}

}  // namespace

void register_ref_mkl_spgemm(SpgemmRegistry& reg) {
  ref::select_mkl_layers();  // before MKL's first call
  const auto add = [&reg](const char* name, const char* description, SpgemmFn<float> f32, SpgemmFn<double> f64) {
    SpgemmKernelInfo k;
    k.name = name;
    k.format = Format::csr;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.comparison = true;
    k.description = description;
    k.run_f32 = std::move(f32);
    k.run_f64 = std::move(f64);
    reg.add(std::move(k));
  };
  add("ref.mkl.sp2m", "Intel MKL's mkl_sparse_sp2m, two stages (count + finalize) with handle creation, sort and export",
      mkl_sp2m<float, true>, mkl_sp2m<double, true>);
  add("ref.mkl.sp2m_1stage",
      "Intel MKL's mkl_sparse_sp2m, one stage (full multiply) with handle creation, sort and export",
      mkl_sp2m<float, false>, mkl_sp2m<double, false>);
}

}  // namespace spkit
