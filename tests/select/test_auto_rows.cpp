// "auto" in run_spmv (the engine of spkit spmv and spkit bench): one row per precision and thread count,
// labelled auto, running and validating the selector's pick, with the pick and the reason recorded.
#include <gtest/gtest.h>

#include "common/test_matrices.hpp"
#include "spkit/harness/runner.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"

namespace spkit::test {
namespace {

using namespace spkit::harness;

TEST(AutoRows, OneValidatedRowPerPrecisionAndThreadCount) {
  GenOptions g;
  g.family = "powerlaw";
  g.n = 5000;
  const Csr<double> a = generate(g);
  SpmvRunOptions o;
  o.kernels = "auto";
  o.device = DeviceSelect::cpu;
  o.precisions = {Precision::f32, Precision::f64};
  o.threads = {1, 2};
  o.timing.warmup = 1;
  o.timing.reps = 2;
  const auto rows = run_spmv(a, o);
  ASSERT_EQ(rows.size(), 4u);
  for (const SpmvResult& r : rows) {
    EXPECT_EQ(r.kernel, "auto");
    const KernelInfo* k = registry().find(r.picked);
    ASSERT_NE(k, nullptr) << r.picked;
    EXPECT_EQ(k->backend, Backend::cpu);
    EXPECT_EQ(r.status, "ok") << r.note;
    EXPECT_TRUE(r.valid);
    EXPECT_EQ(r.pick_reason.rfind(r.picked + ":", 0), 0u) << r.pick_reason;
    EXPECT_NE(r.note.find("picked " + r.picked), std::string::npos) << r.note;
    EXPECT_GT(r.conversion_ms, 0.0);  // statistics and selection are part of its plan time
    EXPECT_EQ(r.format, std::string(to_string(k->format)));
  }
}

TEST(AutoRows, MixWithGlobsAndNothingElse) {
  const Csr<double> a = random_rows(300, 300, std::vector<std::int64_t>(300, 6), 9);
  SpmvRunOptions o;
  o.kernels = "cpu.csr.serial,auto";
  o.device = DeviceSelect::cpu;
  o.threads = {1};
  o.timing.reps = 2;
  o.add_baselines = false;
  const auto rows = run_spmv(a, o);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kernel, "cpu.csr.serial");
  EXPECT_EQ(rows[1].kernel, "auto");
  // A pattern that matches nothing is still an error, auto or not.
  o.kernels = "cpu.no_such_*";
  EXPECT_THROW(run_spmv(a, o), Error);
}

}  // namespace
}  // namespace spkit::test
