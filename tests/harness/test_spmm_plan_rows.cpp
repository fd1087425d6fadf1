// `spkit spmm --ordering`: the auto rows time spkit::Plan's block apply (the plan renumbers as told, gathers
// X's rows and scatters Y's in every product) and are validated like every other row; column-major cells
// are skipped with a reason, and --ordering none keeps the SpMM pick on A as given.
#include <gtest/gtest.h>

#include "common/test_matrices.hpp"
#include "spkit/gen.hpp"
#include "spkit/harness/spmm_runner.hpp"

namespace spkit::test {
namespace {

harness::SpmmRunOptions plan_rows(const std::string& ordering) {
  harness::SpmmRunOptions o;
  o.kernels = "auto";
  o.device = harness::DeviceSelect::cpu;
  o.precisions = {Precision::f32, Precision::f64};
  o.ks = {1, 4, 9};
  o.layouts = {DenseLayout::row_major, DenseLayout::col_major};
  o.threads = {2};
  o.timing.warmup = 0;  // the runner still warms a Plan up once (its SpMM kernel is built on the first block)
  o.timing.reps = 2;
  o.ordering = ordering;
  o.expected_products = 100;  // auto decides from its model, without timing candidates
  return o;
}

TEST(SpmmPlanRows, RenumberedPlansAreValidatedInTheCallersNumbering) {
  GenOptions g;
  g.family = "fem_mesh";
  g.ordering = "random";  // 3 dof per node: ~40 entries per row, enough for the row passes to pay
  g.n = size_for_nnz("fem_mesh", 60000, g);
  const Csr<double> a = generate(g);
  for (const char* ordering : {"rcm", "hubsort", "auto"}) {
    SCOPED_TRACE(ordering);
    const auto rows = harness::run_spmm(a, plan_rows(ordering));
    ASSERT_EQ(rows.size(), 2u * 3u * 2u);
    for (const auto& r : rows) {
      SCOPED_TRACE(r.layout + " k " + std::to_string(r.k) + " " + r.precision);
      if (r.layout == "col") {
        EXPECT_EQ(r.status, "skipped");
        EXPECT_NE(r.note.find("row-major"), std::string::npos) << r.note;
        continue;
      }
      EXPECT_EQ(r.status, "ok") << r.note;
      EXPECT_TRUE(r.valid);
      EXPECT_NE(r.note.find("Plan::apply"), std::string::npos) << r.note;
      if (std::string(ordering) != "auto") {
        EXPECT_EQ(r.ordering, ordering);
        if (r.k > 1) EXPECT_NE(r.note.find("on P A P^T"), std::string::npos) << r.note;
      }
      if (r.k > 1) EXPECT_FALSE(r.picked.empty()) << "the SpMM kernel the plan ran";
    }
  }
}

TEST(SpmmPlanRows, ShortRowsKeepTheBlockOnAAsGiven) {
  const Csr<double> a = random_rows(300, 300, std::vector<std::int64_t>(300, 4), 5);
  auto o = plan_rows("rcm");
  o.layouts = {DenseLayout::row_major};
  const auto rows = harness::run_spmm(a, o);
  ASSERT_EQ(rows.size(), 2u * 3u);
  for (const auto& r : rows) {
    EXPECT_EQ(r.status, "ok") << r.note;
    if (r.k > 1) EXPECT_NE(r.note.find("on A as given"), std::string::npos) << r.note;
  }
}

TEST(SpmmPlanRows, OrderingNoneKeepsTheSpmmPick) {
  const Csr<double> a = random_rows(200, 200, std::vector<std::int64_t>(200, 5), 3);
  const auto rows = harness::run_spmm(a, plan_rows("none"));
  for (const auto& r : rows) {
    EXPECT_EQ(r.status, "ok") << r.note;
    EXPECT_TRUE(r.ordering.empty());
    EXPECT_EQ(r.note.find("Plan::apply"), std::string::npos) << r.note;
  }
}

}  // namespace
}  // namespace spkit::test
