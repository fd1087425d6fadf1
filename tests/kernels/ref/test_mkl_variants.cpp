// ref.mkl.sym and ref.mkl.bsr apply where they should (and say NotApplicable elsewhere), so that the
// registry-driven test, which accepts NotApplicable, cannot pass on a kernel that never runs.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

Csr<double> gen(const std::string& family, std::int64_t n, int dof = 3) {
  GenOptions o;
  o.family = family;
  o.n = n;
  o.dof = dof;
  return generate(o);
}

// Plans `name` on `a`, checks y against the reference, returns the plan's detail().
std::string run_valid(const std::string& name, const Csr<double>& a, int threads) {
  const KernelInfo* k = registry().find(name);
  if (!k) return "absent";
  PlanOptions po;
  po.threads = threads;
  auto plan = k->factory<double>()(a, po);
  std::vector<double> x(static_cast<std::size_t>(a.cols));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / (1.0 + static_cast<double>(i % 17));
  std::vector<double> y(static_cast<std::size_t>(a.rows), std::numeric_limits<double>::quiet_NaN());
  plan->run(1, x.data(), 0, y.data(), spkit::Stream{});
  EXPECT_TRUE(validate_spmv(a, x, y.data()).valid) << name;
  EXPECT_GE(plan->optimize_ms(), 0.0);
  return plan->detail();
}

bool not_applicable(const std::string& name, const Csr<double>& a) {
  PlanOptions po;
  po.threads = 1;
  try {
    registry().find(name)->factory<double>()(a, po);
  } catch (const NotApplicable&) {
    return true;
  }
  return false;
}

TEST(MklVariants, SymmetricAndBlockedWhereTheyApply) {
#ifndef SPKIT_HAVE_MKL
  GTEST_SKIP() << "this spkit was built without MKL (pip install mkl-devel, then reconfigure)";
#else
  // fem: symmetric, dense 3x3 blocks in block-aligned rows.
  const Csr<double> fem = gen("fem", 7, 3);
  for (int threads : {1, 2}) {
    EXPECT_NE(run_valid("ref.mkl.sym", fem, threads).find("symmetric"), std::string::npos);
    // 3x3 blocks are exactly full: BSR 3 (fill 1.00) moves the fewest bytes.
    EXPECT_NE(run_valid("ref.mkl.bsr", fem, threads).find("BSR 3x3, 1.00"), std::string::npos);
  }
  // Rows not a multiple of the block: padded, still right.
  const Csr<double> fem2 = gen("fem", 5, 2);
  EXPECT_NE(run_valid("ref.mkl.bsr", fem2, 2).find("BSR 2x2"), std::string::npos);
  // Symmetric without blocks: sym applies, BSR refuses (every block size stores too many zeros).
  const Csr<double> road = gen("road_planar", 60, 1);
  run_valid("ref.mkl.sym", road, 2);
  EXPECT_TRUE(not_applicable("ref.mkl.bsr", road));
  // Not symmetric: sym refuses.
  const Csr<double> rmat = gen("rmat", 4096, 1);
  EXPECT_TRUE(not_applicable("ref.mkl.sym", rmat));
  run_valid("ref.mkl.csr", rmat, 2);
#endif
}

}  // namespace
}  // namespace spkit::test
