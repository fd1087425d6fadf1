// cpu.bsr.spgemm on the cases that reach each of its paths: 2x2, 3x3 and 4x4 blocks, square and rectangular
// A B, empty block rows of A and of B, a wide block row, A of 4x4 blocks times B of 2x2 ones, whole blocks
// cancelling (dropped), matrices that are not made of full blocks (refused), fem_mesh with three dofs in random
// order with auto picking it; 1 and 3 threads; every C checked against the fp64 reference and the same bits on
// every run and thread count. (The registry-driven tests run it too.)
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {

const SpgemmKernelInfo& bsr() {
  const SpgemmKernelInfo* k = spgemm_registry().find("cpu.bsr.spgemm");
  if (!k) throw Error("cpu.bsr.spgemm is not registered");
  return *k;
}

template <class T>
void check_product(const Csr<double>& a64, const Csr<double>& b64, const std::string& name) {
  const Csr<T> a = csr_cast<T>(a64), b = csr_cast<T>(b64);
  const std::string where = name + (sizeof(T) == 4 ? " (float)" : " (double)");
  SpgemmOptions o;
  o.threads = 1;
  const SpgemmResult<T> one = bsr().fn<T>()(a, b, o);
  o.threads = 3;
  const SpgemmResult<T> three = bsr().fn<T>()(a, b, o);
  const SpgemmCheck chk = check_spgemm(a, b, one.c, sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
  EXPECT_TRUE(chk.ok) << where << ": " << chk.message << " (" << chk.pattern_mismatches << " mismatches)";
  EXPECT_NO_THROW(check_csr(one.c)) << where;
  for (const T v : one.c.values) EXPECT_NE(v, T(0)) << where << ": a stored zero";
  EXPECT_EQ(three.c.row_ptr, one.c.row_ptr) << where;
  EXPECT_EQ(three.c.col_idx, one.c.col_idx) << where;
  ASSERT_EQ(three.c.values.size(), one.c.values.size()) << where;
  EXPECT_EQ(0, one.c.values.empty() ? 0
                                    : std::memcmp(three.c.values.data(), one.c.values.data(),
                                                  one.c.values.size() * sizeof(T)))
      << where << ": 1 and 3 threads differ";
}

void check_both(const Csr<double>& a, const Csr<double>& b, const std::string& name) {
  check_product<float>(a, b, name);
  check_product<double>(a, b, name);
}

TEST(CpuBsrSpgemm, EachBlockSizeSquareAndRectangular) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int b : {2, 3, 4}) {
    const std::int64_t n = 157;
    std::vector<std::int64_t> len(static_cast<std::size_t>(n));
    for (auto& l : len) l = static_cast<std::int64_t>(rng() % 12);
    len[3] = 0, len[50] = 120;  // an empty block row and a wide one
    const Csr<double> a = full_blocks_csr(n, n, b, random_block_pattern(n, len, rng()), rng());
    check_both(a, a, "A*A " + std::to_string(b) + "x" + std::to_string(b));
    std::vector<std::int64_t> la(static_cast<std::size_t>(n)), lb(61);
    for (auto& l : la) l = static_cast<std::int64_t>(rng() % 9);
    for (auto& l : lb) l = static_cast<std::int64_t>(rng() % 6);
    lb[0] = 0, lb[7] = 0;
    check_both(full_blocks_csr(n, 61, b, random_block_pattern(61, la, rng()), rng()),
               full_blocks_csr(61, 23, b, random_block_pattern(23, lb, rng()), rng()),
               "rectangular " + std::to_string(b) + "x" + std::to_string(b));
  }
  // A of 4x4 blocks times B of 2x2 blocks: computed in 2x2 blocks.
  std::vector<std::int64_t> l4(20, 3), l2(40, 4);
  const Csr<double> a4 = full_blocks_csr(20, 20, 4, random_block_pattern(20, l4, rng()), rng());
  const Csr<double> b2 = full_blocks_csr(40, 40, 2, random_block_pattern(40, l2, rng()), rng());
  check_both(a4, b2, "4x4 times 2x2");
  EXPECT_NE(bsr().run_f64(a4, b2, SpgemmOptions{}).detail.find("2x2 blocks"), std::string::npos);
}

TEST(CpuBsrSpgemm, WholeBlocksCancel) {
  std::vector<std::vector<std::int32_t>> pa(10), pb(10, {0, 3, 7});
  for (int I = 0; I < 10; ++I) pa[static_cast<std::size_t>(I)] = {static_cast<std::int32_t>(I % 5), static_cast<std::int32_t>(I % 5 + 5)};
  pa[9] = {2};
  Csr<double> a = full_blocks_csr(10, 10, 3, pa, 11);
  for (auto& v : a.values) v = 1.0;
  Csr<double> m = full_blocks_csr(10, 10, 3, pb, 12);
  for (std::int64_t r = 15; r < 30; ++r)
    for (std::int64_t q = m.row_ptr[r], s = m.row_ptr[r - 15]; q < m.row_ptr[r + 1]; ++q, ++s) m.values[q] = -m.values[s];
  const Csr<double> c = bsr().run_f64(a, m, SpgemmOptions{}).c;
  EXPECT_EQ(c.nnz(), 27) << "only block row 9 of C keeps its three blocks";
  EXPECT_TRUE(check_spgemm(a, m, c, 0x1p-53).ok);
}

TEST(CpuBsrSpgemm, RefusesMatricesThatAreNotBlocked) {
  const Csr<double> full = full_blocks_csr(6, 6, 3, random_block_pattern(6, {2, 3, 1, 0, 4, 2}, 5), 6);
  EXPECT_NO_THROW(bsr().run_f64(full, full, SpgemmOptions{}));
  Csr<double> holed = full;  // the last entry of row 4 dropped
  holed.col_idx.erase(holed.col_idx.begin() + holed.row_ptr[5] - 1);
  holed.values.erase(holed.values.begin() + holed.row_ptr[5] - 1);
  for (std::size_t r = 5; r < holed.row_ptr.size(); ++r) --holed.row_ptr[r];
  EXPECT_THROW(bsr().run_f64(holed, holed, SpgemmOptions{}), NotApplicable);
  const Csr<double> scalar = random_rows(90, 90, std::vector<std::int64_t>(90, 5), 8);
  EXPECT_THROW(bsr().run_f64(scalar, scalar, SpgemmOptions{}), NotApplicable);
  EXPECT_THROW(bsr().run_f64(full, random_rows(18, 18, std::vector<std::int64_t>(18, 3), 4), SpgemmOptions{}),
               NotApplicable);
}

TEST(CpuBsrSpgemm, FemMeshThreeDofsRandomOrderAndAuto) {
  GenOptions g;
  g.family = "fem_mesh";
  g.element_order = 2;
  g.ordering = "random";
  g.seed = fresh_seed();
  g.n = size_for_nnz("fem_mesh", 60'000, g);
  const Csr<double> a = generate(g);
  check_both(a, a, "fem_mesh P2 3 dofs random");
  const SpgemmRun<double> run = spgemm<double>(a, a);  // auto on the CPU
  EXPECT_EQ(run.kernel, "cpu.bsr.spgemm") << run.summary();
  EXPECT_TRUE(check_spgemm(a, a, run.result.c, 0x1p-53).ok);
}

}  // namespace
}  // namespace spkit::test
