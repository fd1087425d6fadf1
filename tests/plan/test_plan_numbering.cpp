// Vectors in the plan's numbering (Plan::to_plan_numbering, from_plan_numbering, apply_in_plan_numbering):
// for orderings none, rcm and hubsort and every CPU kernel (community with the auto kernel), the two passes are inverse permutations that
// move user entry numbering()[i] to plan entry i; a product in the plan's numbering is y' = alpha B x' +
// beta y' for B = P A P^T (checked against the serial double reference on B) and equals P (A x) to
// rounding; rectangular and unrenumbered plans copy; bad calls throw; PlanSettings::
// vectors_in_plan_numbering drops the passes from "auto"'s ranking of orderings only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/test_matrices.hpp"
#include "plan/plan_check.hpp"
#include "plan/plan_matrices.hpp"
#include "plan/permuted_spmv.hpp"
#include "spkit/error.hpp"
#include "spkit/plan.hpp"
#include "spkit/registry.hpp"
#include "spkit/reorder.hpp"

namespace spkit::test {
namespace {

// B = P A P^T as the plan numbers it, from numbering() alone (which must be a permutation).
template <class T>
Csr<T> matrix_in_plan_numbering(const Plan<T>& plan, const Csr<T>& a) {
  if (!plan.renumbered()) return a;
  const std::vector<std::int32_t> old_of_new(plan.numbering().begin(), plan.numbering().end());
  return permute_symmetric(a, Permutation::from_old_of_new(old_of_new));
}

// The passes: plan[i] = user[numbering[i]] exactly, and back to the same bits.
template <class T>
void check_passes(Plan<T>& plan, std::int64_t n, const std::string& what) {
  const auto xd = random_vector(n, fresh_seed());
  const std::vector<T> user(xd.begin(), xd.end());
  std::vector<T> in_plan(static_cast<std::size_t>(n), std::numeric_limits<T>::quiet_NaN()), back(in_plan);
  plan.to_plan_numbering(user.data(), in_plan.data(), n);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t from = plan.renumbered() ? plan.numbering()[i] : i;
    ASSERT_EQ(in_plan[i], user[from]) << what << ": plan entry " << i;
  }
  plan.from_plan_numbering(in_plan.data(), back.data(), n);
  EXPECT_EQ(back, user) << what << ": to_plan_numbering then from_plan_numbering is not the identity";
}

// Every alpha/beta case on fresh vectors, beta = 0 on a NaN y.
template <class T>
void check_products(Plan<T>& plan, const Csr<T>& a, const std::string& what) {
  const Csr<T> b = matrix_in_plan_numbering(plan, a);
  for (const Coeffs& c : kCoeffs) {
    const T alpha = T(c.alpha), beta = T(c.beta);
    const auto [x, y0] = axpby_operands(a, beta, fresh_seed());
    std::vector<T> xp(x.size()), yp0(y0.size());
    plan.to_plan_numbering(x.data(), xp.data(), a.cols);
    if (beta != T(0)) plan.to_plan_numbering(y0.data(), yp0.data(), a.rows);
    else yp0.assign(yp0.size(), std::numeric_limits<T>::quiet_NaN());
    std::vector<T> yp = yp0;
    plan.apply_in_plan_numbering(xp.data(), yp.data(), alpha, beta);
    const std::string tag = what + " alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta);
    expect_axpby_product(b, xp, yp0, alpha, beta, yp, tag + " (in plan numbering)");
    // The same product in the user's numbering, permuted: equal to rounding (both are within the bound).
    std::vector<T> y = y0, y_in_plan(y0.size());
    plan.apply(x.data(), y.data(), alpha, beta);
    plan.to_plan_numbering(y.data(), y_in_plan.data(), a.rows);
    expect_axpby_product(b, xp, yp0, alpha, beta, y_in_plan, tag + " (apply, then permuted)");
  }
}

template <class T>
void check_every_cpu_kernel() {
  for_every_cpu_kernel<T>({"none", "rcm", "hubsort"}, [](Plan<T>& plan, const Csr<T>& a,
                                                          const std::string& ordering, const std::string& what) {
    const bool renumbered = ordering != "none";
    EXPECT_EQ(plan.renumbered(), renumbered) << what;
    EXPECT_EQ(plan.numbering().size(), renumbered ? static_cast<std::size_t>(a.rows) : 0u) << what;
    check_passes(plan, a.rows, what);
    check_products(plan, a, what);
  });
}

TEST(PlanNumbering, EveryCpuKernelAndOrderingDouble) { check_every_cpu_kernel<double>(); }
TEST(PlanNumbering, EveryCpuKernelAndOrderingFloat) { check_every_cpu_kernel<float>(); }

TEST(PlanNumbering, AutoKernelMovesFewerBytesInPlanNumbering) {
  const Csr<double> a = random_mesh();
  PlanSettings s;
  s.tuning = "model";
  s.expected_products = 1000000;
  for (const char* ordering : {"none", "rcm", "hubsort", "community"}) {
    s.ordering = ordering;
    Plan<double> plan(a, s);
    check_passes(plan, a.rows, std::string("auto ") + ordering);
    check_products(plan, a, std::string("auto ") + ordering);
    if (plan.renumbered()) {  // the gather and scatter are the difference
      EXPECT_EQ(plan.bytes_moved() - plan.bytes_moved_in_plan_numbering(),
                static_cast<std::uint64_t>(a.rows) * (4 * sizeof(double) + 2 * sizeof(std::int32_t)));
    } else {
      EXPECT_EQ(plan.bytes_moved(), plan.bytes_moved_in_plan_numbering());
    }
  }
}

TEST(PlanNumbering, RectangularPlansAreNotRenumberedAndCopy) {
  const Csr<double> rect = random_rows(40, 23, std::vector<std::int64_t>(40, 3), 5);
  PlanSettings s;
  s.threads = 2;
  s.expected_products = 1000000;
  s.vectors_in_plan_numbering = true;
  Plan<double> plan(rect, s);
  EXPECT_FALSE(plan.renumbered());
  EXPECT_TRUE(plan.numbering().empty());
  check_passes(plan, rect.cols, "rectangular x");
  check_passes(plan, rect.rows, "rectangular y");
  check_products(plan, rect, "rectangular");
  // Exactly apply, bit for bit.
  const auto xd = random_vector(rect.cols, fresh_seed());
  const std::vector<double> x(xd.begin(), xd.end());
  std::vector<double> y1(rect.rows), y2(rect.rows);
  plan.apply(x.data(), y1.data(), 2.0, 0.0);
  plan.apply_in_plan_numbering(x.data(), y2.data(), 2.0, 0.0);
  EXPECT_EQ(y1, y2);
}

// The scatter reads the inverse permutation: a plan made from a Permutation that holds only old_of_new
// computes it, and the product is still A x in the caller's numbering (every beta case).
TEST(PlanNumbering, PermutedPlanFromOldOfNewAlone) {
  const Csr<double> a = random_mesh(6);
  std::vector<std::int32_t> old_of_new(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i) old_of_new[i] = static_cast<std::int32_t>((i * 7 + 3) % a.rows);
  const Permutation full = Permutation::from_old_of_new(old_of_new);
  ASSERT_EQ(full.new_of_old.size(), old_of_new.size());  // 7 and the row count are coprime: a permutation
  Permutation bare;
  bare.old_of_new = old_of_new;
  EXPECT_EQ(plan_detail::inverse_of(bare), full.new_of_old);
  const KernelInfo* k = registry().find("cpu.csr.omp.nnz_balanced");
  ASSERT_NE(k, nullptr);
  PlanOptions o;
  o.threads = 2;
  auto plan = plan_detail::make_permuted_plan<double>(k->factory<double>()(permute_symmetric(a, full), o), bare,
                                                      Ordering::rcm, 2, 0);
  for (const double beta : {0.0, 0.5}) {
    const auto [x, y0] = axpby_operands(a, beta, fresh_seed());
    std::vector<double> y = y0;
    if (beta == 0.0) std::fill(y.begin(), y.end(), std::numeric_limits<double>::quiet_NaN());
    plan->run(1.5, x.data(), beta, y.data(), Stream{});
    expect_axpby_product(a, x, y0, 1.5, beta, y, "permuted plan from old_of_new alone, beta " + std::to_string(beta));
  }
}

TEST(PlanNumbering, BadCallsThrow) {
  const Csr<double> a = random_mesh(4);
  PlanSettings s;
  s.ordering = "rcm";
  Plan<double> plan(a, s);
  ASSERT_TRUE(plan.renumbered());
  std::vector<double> u(a.rows, 1.0), v(a.rows);
  EXPECT_THROW(plan.to_plan_numbering(u.data(), v.data(), a.rows - 1), Error);  // neither rows nor cols
  EXPECT_THROW(plan.to_plan_numbering(u.data(), u.data(), a.rows), Error);      // in place
  EXPECT_THROW(plan.from_plan_numbering(u.data(), u.data() + 1, a.rows - 1), Error);
  EXPECT_THROW(plan.to_plan_numbering(nullptr, v.data(), a.rows), Error);
  EXPECT_THROW(plan.apply_in_plan_numbering(nullptr, v.data()), Error);
  EXPECT_THROW(plan.apply_in_plan_numbering(u.data(), nullptr), Error);
  // A 1x1 and an empty matrix: the calls work on what there is.
  for (std::int64_t n : {1, 0}) {
    Csr<double> tiny;
    tiny.rows = tiny.cols = n;
    tiny.row_ptr.assign(static_cast<std::size_t>(n + 1), 0);
    if (n == 1) tiny.row_ptr[1] = 1, tiny.col_idx = {0}, tiny.values = {3.0};
    Plan<double> p(tiny, s);
    double x = 2.0, xp = 0, y = 0;
    p.to_plan_numbering(&x, &xp, n);
    p.apply_in_plan_numbering(&xp, &y);
    if (n == 1) EXPECT_EQ(y, 6.0);
  }
}

TEST(PlanNumbering, TunerRanksOrderingsWithoutThePassesWhenAsked) {
  const Csr<double> a = random_mesh();
  PlanSettings s;
  s.threads = 2;
  s.ordering = "rcm";
  s.tuning = "model";
  s.expected_products = 1000000;
  Plan<double> with_passes(a, s);
  s.vectors_in_plan_numbering = true;
  Plan<double> without(a, s);
  EXPECT_NE(without.selection().reason.find("no gather, no scatter"), std::string::npos) << without.selection().reason;
  EXPECT_EQ(with_passes.selection().reason.find("no gather, no scatter"), std::string::npos);
  check_products(without, a, "model, vectors in plan numbering");

  // Measuring: the renumbered candidates are predicted (and timed) without the passes.
  s.ordering = "auto";
  s.tuning = "measure";
  s.tuning_budget_ms = 10000;
  s.vectors_in_plan_numbering = false;
  Plan<double> measured_with(a, s);
  s.vectors_in_plan_numbering = true;
  Plan<double> measured_without(a, s);
  auto predicted = [](const Selection& sel, const std::string& kernel, const std::string& ordering) {
    for (const MeasuredCandidate& m : sel.measured)
      if (m.kernel == kernel && m.ordering == ordering) return m.predicted_ms;
    return -1.0;
  };
  int compared = 0;
  for (const MeasuredCandidate& m : measured_without.selection().measured) {
    EXPECT_GT(m.measured_ms, 0.0) << m.kernel << " " << m.ordering << ": " << m.note;
    const double before = predicted(measured_with.selection(), m.kernel, m.ordering);
    if (before < 0) continue;
    if (m.ordering == "none") EXPECT_DOUBLE_EQ(m.predicted_ms, before) << m.kernel;
    else EXPECT_LT(m.predicted_ms, before) << m.kernel << " " << m.ordering;
    compared += m.ordering != "none";
  }
  EXPECT_GT(compared, 0) << "no renumbered candidate in both tunings";
  check_products(measured_without, a, "measured, vectors in plan numbering");
  check_plan(measured_without, a, "measured, vectors in plan numbering, apply");
}

}  // namespace
}  // namespace spkit::test
