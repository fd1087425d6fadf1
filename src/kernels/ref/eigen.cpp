// Comparison kernel ref.eigen.csr: Eigen's row-major sparse matrix times a dense vector, the
// product Eigen runs in parallel with OpenMP (Eigen::setNbThreads) over rows. The matrix is built
// at plan time; run() is Eigen's product over Eigen::Maps of spkit's x and y: y.noalias() = A * x for
// alpha = 1, beta = 0 (the benchmark's case), else Eigen's scaled product y += alpha * A * x after
// y *= beta (Eigen has no beta of its own).
#include <Eigen/Core>
#include <Eigen/SparseCore>

#include <cstdint>
#include <limits>
#include <string>

#include "spkit/error.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

template <class T>
class EigenCsrPlan final : public CpuSpmvPlan<T> {
  using Matrix = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

 public:
  EigenCsrPlan(const Csr<T>& a, const PlanOptions& opts) : threads_(opts.threads) {
    constexpr std::int64_t limit = std::numeric_limits<int>::max();
    if (a.nnz() >= limit || a.rows >= limit || a.cols >= limit)
      throw TooLarge("ref.eigen.csr stores int indices; this matrix needs 64-bit ones",
                     static_cast<std::uint64_t>(a.nnz()) * (sizeof(T) + 8));
    // Fill the compressed arrays directly: O(nnz), no triplet sort.
    matrix_.resize(a.rows, a.cols);
    matrix_.resizeNonZeros(a.nnz());
    for (std::int64_t i = 0; i <= a.rows; ++i) matrix_.outerIndexPtr()[i] = static_cast<int>(a.row_ptr[i]);
    std::copy(a.col_idx.begin(), a.col_idx.end(), matrix_.innerIndexPtr());
    std::copy(a.values.begin(), a.values.end(), matrix_.valuePtr());
  }

  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    Eigen::setNbThreads(threads_);
    Eigen::Map<const Vector> xv(x, matrix_.cols());
    Eigen::Map<Vector> yv(y, matrix_.rows());
    if (beta == T(0)) {
      yv.noalias() = matrix_ * xv;  // assigns: y is not read
      if (alpha != T(1)) yv *= alpha;
      return;
    }
    if (beta != T(1)) yv *= beta;
    yv.noalias() += alpha * (matrix_ * xv);
  }
  std::uint64_t bytes_moved() const override {
    return static_cast<std::uint64_t>(matrix_.nonZeros()) * (sizeof(T) + sizeof(int)) +
           static_cast<std::uint64_t>(matrix_.rows() + 1) * sizeof(int) +
           static_cast<std::uint64_t>(matrix_.rows() + matrix_.cols()) * sizeof(T);
  }
  std::string detail() const override { return "Eigen " + std::to_string(threads_) + " threads"; }

 private:
  Matrix matrix_;
  int threads_;
};

}  // namespace

void register_ref_eigen_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "ref.eigen.csr";
  k.format = Format::csr;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.comparison = true;
  k.description = "Eigen row-major SparseMatrix * vector (OpenMP over rows)";
  add_kernel<EigenCsrPlan>(reg, std::move(k));
}

}  // namespace spkit
