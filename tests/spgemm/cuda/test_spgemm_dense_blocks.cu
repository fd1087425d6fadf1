// cuda.csr.dense_blocks on the cases that reach each of its paths: 2x2, 3x3 and 4x4 blocks, square and
// rectangular A B, empty block rows of A and of B, block rows of C whose counts straddle the numeric tiers and
// the symbolic table (rows counted again in the larger one), a block row too wide for one warp (refused, and
// auto's next kernel computes C), exact cancellation of whole blocks, matrices that are not made of full blocks
// (refused), and fem_mesh with three dofs per node in random order; every C checked against the fp64
// reference, strictly sorted, free of zeros, and bit-identical between two runs. (The registry-driven tests
// in test_spgemm_cuda.cu run it too.)
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spgemm/cuda/product_check.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {

const SpgemmKernelInfo& dense_blocks() {
  const SpgemmKernelInfo* k = spgemm_registry().find("cuda.csr.dense_blocks");
  if (!k) throw Error("cuda.csr.dense_blocks is not registered");
  return *k;
}

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: cuda.csr.dense_blocks compiled but not run"

template <class T>
void check_product(const Csr<double>& a64, const Csr<double>& b64, const std::string& name, bool same = false) {
  const SpgemmResult<T> r = check_deterministic_product<T>(dense_blocks(), a64, b64, name, same);
  EXPECT_NE(r.detail.find("blocks"), std::string::npos) << r.detail;
}

void check_both(const Csr<double>& a, const Csr<double>& b, const std::string& name, bool same = false) {
  check_product<float>(a, b, name, same);
  check_product<double>(a, b, name, same);
}

// Square and rectangular products for each block size, with empty block rows in A and in B and block rows
// of 1-40 blocks (rows of C from empty to hundreds of blocks: several numeric tiers).
TEST(CsrDenseBlocks, EachBlockSizeSquareAndRectangular) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int b : {2, 3, 4}) {
    const std::int64_t n = 157;  // block rows: not a multiple of 8 or 32
    std::vector<std::int64_t> len(static_cast<std::size_t>(n));
    for (auto& l : len) l = static_cast<std::int64_t>(rng() % 12);
    len[3] = 0, len[50] = 40, len[51] = 1;
    const Csr<double> a = full_blocks_csr(n, n, b, random_block_pattern(n, len, rng()), rng());
    check_both(a, a, "A*A, " + std::to_string(b) + "x" + std::to_string(b), true);
    // A (n x 61 blocks) times B (61 x 23 blocks), B with empty block rows.
    std::vector<std::int64_t> la(static_cast<std::size_t>(n)), lb(61);
    for (auto& l : la) l = static_cast<std::int64_t>(rng() % 9);
    for (auto& l : lb) l = static_cast<std::int64_t>(rng() % 6);
    lb[0] = 0, lb[7] = 0;
    const Csr<double> ra = full_blocks_csr(n, 61, b, random_block_pattern(61, la, rng()), rng());
    const Csr<double> rb = full_blocks_csr(61, 23, b, random_block_pattern(23, lb, rng()), rng());
    check_both(ra, rb, "rectangular, " + std::to_string(b) + "x" + std::to_string(b));
  }
}

// Block rows of C with about 30 to 2,000 blocks: every numeric tier between, and rows whose products pass
// 3/4 of the 2,048-key symbolic table (counted again in 16,384 keys).
TEST(CsrDenseBlocks, WideBlockRowsAcrossTheTiers) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = 3000;
  std::vector<std::int64_t> la(64), lb(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < la.size(); ++i) la[i] = 1 + static_cast<std::int64_t>(i);  // 1..64 blocks of B each
  // A is 64 x 3000 blocks: block row i reaches i + 1 block rows of B, each of 32 blocks: up to ~2,000 columns.
  for (auto& l : lb) l = 32;
  const Csr<double> a = full_blocks_csr(64, n, 2, random_block_pattern(n, la, rng()), rng());
  const Csr<double> b = full_blocks_csr(n, n, 2, random_block_pattern(n, lb, rng()), rng());
  check_both(a, b, "wide rows, 2x2");
  const Csr<double> a3 = full_blocks_csr(64, n, 3, random_block_pattern(n, la, rng()), rng());
  const Csr<double> b3 = full_blocks_csr(n, n, 3, random_block_pattern(n, lb, rng()), rng());
  check_product<float>(a3, b3, "wide rows, 3x3");
}

// A block row of C of 6,000 blocks is beyond one warp's shared memory in fp64 4x4: the kernel refuses with a
// clear NotApplicable, and auto runs its next kernel and returns C.
TEST(CsrDenseBlocks, TooWideRowIsRefusedAndAutoComputesC) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const std::int64_t n = 6000;
  std::vector<std::int64_t> la(4, 2);
  la[1] = n;  // block row 1 of A reaches every block row of B, each holding its diagonal block: 6,000 blocks
  std::vector<std::vector<std::int32_t>> pb(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) pb[static_cast<std::size_t>(k)] = {static_cast<std::int32_t>(k)};
  const Csr<double> a = full_blocks_csr(4, n, 4, random_block_pattern(n, la, rng()), rng());
  const Csr<double> b = full_blocks_csr(n, n, 4, pb, rng());
  try {
    dense_blocks().run_f64(a, b, SpgemmOptions{});
    ADD_FAILURE() << "expected NotApplicable for a block row of 6,000 4x4 blocks in fp64";
  } catch (const NotApplicable& e) {
    EXPECT_NE(std::string(e.what()).find("blocks"), std::string::npos) << e.what();
  }
  SpgemmRequest req;
  req.backend = Backend::cuda;
  const SpgemmRun<double> run = spgemm<double>(a, b, req);
  EXPECT_NE(run.kernel, "cuda.csr.dense_blocks");
  EXPECT_TRUE(check_spgemm(a, b, run.result.c, 0x1p-53).ok) << run.summary();
}

// C = [X; X] [Y; -Y] in 3x3 blocks: every block of C cancels exactly and none may be stored; the other
// block rows keep theirs.
TEST(CsrDenseBlocks, WholeBlocksCancel) {
  REQUIRE_GPU();
  const int b = 3;
  std::vector<std::vector<std::int32_t>> pa(10), pb(10);
  for (int I = 0; I < 10; ++I) pa[static_cast<std::size_t>(I)] = {static_cast<std::int32_t>(I % 5), static_cast<std::int32_t>(I % 5 + 5)};
  pa[9] = {2};  // no partner: its block row of C stays
  for (int I = 0; I < 10; ++I) pb[static_cast<std::size_t>(I)] = {0, 3, 7};
  Csr<double> a = full_blocks_csr(10, 10, b, pa, 11);
  for (auto& v : a.values) v = 1.0;
  Csr<double> m = full_blocks_csr(10, 10, b, pb, 12);
  for (std::int64_t r = 5 * b; r < 10 * b; ++r)  // block row I + 5 of B = - block row I
    for (std::int64_t q = m.row_ptr[r], s = m.row_ptr[r - 5 * b]; q < m.row_ptr[r + 1]; ++q, ++s)
      m.values[q] = -m.values[s];
  for (const bool f32 : {false, true}) {
    if (f32) {
      const Csr<float> c = dense_blocks().run_f32(csr_cast<float>(a), csr_cast<float>(m), SpgemmOptions{}).c;
      EXPECT_EQ(c.nnz(), 3 * 9) << "float: only block row 9 of C keeps its three blocks";
    } else {
      const Csr<double> c = dense_blocks().run_f64(a, m, SpgemmOptions{}).c;
      EXPECT_EQ(c.nnz(), 3 * 9) << "double: only block row 9 of C keeps its three blocks";
      EXPECT_TRUE(check_spgemm(a, m, c, 0x1p-53).ok);
    }
  }
}

// Not made of full blocks: one entry missing, a block off its alignment, a dimension not divisible.
TEST(CsrDenseBlocks, RefusesMatricesThatAreNotBlocked) {
  REQUIRE_GPU();
  const Csr<double> full = full_blocks_csr(6, 6, 3, random_block_pattern(6, {2, 3, 1, 0, 4, 2}, 5), 6);
  EXPECT_NO_THROW(dense_blocks().run_f64(full, full, SpgemmOptions{}));
  Csr<double> holed = full;  // drop the last entry of row 4
  holed.col_idx.erase(holed.col_idx.begin() + holed.row_ptr[5] - 1);
  holed.values.erase(holed.values.begin() + holed.row_ptr[5] - 1);
  for (std::size_t r = 5; r < holed.row_ptr.size(); ++r) --holed.row_ptr[r];
  EXPECT_THROW(dense_blocks().run_f64(holed, holed, SpgemmOptions{}), NotApplicable);
  Csr<double> shifted = full;  // every column + 1 (blocks straddle the 3-column boundaries), one column more
  shifted.cols += 1;
  for (auto& c : shifted.col_idx) ++c;
  Csr<double> square_b = random_rows(shifted.cols, 6, std::vector<std::int64_t>(19, 2), 9);
  EXPECT_THROW(dense_blocks().run_f64(shifted, square_b, SpgemmOptions{}), NotApplicable);
  const Csr<double> scalar = random_rows(90, 90, std::vector<std::int64_t>(90, 5), 8);
  EXPECT_THROW(dense_blocks().run_f64(scalar, scalar, SpgemmOptions{}), NotApplicable);
  // B not blocked while A is.
  EXPECT_THROW(dense_blocks().run_f64(full, random_rows(18, 18, std::vector<std::int64_t>(18, 3), 4), SpgemmOptions{}),
               NotApplicable);
}

// The generator's vector-valued meshes (three dofs per node, P1 and P2, numbered at random): auto picks this
// kernel, and its C is right.
TEST(CsrDenseBlocks, FemMeshThreeDofsRandomOrder) {
  REQUIRE_GPU();
  for (int order : {1, 2}) {
    GenOptions g;
    g.family = "fem_mesh";
    g.dof = 3;
    g.element_order = order;
    g.ordering = "random";
    g.seed = fresh_seed();
    g.n = size_for_nnz("fem_mesh", 60'000, g);
    const Csr<double> a = generate(g);
    check_both(a, a, "fem_mesh P" + std::to_string(order) + " 3 dofs random", true);
    SpgemmRequest req;
    req.backend = Backend::cuda;
    const SpgemmRun<double> run = spgemm<double>(a, a, req);
    EXPECT_EQ(run.kernel, "cuda.csr.dense_blocks") << run.summary();
  }
}

}  // namespace
}  // namespace spkit::test
