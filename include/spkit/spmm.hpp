#pragma once
// Sparse matrix times dense block of vectors (SpMM): Y = alpha*A*X + beta*Y, with X of A.cols x k and
// Y of A.rows x k. One registry, as for SpMV and SpGEMM: `spkit spmm`, the tests and `auto` iterate
// spmm_registry(); there is no second list.
//
// Contract of an SpMM plan. The shape of the dense operands is fixed at plan time: k (the number of
// columns of X and Y, >= 1) and the layout both share.
//   row-major:    X(j, c) = X[j * ldx + c] with ldx >= k, Y(i, c) = Y[i * ldy + c] with ldy >= k;
//   column-major: X(j, c) = X[c * ldx + j] with ldx >= A.cols, Y(i, c) = Y[c * ldy + i] with ldy >= A.rows.
// The leading dimensions are passed to run(), so one plan serves views into larger arrays; the entries
// between k (or the rows) and ld are never read nor written. run() throws spkit::Error for a leading
// dimension below its minimum. Everything else is as for SpmvPlan (kernel.hpp): the constructor does all
// planning (its wall time is the plan time), run() writes each entry of Y once, as alpha*(A X) + beta*Y,
// never reading Y when beta == 0 (it may hold NaN); CUDA plans take device pointers, enqueue on `stream`
// and do not synchronize; CPU plans run on the threads fixed at plan time. A kernel that does not apply
// (e.g. a layout it does not handle) throws NotApplicable from its constructor.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"

namespace spkit {

enum class DenseLayout { row_major, col_major };
std::string_view to_string(DenseLayout layout);  // "row", "col"
DenseLayout parse_dense_layout(std::string_view text);  // "row"/"row_major", "col"/"col_major"; throws Error

// The dense operands' shape, fixed at plan time.
struct SpmmShape {
  std::int64_t k = 1;
  DenseLayout layout = DenseLayout::row_major;
};

template <class T>
class SpmmPlan {
 public:
  virtual ~SpmmPlan() = default;
  // Y = alpha*A*X + beta*Y in the layout and k of the plan (see the header comment).
  virtual void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) = 0;
  virtual Backend backend() const = 0;
  // Bytes one product must move: the matrix arrays once, X once (cols x k), Y once (rows x k, twice when
  // beta != 0 is not counted: the harness times beta = 0), padding included, repeated X gathers not.
  virtual std::uint64_t bytes_moved() const = 0;
  virtual std::string detail() const { return {}; }
  // A vendor library's own preprocessing (mkl_sparse_optimize, cusparseSpMM_preprocess), 0 when none.
  virtual double optimize_ms() const { return 0; }
};

// Throws Error when ldx/ldy are below what `shape` needs for a rows x cols matrix (every plan's run()
// calls it first).
void check_spmm_leading_dims(std::int64_t rows, std::int64_t cols, const SpmmShape& shape, std::int64_t ldx,
                             std::int64_t ldy);

template <class T>
using SpmmPlanFactory =
    std::function<std::unique_ptr<SpmmPlan<T>>(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& opts)>;

struct SpmmKernelInfo {
  std::string name;         // dotted: backend.format.variant (cpu.csr.spmm_rowmajor, cuda.cusparse.spmm_alg2, ...)
  Format format = Format::csr;
  Backend backend = Backend::cpu;
  bool parallel = false;    // uses PlanOptions::threads
  bool comparison = false;  // a vendor baseline (cuda.cusparse.*, ref.mkl.*)
  bool row_major = true;    // the layouts it handles; the others throw NotApplicable
  bool col_major = true;
  // Leading dimensions (ldx, ldy and k at plan time) must be a multiple of this many bytes, and X and Y
  // aligned to it; 0: any. cuSPARSE CSR_ALG3 reads X in 16-byte vectors. Planning or running with others
  // throws NotApplicable.
  int ld_multiple_bytes = 0;
  std::string description;  // one line, naming the algorithm or library
  SpmmPlanFactory<float> make_f32;
  SpmmPlanFactory<double> make_f64;

  template <class T>
  const SpmmPlanFactory<T>& factory() const {
    if constexpr (sizeof(T) == 4) return make_f32; else return make_f64;
  }
  bool handles(DenseLayout layout) const { return layout == DenseLayout::row_major ? row_major : col_major; }
};

using SpmmRegistry = RegistryOf<SpmmKernelInfo>;

// The process-wide SpMM registry, filled on first use by src/spmm/registry.cpp.
const SpmmRegistry& spmm_registry();

// Registers a kernel whose plan is a class template Plan<T> constructible as Plan<T>(csr, shape, options).
template <template <class> class Plan>
void add_spmm_kernel(SpmmRegistry& reg, SpmmKernelInfo info) {
  info.make_f32 = [](const Csr<float>& a, const SpmmShape& s, const PlanOptions& o) -> std::unique_ptr<SpmmPlan<float>> {
    return std::make_unique<Plan<float>>(a, s, o);
  };
  info.make_f64 = [](const Csr<double>& a, const SpmmShape& s,
                     const PlanOptions& o) -> std::unique_ptr<SpmmPlan<double>> {
    return std::make_unique<Plan<double>>(a, s, o);
  };
  reg.add(std::move(info));
}

// `--kernel auto` for SpMM: the registered kernel to run for this matrix, k, layout and precision on a
// backend, with one readable line saying why (the rule is in src/spmm/select.cpp). Throws NotApplicable
// when the backend has no SpMM kernel in this build.
struct SpmmSelection {
  std::string kernel;
  std::string reason;
};
SpmmSelection select_spmm_kernel(const MatrixStats& stats, const SpmmShape& shape, Backend backend,
                                 Precision precision);

}  // namespace spkit
