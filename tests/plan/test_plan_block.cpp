// Plan's block apply (Plan::apply with k vectors, row-major) through the SpMM kernel auto picks, against
// the serial double reference column by column: edge-case and generated matrices, float and double,
// k = 1, 3, 16, 33, every alpha/beta case with a NaN Y for beta = 0, ldx and ldy above k (the padding
// must stay as it was) and equal to k, renumbered plans (CPU and CUDA), a plan alternating several k (its
// kept SpMM plans), and a CUDA plan on host pointers (the CUDA cases skip without a device).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/test_matrices.hpp"
#include "plan/plan_check.hpp"
#include "spkit/device.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {
namespace {

constexpr double kPad = -777;

// One block product Y = alpha A X + beta Y0 with fresh random columns, checked column by column.
template <class T>
void check_block(Plan<T>& plan, const Csr<T>& a, std::int64_t k, std::int64_t ldx, std::int64_t ldy, const Coeffs& c,
                 const std::string& what) {
  const std::string where = what + ", k " + std::to_string(k) + ", ldx " + std::to_string(ldx) + ", ldy " +
                            std::to_string(ldy) + ", alpha " + std::to_string(c.alpha) + ", beta " +
                            std::to_string(c.beta);
  std::vector<std::vector<T>> xs, y0s;
  std::vector<T> x(static_cast<std::size_t>(a.cols * ldx), T(kPad)), y(static_cast<std::size_t>(a.rows * ldy), T(kPad));
  for (std::int64_t col = 0; col < k; ++col) {
    AxpbyOperands<T> o = axpby_operands(a, T(c.beta), fresh_seed());
    for (std::int64_t j = 0; j < a.cols; ++j) x[j * ldx + col] = o.x[j];
    for (std::int64_t i = 0; i < a.rows; ++i) y[i * ldy + col] = o.y0[i];
    xs.push_back(std::move(o.x));
    y0s.push_back(std::move(o.y0));
  }
  plan.apply(x.data(), ldx, y.data(), ldy, k, T(c.alpha), T(c.beta));
  std::vector<T> ycol(static_cast<std::size_t>(a.rows));
  for (std::int64_t col = 0; col < k; ++col) {
    for (std::int64_t i = 0; i < a.rows; ++i) ycol[i] = y[i * ldy + col];
    expect_axpby_product(a, xs[col], y0s[col], T(c.alpha), T(c.beta), ycol, where + ", column " + std::to_string(col));
    if (::testing::Test::HasFailure()) return;
  }
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t col = k; col < ldy; ++col) ASSERT_EQ(y[i * ldy + col], T(kPad)) << where << ": padding written";
}

template <class T>
void check_plan_blocks(Plan<T>& plan, const Csr<T>& a, const std::string& what) {
  for (std::int64_t k : {1, 3, 16, 33}) {
    for (const Coeffs& c : kCoeffs) check_block(plan, a, k, k + 3, k + 5, c, what);
    check_block(plan, a, k, k, k, Coeffs{1.5, -0.5}, what);
    if (::testing::Test::HasFailure()) return;
  }
}

template <class T>
void check_matrices_on_cpu() {
  std::vector<NamedMatrix> matrices = edge_case_matrices();
  for (NamedMatrix& m : family_matrices()) matrices.push_back(std::move(m));
  for (const NamedMatrix& m : matrices) {
    const Csr<T> a = csr_cast<T>(m.a);
    PlanSettings s;
    s.threads = 2;
    Plan<T> plan(a, s);
    check_plan_blocks(plan, a, m.name + " (" + plan.kernel() + ")");
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(PlanBlockApply, EveryMatrixKAndCoefficientsOnTheCpu) {
  check_matrices_on_cpu<double>();
  check_matrices_on_cpu<float>();
}

// A plan that keeps its matrix renumbered runs its blocks on P A P^T (rows of X gathered, of Y scattered):
// X and Y stay in the caller's numbering, every alpha/beta case, padded and tight leading dimensions.
void check_renumbered_blocks(Backend backend, const char* kernel) {
  for (const NamedMatrix& m : family_matrices()) {
    if (m.a.rows != m.a.cols) continue;  // orderings are for square matrices
    for (const char* ordering : {"rcm", "hubsort"}) {
      PlanSettings s;
      s.threads = 2;
      s.backend = backend;
      s.kernel = kernel;
      s.ordering = ordering;
      Plan<double> plan(m.a, s);
      ASSERT_EQ(plan.selection().ordering, ordering);
      const std::string what = m.name + " " + ordering + " (" + plan.kernel() + ")";
      for (std::int64_t k : {1, 3, 16}) {
        for (const Coeffs& c : kCoeffs) check_block(plan, m.a, k, k + 1, k + 2, c, what);
        check_block(plan, m.a, k, k, k, Coeffs{2, 0.5}, what);
      }
      const Csr<float> af = csr_cast<float>(m.a);
      Plan<float> planf(af, s);
      check_block(planf, af, 16, 16, 16, Coeffs{-1, 1}, what + ", float");
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(PlanBlockApply, RenumberedPlans) { check_renumbered_blocks(Backend::cpu, "cpu.csr.omp.nnz_balanced"); }

TEST(PlanBlockApply, CudaRenumberedPlans) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << no_gpu_reason();
  check_renumbered_blocks(Backend::cuda, "cuda.csr.scalar");
}

// Blocks of alternating k: the most recent SpMM plans are kept, older ones rebuilt; each product right.
TEST(PlanBlockApply, AlternatingBlockSizes) {
  const NamedMatrix m = family_matrices().front();
  const Csr<float> a = csr_cast<float>(m.a);
  PlanSettings s;
  s.threads = 3;
  Plan<float> plan(a, s);
  for (std::int64_t k : {3, 16, 3, 33, 16, 2, 3, 1, 3})
    check_block(plan, a, k, k + 2, k, Coeffs{-1, 1}, m.name + " alternating");
}

TEST(PlanBlockApply, CudaPlanOnHostPointers) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  for (const NamedMatrix& m : family_matrices()) {
    PlanSettings s;
    s.backend = Backend::cuda;
    Plan<double> plan(m.a, s);
    check_plan_blocks(plan, m.a, m.name + " on the GPU (" + plan.kernel() + ")");
    const Csr<float> af = csr_cast<float>(m.a);
    Plan<float> planf(af, s);
    check_plan_blocks(planf, af, m.name + " on the GPU, float (" + planf.kernel() + ")");
  }
}

}  // namespace
}  // namespace spkit::test
