// The SpGEMM section of the bench: every generated family gets a product, on a smaller instance of the
// family when the suite's own A A is over the products budget.
#include <gtest/gtest.h>

#include "spkit/gen.hpp"
#include "spkit/harness/bench_spgemm.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::harness {
namespace {

SuiteMatrix generated_matrix(const std::string& family, std::int64_t n) {
  SuiteMatrix m;
  m.name = family;
  m.family = family;
  m.generated = true;
  m.gen.family = family;
  m.gen.n = n;
  m.gen.seed = 3;
  return m;
}

TEST(BenchSpgemm, OverBudgetFamiliesGetASmallerInstanceWithinTheBudget) {
  for (const char* family : {"rmat", "powerlaw", "fem_mesh", "lap3d"}) {
    SuiteMatrix sm = generated_matrix(family, size_for_nnz(family, 200'000));
    const Csr<double> a = generate(sm.gen);
    const std::int64_t products = spgemm_intermediate_products(a, a);
    SpgemmBenchOptions opts;
    opts.max_products = products / 10;
    Csr<double> smaller;
    std::string source;
    ASSERT_TRUE(spgemm_smaller_instance(sm, a, opts, smaller, source)) << family;
    EXPECT_LT(smaller.rows, a.rows) << family;
    EXPECT_LE(spgemm_intermediate_products(smaller, smaller), opts.max_products) << family;
    EXPECT_NE(source.find(std::string("generated: ") + family), std::string::npos) << source;
    // The same family and options: a generator run with the shrunk n gives the same matrix.
    GenOptions g = sm.gen;
    g.n = std::stoll(source.substr(source.find(" n=") + 3));
    const Csr<double> again = generate(g);
    EXPECT_EQ(again.row_ptr, smaller.row_ptr) << family;
    EXPECT_EQ(again.col_idx, smaller.col_idx) << family;
  }
}

TEST(BenchSpgemm, MatricesThatFitAndFilesKeepTheirOwnProduct) {
  SuiteMatrix sm = generated_matrix("lap2d", 40);
  const Csr<double> a = generate(sm.gen);
  SpgemmBenchOptions opts;
  opts.max_products = spgemm_intermediate_products(a, a);
  Csr<double> smaller;
  std::string source;
  EXPECT_FALSE(spgemm_smaller_instance(sm, a, opts, smaller, source));
  EXPECT_TRUE(source.empty());
  // A headline matrix is sized for SpMV: it gets a smaller instance even when it would fit.
  sm.headline = true;
  EXPECT_TRUE(spgemm_smaller_instance(sm, a, opts, smaller, source));
  // A file cannot be regenerated smaller.
  SuiteMatrix file = sm;
  file.generated = false;
  file.headline = false;
  opts.max_products = 1;
  source.clear();
  EXPECT_FALSE(spgemm_smaller_instance(file, a, opts, smaller, source));
}

}  // namespace
}  // namespace spkit::harness
