// CUDA BSR kernel (cuda.bsr.group): the block size it detects on fem matrices of 2-4 dofs and on fem_mesh with
// three dofs numbered at random, ragged last block rows and columns, nearly full blocks (explicit zeros),
// empty block rows and one huge block row (every group width), alpha/beta, and the matrices it refuses.
// (The registry-driven tests run it on every test matrix too.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/run_on_host.hpp"
#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

constexpr const char* kBsr = "cuda.bsr.group";

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: cuda.bsr.group compiled but not run"

// Dense b x b blocks at the (block row, block column) pairs of `blocks`, cut to rows x cols (the last block row
// and column may be ragged); `drop` removes every drop-th entry (nearly full blocks).
Csr<double> block_matrix(std::int64_t rows, std::int64_t cols, int b,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& blocks, std::uint64_t seed,
                         int drop = 0) {
  std::vector<std::vector<std::int32_t>> row_columns(static_cast<std::size_t>(rows));
  std::int64_t n = 0;
  for (const auto& [br, bc] : blocks)
    for (std::int64_t i = br * b; i < std::min(rows, (br + 1) * b); ++i)
      for (std::int64_t j = bc * b; j < std::min(cols, (bc + 1) * b); ++j)
        if (drop == 0 || ++n % drop != 0) row_columns[static_cast<std::size_t>(i)].push_back(static_cast<std::int32_t>(j));
  for (auto& r : row_columns) std::sort(r.begin(), r.end());
  return random_csr(rows, cols, seed, row_columns);
}

std::vector<std::pair<std::int64_t, std::int64_t>> tridiagonal_blocks(std::int64_t block_rows, std::int64_t block_cols) {
  std::vector<std::pair<std::int64_t, std::int64_t>> b;
  for (std::int64_t br = 0; br < block_rows; ++br)
    for (std::int64_t bc = br - 1; bc <= br + 1; ++bc)
      if (bc >= 0 && bc < block_cols) b.emplace_back(br, bc);
  return b;
}

// y = alpha A x + beta y for the contract's cases (beta = 0 over a NaN-poisoned y), twice per plan; returns
// the plan's detail().
template <class T>
std::string expect_alpha_beta(const Csr<double>& ad, const std::string& what) {
  const Csr<T> a = csr_cast<T>(ad);
  auto plan = registry().find(kBsr)->factory<T>()(a, PlanOptions{});
  for (const auto& [alpha, beta] : {std::pair<double, double>{1, 0}, {-0.5, 0}, {-0.5, 2}, {0, 1}})
    for (int trial = 0; trial < 2; ++trial) {
      const std::uint64_t seed = fresh_seed();
      const auto [x, y0] = axpby_operands(a, T(beta), seed);
      std::vector<T> y = y0;
      run_on_host(*plan, T(alpha), x, T(beta), y);
      expect_axpby_product(a, x, y0, T(alpha), T(beta), y,
                           what + ", alpha " + std::to_string(alpha) + " beta " + std::to_string(beta) + " seed " +
                               std::to_string(seed));
    }
  return plan->detail();
}

void expect_both(const Csr<double>& a, const std::string& what, const std::string& detail_has) {
  EXPECT_NE(expect_alpha_beta<double>(a, what + " (double)").find(detail_has), std::string::npos) << what;
  EXPECT_NE(expect_alpha_beta<float>(a, what + " (float)").find(detail_has), std::string::npos) << what;
}

TEST(CudaBsrKernel, DetectsTheDofBlockOfFemMatrices) {
  REQUIRE_GPU();
  for (int dof : {2, 3, 4}) {
    GenOptions g;
    g.family = "fem";
    g.n = 9;
    g.dof = dof;
    const std::string b = std::to_string(dof);
    expect_both(generate(g), "fem dof " + b, b + "x" + b + " blocks, fill 1.00");
  }
  for (int order : {1, 2}) {
    GenOptions g;
    g.family = "fem_mesh";
    g.element_order = order;
    g.ordering = "random";
    g.seed = fresh_seed();
    g.n = size_for_nnz("fem_mesh", 80'000, g);
    expect_both(generate(g), "fem_mesh P" + std::to_string(order) + " random", "3x3 blocks, fill 1.00");
  }
}

TEST(CudaBsrKernel, RaggedEdgesAndNearlyFullBlocks) {
  REQUIRE_GPU();
  // 3x3 blocks cut to 301 x 298: the last block row holds one row, the last block column one column.
  expect_both(block_matrix(301, 298, 3, tridiagonal_blocks(101, 100), 5), "ragged 3x3", "3x3 blocks");
  expect_both(block_matrix(64, 1001, 4, tridiagonal_blocks(16, 251), 6), "wide 4x4", "4x4 blocks");
  expect_both(block_matrix(1001, 62, 2, tridiagonal_blocks(501, 31), 7), "tall 2x2", "2x2 blocks");
  // One entry in 12 missing: blocks stored with explicit zeros.
  expect_both(block_matrix(900, 900, 3, tridiagonal_blocks(300, 300), 8, 12), "nearly full 3x3", "3x3 blocks");
}

// Block row 0 dense across 1,000 block columns, block rows 10-19 and the last one empty; and block rows of
// 1-60 blocks, so that the group width (from the mean) meets rows far shorter and far longer than itself.
TEST(CudaBsrKernel, EmptyBlockRowsAndOneHugeBlockRow) {
  REQUIRE_GPU();
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks;
  for (std::int64_t bc = 0; bc < 1000; ++bc) blocks.emplace_back(0, bc);
  for (const auto& p : tridiagonal_blocks(999, 1000))
    if (p.first > 0 && (p.first < 10 || p.first >= 20)) blocks.push_back(p);
  expect_both(block_matrix(3000, 3000, 3, blocks, 9), "huge block row", "3x3 blocks");
  std::vector<std::pair<std::int64_t, std::int64_t>> uneven;
  for (std::int64_t br = 0; br < 777; ++br)
    for (std::int64_t k = 0; k < 1 + br % 60; ++k) uneven.emplace_back(br, (br * 7 + k * 13) % 800);
  std::sort(uneven.begin(), uneven.end());
  uneven.erase(std::unique(uneven.begin(), uneven.end()), uneven.end());
  expect_both(block_matrix(2 * 777, 2 * 800, 2, uneven, 10), "uneven 2x2", "2x2 blocks");
}

TEST(CudaBsrKernel, RefusesMatricesWithoutDenseBlocks) {
  REQUIRE_GPU();
  const Csr<double> scalar = random_rows(500, 500, std::vector<std::int64_t>(500, 7), 11);
  EXPECT_THROW(registry().find(kBsr)->factory<double>()(scalar, PlanOptions{}), NotApplicable);
  const Csr<double> empty = random_rows(30, 30, std::vector<std::int64_t>(30, 0), 12);
  EXPECT_THROW(registry().find(kBsr)->factory<double>()(empty, PlanOptions{}), NotApplicable);
}

}  // namespace
}  // namespace spkit::test
