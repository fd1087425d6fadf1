// Plan::apply_transpose (scatter and cached A^T) and the block apply, on the CPU, against the serial
// double reference: A^T is built here from A's triplets (COO swap, not the plan's transpose), every
// alpha/beta case with a NaN y for beta = 0, edge-case and generated matrices, every CPU kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/test_matrices.hpp"
#include "plan/plan_check.hpp"
#include "plan/transpose_plan.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/coo.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {
namespace {

template <class T>
Csr<T> reference_transpose(const Csr<T>& a) {
  Coo<T> c = csr_to_coo(a);
  std::swap(c.rows, c.cols);
  std::swap(c.row_idx, c.col_idx);
  return coo_to_csr(c);
}

// The transposed product of `plan` checked like check_plan checks the forward one.
template <class T>
void check_transpose(Plan<T>& plan, const Csr<T>& a, const std::string& what) {
  const Csr<T> at = reference_transpose(a);
  for (const Coeffs& c : kCoeffs) {
    const std::uint64_t seed = fresh_seed();
    AxpbyOperands<T> o = axpby_operands(at, T(c.beta), seed);
    std::vector<T> y = o.y0;
    plan.apply_transpose(o.x.data(), y.data(), T(c.alpha), T(c.beta));
    expect_axpby_product(at, o.x, o.y0, T(c.alpha), T(c.beta), y,
                         what + " A^T alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta) +
                             " seed " + std::to_string(seed));
  }
}

Csr<double> awkward_matrix() {  // empty rows, one long row, 97 x 83
  std::vector<std::int64_t> lengths(97);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 7) % 11);
  lengths[13] = 0;
  lengths[40] = 70;
  return random_rows(97, 83, lengths, 9);
}

TEST(PlanTranspose, TransposeCsrMatchesTriplets) {
  for (const NamedMatrix& m : edge_case_matrices()) {
    const Csr<double> t = plan_detail::transpose_csr(m.a);
    check_csr(t);
    const Csr<double> ref = reference_transpose(m.a);
    EXPECT_EQ(t.row_ptr, ref.row_ptr) << m.name;
    EXPECT_EQ(t.col_idx, ref.col_idx) << m.name;
    EXPECT_EQ(t.values, ref.values) << m.name;
  }
}

// Both ways (few products: scatter, many: cached A^T), 1 and several threads (one or several partial
// vectors), every CPU kernel by name and auto, float and double.
template <class T>
void check_every_kernel() {
  const Csr<T> a = csr_cast<T>(awkward_matrix());
  for (std::int64_t expected : {std::int64_t{1}, plan_detail::kTransposeCacheMinProducts}) {
    for (int threads : {1, 3}) {
      PlanSettings s;
      s.threads = threads;
      s.expected_transpose_products = expected;
      Plan<T> automatic(a, s);
      const std::string mode = expected == 1 ? "scatter" : "cached A^T";
      EXPECT_EQ(automatic.transpose_detail().rfind(mode, 0), 0u) << automatic.transpose_detail();
      check_transpose(automatic, a, "auto " + automatic.transpose_detail());
      check_plan(automatic, a, "auto forward with transposes");
      for (const KernelInfo& k : registry().all()) {
        if (k.backend != Backend::cpu) continue;
        s.kernel = k.name;
        try {
          Plan<T> named(a, s);
          check_transpose(named, a, k.name + " " + named.transpose_detail());
        } catch (const NotApplicable&) {
          // a kernel may refuse the matrix itself
        }
      }
      s.kernel = "auto";
    }
  }
}

TEST(PlanTranspose, EveryCpuKernelDouble) { check_every_kernel<double>(); }
TEST(PlanTranspose, EveryCpuKernelFloat) { check_every_kernel<float>(); }

TEST(PlanTranspose, EdgeCasesAndGenerated) {
  std::vector<NamedMatrix> matrices = edge_case_matrices();
  for (NamedMatrix& m : family_matrices()) matrices.push_back(std::move(m));
  for (const NamedMatrix& m : matrices) {
    for (std::int64_t expected : {std::int64_t{2}, std::int64_t{1000}}) {
      PlanSettings s;
      s.threads = 2;
      s.expected_transpose_products = expected;
      Plan<double> plan(m.a, s);
      check_transpose(plan, m.a, m.name + " " + plan.transpose_detail());
    }
  }
}

TEST(PlanTranspose, WithOrdering) {  // the forward plan renumbers; A^T runs in the caller's numbering
  const Csr<double> a = family_matrices().front().a;
  PlanSettings s;
  s.kernel = "cpu.csr.serial";
  s.ordering = "rcm";
  s.expected_transpose_products = 100;
  Plan<double> plan(a, s);
  check_transpose(plan, a, "rcm " + plan.transpose_detail());
}

TEST(PlanTranspose, ErrorsSayWhatToSet) {
  const Csr<double> a = awkward_matrix();
  Plan<double> plan(a);
  std::vector<double> x(a.rows, 1.0), y(a.cols);
  EXPECT_EQ(plan.transpose_detail(), "none");
  try {
    plan.apply_transpose(x.data(), y.data());
    FAIL() << "apply_transpose without expected_transpose_products must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected_transpose_products"), std::string::npos) << e.what();
  }
  PlanSettings s;
  s.expected_transpose_products = -1;
  EXPECT_THROW(Plan<double>(a, s), Error);
  s.expected_transpose_products = 1;
  Plan<double> t(a, s);
  EXPECT_THROW(t.apply_transpose(nullptr, y.data()), Error);
}

// Y = alpha A X + beta Y on row-major blocks with padding (ld > k): each column against the reference,
// the padding untouched, Y's NaN not read with beta = 0.
TEST(PlanBlock, RowMajorColumnsMatchReference) {
  const Csr<double> a = awkward_matrix();
  PlanSettings s;
  s.threads = 2;
  Plan<double> plan(a, s);
  const double pad = -777;
  for (std::int64_t k : {1, 3, 8}) {
    for (const Coeffs& c : kCoeffs) {
      const std::int64_t ldx = k + 2, ldy = k + 1;
      std::vector<std::vector<double>> xs, y0s;
      std::vector<double> x(static_cast<std::size_t>(a.cols * ldx), pad), y(static_cast<std::size_t>(a.rows * ldy), pad);
      for (std::int64_t col = 0; col < k; ++col) {
        AxpbyOperands<double> o = axpby_operands(a, c.beta, fresh_seed());
        for (std::int64_t j = 0; j < a.cols; ++j) x[j * ldx + col] = o.x[j];
        for (std::int64_t i = 0; i < a.rows; ++i) y[i * ldy + col] = o.y0[i];
        xs.push_back(o.x);
        y0s.push_back(o.y0);
      }
      plan.apply(x.data(), ldx, y.data(), ldy, k, c.alpha, c.beta);
      for (std::int64_t col = 0; col < k; ++col) {
        std::vector<double> ycol(static_cast<std::size_t>(a.rows));
        for (std::int64_t i = 0; i < a.rows; ++i) ycol[i] = y[i * ldy + col];
        expect_axpby_product(a, xs[col], y0s[col], c.alpha, c.beta, ycol,
                             "block k " + std::to_string(k) + " column " + std::to_string(col));
      }
      for (std::int64_t i = 0; i < a.rows; ++i)
        for (std::int64_t col = k; col < ldy; ++col) ASSERT_EQ(y[i * ldy + col], pad) << "padding written";
    }
  }
  std::vector<double> x(a.cols), y(a.rows);
  EXPECT_NO_THROW(plan.apply(x.data(), 1, y.data(), 1, 0));  // k = 0: nothing to do
  EXPECT_THROW(plan.apply(x.data(), 1, y.data(), 1, 2), Error);  // ld below k
  EXPECT_THROW(plan.apply(x.data(), 1, y.data(), 1, -1), Error);
}

}  // namespace
}  // namespace spkit::test
