// Renumbering inside the plan and the measuring selection (PlanSettings::ordering, ::tuning): every CPU
// kernel on P A P^T still computes y in the caller's numbering for every alpha/beta case; "auto" renumbers
// only square, badly numbered matrices with enough products ahead, and says why not otherwise; the tuner
// times the model's candidates, keeps the fastest measured, respects its budget, and model mode times nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "plan/plan_check.hpp"
#include "plan/plan_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {
namespace {

template <class T>
void check_every_cpu_kernel_renumbered() {
  for_every_cpu_kernel<T>({"rcm", "hubsort"}, [](Plan<T>& plan, const Csr<T>& a, const std::string& ordering,
                                                  const std::string& what) {
    EXPECT_EQ(plan.selection().ordering, ordering) << what;
    check_plan(plan, a, what);
  });
}

TEST(PlanOrdering, EveryCpuKernelOnARenumberedMatrixDouble) { check_every_cpu_kernel_renumbered<double>(); }
TEST(PlanOrdering, EveryCpuKernelOnARenumberedMatrixFloat) { check_every_cpu_kernel_renumbered<float>(); }

TEST(PlanOrdering, AutoRenumberedPlanIsCorrectAndCounted) {
  const Csr<double> a = random_mesh();
  PlanSettings s;
  s.ordering = "rcm";
  s.tuning = "model";
  s.expected_products = 1000000;
  Plan<double> renumbered(a, s);
  EXPECT_EQ(renumbered.selection().ordering, "rcm");
  EXPECT_GT(renumbered.selection().reorder_ms, 0.0);
  EXPECT_NE(renumbered.selection().reason.find("ordering rcm"), std::string::npos) << renumbered.selection().reason;
  check_plan(renumbered, a, "auto kernel, rcm");
  s.ordering = "none";
  Plan<double> plain(a, s);
  EXPECT_EQ(plain.selection().ordering, "none");
  if (plain.kernel() == renumbered.kernel())  // the gather and scatter passes are counted
    EXPECT_GT(renumbered.bytes_moved(), plain.bytes_moved());
}

TEST(PlanOrdering, AutoSaysWhyItDoesNotRenumber) {
  PlanSettings s;
  s.tuning = "model";
  s.expected_products = 1000000;
  // Rectangular: no symmetric ordering, said so; a named one is refused.
  const Csr<double> rect = random_rows(40, 23, std::vector<std::int64_t>(40, 3), 5);
  Plan<double> r(rect, s);
  EXPECT_EQ(r.selection().ordering, "none");
  EXPECT_NE(r.selection().ordering_reason.find("rectangular"), std::string::npos) << r.selection().ordering_reason;
  check_plan(r, rect, "rectangular auto");
  s.ordering = "rcm";
  EXPECT_THROW(Plan<double>(rect, s), NotApplicable);
  // Well numbered: nothing computed.
  s.ordering = "auto";
  GenOptions g;
  g.family = "lap2d";
  g.n = 60;
  Plan<double> grid(generate(g), s);
  EXPECT_EQ(grid.selection().ordering, "none");
  EXPECT_EQ(grid.selection().reorder_ms, 0.0);
  EXPECT_NE(grid.selection().ordering_reason.find("well numbered"), std::string::npos);
  // Badly numbered, but one product cannot pay for an ordering.
  s.expected_products = 1;
  Plan<double> once(random_mesh(), s);
  EXPECT_EQ(once.selection().ordering, "none");
  EXPECT_EQ(once.selection().reorder_ms, 0.0);
  EXPECT_NE(once.selection().ordering_reason.find("cannot pay"), std::string::npos) << once.selection().ordering_reason;
}

TEST(PlanTuning, MeasuresTheModelsCandidatesAndKeepsTheFastest) {
  const Csr<double> a = random_mesh();
  PlanSettings s;
  s.threads = 2;
  s.tuning = "measure";
  s.expected_products = 1000000;
  s.tuning_budget_ms = 10000;  // everything gets timed
  Plan<double> plan(a, s);
  const Selection& sel = plan.selection();
  EXPECT_EQ(sel.tuning, "measure");
  ASSERT_GE(sel.measured.size(), 2u);
  // measured[0] is the model's first pick; the kept kernel is the fastest measured.
  PlanSettings model = s;
  model.tuning = "model";
  model.ordering = sel.measured.front().ordering;
  EXPECT_EQ(sel.measured.front().kernel, Plan<double>(a, model).kernel());
  const auto best = std::min_element(sel.measured.begin(), sel.measured.end(), [](const auto& x, const auto& y) {
    return (x.measured_ms > 0 ? x.measured_ms : 1e300) < (y.measured_ms > 0 ? y.measured_ms : 1e300);
  });
  EXPECT_EQ(plan.kernel(), best->kernel);
  EXPECT_EQ(sel.ordering, best->ordering);
  bool both_orderings = false;
  for (const MeasuredCandidate& m : sel.measured) {
    EXPECT_GT(m.measured_ms, 0.0) << m.kernel << " " << m.ordering << ": " << m.note;
    EXPECT_GT(m.predicted_ms, 0.0);
    both_orderings = both_orderings || m.ordering != sel.measured.front().ordering;
  }
  EXPECT_TRUE(both_orderings) << "candidates with and without the ordering";
  EXPECT_GT(sel.tuning_ms, 0.0);
  check_plan(plan, a, "measured " + plan.kernel() + " " + sel.ordering);
}

TEST(PlanTuning, RespectsTheBudgetAndModelModeTimesNothing) {
  const Csr<double> a = random_mesh();
  PlanSettings s;
  s.tuning = "measure";
  s.ordering = "none";
  s.expected_products = 1000000;
  s.tuning_budget_ms = 1e-6;  // only the model's pick, which the plan needs anyway
  Plan<double> tight(a, s);
  const Selection& sel = tight.selection();
  ASSERT_GE(sel.measured.size(), 2u);
  EXPECT_GT(sel.measured[0].measured_ms, 0.0);
  for (std::size_t i = 1; i < sel.measured.size(); ++i) {
    EXPECT_EQ(sel.measured[i].measured_ms, 0.0);
    EXPECT_NE(sel.measured[i].note.find("not timed"), std::string::npos) << sel.measured[i].note;
  }
  EXPECT_EQ(tight.kernel(), sel.measured[0].kernel);
  // The default budget is bounded by the cap.
  s.tuning_budget_ms = 0;
  Plan<double> bounded(a, s);
  EXPECT_GT(bounded.selection().tuning_budget_ms, 0.0);
  EXPECT_LE(bounded.selection().tuning_budget_ms, 2000.0);  // tuning::kTuneBudgetCapMs
  // Model mode, and "auto" below the product threshold, run nothing.
  for (const char* tuning : {"model", "auto"}) {
    s.tuning = tuning;
    s.expected_products = 10;
    Plan<double> model(a, s);
    EXPECT_EQ(model.selection().tuning, "model");
    EXPECT_TRUE(model.selection().measured.empty());
    EXPECT_EQ(model.selection().tuning_ms, 0.0);
  }
}

TEST(PlanTuning, BadSettingsAreRefused) {
  const Csr<double> a = random_mesh();
  PlanSettings s;
  s.ordering = "metis";
  EXPECT_THROW(Plan<double>(a, s), Error);
  s.ordering = "auto";
  s.tuning = "fast";
  EXPECT_THROW(Plan<double>(a, s), Error);
  s.tuning = "measure";
  s.tuning_budget_ms = -1;
  EXPECT_THROW(Plan<double>(a, s), Error);
  s = PlanSettings{};
  s.kernel = "cpu.csr.serial";
  s.ordering = "metis";
  EXPECT_THROW(Plan<double>(a, s), Error);
}

}  // namespace
}  // namespace spkit::test
