// CPU BSR kernel (cpu.bsr.omp): the block size it detects, ragged last block
// rows and columns, empty block rows, one huge block row, 16-bit delta block
// columns with their 32-bit escapes and plain 32-bit columns, alpha/beta, and
// the matrices it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/axpby_check.hpp"
#include "kernels/cpu/cpu_kernel_check.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

namespace spkit::test {
namespace {

constexpr const char *kBsr = "cpu.bsr.omp";

// Dense b x b blocks at the (block row, block column) pairs of `blocks`, random
// values, cut to rows x cols (entries past either edge dropped, so the last
// block row and column may be ragged).
Csr<double>
block_matrix(std::int64_t rows, std::int64_t cols, int b,
             const std::vector<std::pair<std::int64_t, std::int64_t>> &blocks,
             std::uint64_t seed) {
  std::vector<std::vector<std::int32_t>> row_columns(
      static_cast<std::size_t>(rows));
  for (const auto &[br, bc] : blocks)
    for (std::int64_t i = br * b; i < std::min(rows, (br + 1) * b); ++i)
      for (std::int64_t j = bc * b; j < std::min(cols, (bc + 1) * b); ++j)
        row_columns[static_cast<std::size_t>(i)].push_back(
            static_cast<std::int32_t>(j));
  return random_csr(rows, cols, seed, row_columns);
}

// Block tridiagonal: blocks (br, br - 1), (br, br), (br, br + 1) inside
// block_rows x block_cols.
std::vector<std::pair<std::int64_t, std::int64_t>>
tridiagonal_blocks(std::int64_t block_rows, std::int64_t block_cols) {
  std::vector<std::pair<std::int64_t, std::int64_t>> b;
  for (std::int64_t br = 0; br < block_rows; ++br)
    for (std::int64_t bc = br - 1; bc <= br + 1; ++bc)
      if (bc >= 0 && bc < block_cols)
        b.emplace_back(br, bc);
  return b;
}

std::string detail_of(const Csr<double> &a, int threads) {
  PlanOptions po;
  po.threads = threads;
  std::string detail;
  expect_valid<double>(kBsr, a, po, &detail);
  return detail;
}

// y = alpha A x + beta y for the contract's cases (beta = 0 over a NaN-poisoned
// y), twice per plan.
template <class T> void expect_alpha_beta(const Csr<double> &ad, int threads) {
  const Csr<T> a = csr_cast<T>(ad);
  PlanOptions po;
  po.threads = threads;
  auto plan = registry().find(kBsr)->factory<T>()(a, po);
  for (const auto &[alpha, beta] :
       {std::pair<double, double>{1, 0}, {-0.5, 0}, {-0.5, 2}, {0, 1}})
    for (int trial = 0; trial < 2; ++trial) {
      const std::uint64_t seed = fresh_seed();
      const auto [x, y0] = axpby_operands(a, T(beta), seed);
      std::vector<T> y = y0;
      plan->run(T(alpha), x.data(), T(beta), y.data(), Stream{});
      expect_axpby_product(a, x, y0, T(alpha), T(beta), y,
                           "alpha " + std::to_string(alpha) + " beta " +
                               std::to_string(beta) + " threads " +
                               std::to_string(threads) + " seed " +
                               std::to_string(seed));
    }
}

TEST(CpuBsrKernel, DetectsTheDofBlockOfFemMatrices) {
  for (int dof : {2, 3, 4}) {
    GenOptions g;
    g.family = "fem";
    g.n = 7;
    g.dof = dof;
    const Csr<double> a = generate(g);
    for (int th : {1, 2, 3, 7}) {
      const std::string d = detail_of(a, th);
      const std::string b = std::to_string(dof);
      EXPECT_NE(d.find(b + "x" + b + " blocks, fill 1.00"), std::string::npos)
          << d;
      PlanOptions po;
      po.threads = th;
      expect_valid<float>(kBsr, a, po);
    }
  }
}

TEST(CpuBsrKernel, RaggedLastBlockRowAndColumn) {
  // 3x3 blocks cut to 301 x 298: the last block row holds one row, the last
  // block column one column.
  const Csr<double> a =
      block_matrix(301, 298, 3, tridiagonal_blocks(101, 100), 5);
  for (int th : {1, 2, 3}) {
    EXPECT_NE(detail_of(a, th).find("3x3 blocks"), std::string::npos);
    expect_alpha_beta<float>(a, th);
    expect_alpha_beta<double>(a, th);
  }
  // Rectangular both ways: wide (4x4 blocks, cols not a multiple of 4) and
  // tall.
  expect_alpha_beta<double>(
      block_matrix(64, 1001, 4, tridiagonal_blocks(16, 251), 6), 2);
  expect_alpha_beta<float>(
      block_matrix(1001, 62, 2, tridiagonal_blocks(501, 31), 7), 3);
}

TEST(CpuBsrKernel, EmptyBlockRowsAndOneHugeBlockRow) {
  // Block row 0 dense across all 1000 block columns (3000 columns, more than
  // the rest together: it is one thread's whole share), block rows 10..19 and
  // the last one empty, the rest tridiagonal.
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks;
  for (std::int64_t bc = 0; bc < 1000; ++bc)
    blocks.emplace_back(0, bc);
  for (const auto &p : tridiagonal_blocks(999, 1000))
    if (p.first > 0 && (p.first < 10 || p.first >= 20))
      blocks.push_back(p);
  const Csr<double> a = block_matrix(3000, 3000, 3, blocks, 8);
  for (int th : {1, 2, 3, 16}) {
    expect_alpha_beta<double>(a, th);
    expect_alpha_beta<float>(a, th);
  }
}

TEST(CpuBsrKernel, SixteenBitDeltasEscapesAndThirtyTwoBitBlockColumns) {
  const std::int64_t nb = 40000; // block rows and columns
  auto near = tridiagonal_blocks(nb, nb);
  EXPECT_NE(detail_of(block_matrix(3 * nb, 3 * nb, 3, near, 9), 2)
                .find("16-bit delta block columns (0 escaped)"),
            std::string::npos);
  // Block row nb - 1 starts at block column 0, 39999 block columns left of its
  // diagonal: its first column escapes to 32 bits; block row 0's jump from
  // column 1 to nb - 1 still fits a 16-bit delta.
  near.emplace_back(0, nb - 1);
  near.emplace_back(nb - 1, 0);
  const Csr<double> far = block_matrix(3 * nb, 3 * nb, 3, near, 10);
  EXPECT_NE(detail_of(far, 2).find("16-bit delta block columns (1 escaped)"),
            std::string::npos);
  expect_alpha_beta<float>(far, 3);
  // Every block row ends in the ragged last block column 69999, 65535+ block
  // columns away for the first 4465 block rows: escaped ragged blocks, the
  // decoder must step past them.
  std::vector<std::pair<std::int64_t, std::int64_t>> ragged;
  for (std::int64_t br = 0; br < 1000; ++br)
    ragged.insert(ragged.end(), {{br, br}, {br, br + 1}, {br, 69999}});
  const Csr<double> r = block_matrix(2000, 2 * 70000 - 1, 2, ragged, 11);
  EXPECT_NE(detail_of(r, 3).find("16-bit delta block columns (1000 escaped)"),
            std::string::npos);
  expect_alpha_beta<double>(r, 1);
  expect_alpha_beta<float>(r, 3);
  // One 2x2 block per block row at a random block column of 200000: most
  // escape, so 32-bit columns.
  std::mt19937_64 rng(12);
  std::vector<std::pair<std::int64_t, std::int64_t>> scattered;
  for (std::int64_t br = 0; br < 200000; ++br)
    scattered.emplace_back(br, static_cast<std::int64_t>(rng() % 200000));
  const Csr<double> s = block_matrix(400000, 400000, 2, scattered, 13);
  EXPECT_NE(detail_of(s, 2).find("32-bit block columns"), std::string::npos);
  expect_alpha_beta<float>(s, 2);
}

TEST(CpuBsrKernel, RefusesMatricesWithoutDenseBlocks) {
  PlanOptions po;
  const Csr<double> one = block_matrix(
      1, 1, 1, {{0, 0}}, 11); // 1 x 1: every block is mostly padding
  const Csr<double> scattered =
      random_rows(500, 500, std::vector<std::int64_t>(500, 6), 12);
  for (const Csr<double> *a : {&one, &scattered}) {
    try {
      registry().find(kBsr)->make_f64(*a, po);
      ADD_FAILURE() << "cpu.bsr.omp planned a matrix without dense blocks";
    } catch (const NotApplicable &e) {
      EXPECT_NE(std::string(e.what()).find("entries per non-zero"),
                std::string::npos)
          << e.what();
    }
  }
  Csr<double> empty;
  empty.rows = 4;
  empty.cols = 4;
  empty.row_ptr.assign(5, 0);
  EXPECT_THROW(registry().find(kBsr)->make_f64(empty, po), NotApplicable);
}

TEST(CpuBsrKernel, CostModelReadsTheBlockStatistics) {
  GenOptions g;
  g.family = "fem";
  g.n = 6;
  const MatrixStats fem = compute_stats(generate(g));
  EXPECT_EQ(fem.bsr_block, 3);
  EXPECT_DOUBLE_EQ(fem.bsr_fill, 1.0);
  EXPECT_EQ(fem.bsr_blocks * 9, fem.nnz);
  const KernelInfo *k = registry().find(kBsr);
  ASSERT_TRUE(k->cost);
  PlanOptions po;
  const CostEstimate e = k->cost(fem, Precision::f32, po);
  EXPECT_TRUE(e.applicable) << e.note;
  // fp32: 4 bytes per stored entry plus a 16-bit column per block, below CSR's
  // 8 per non-zero.
  EXPECT_LT(e.bytes, fem.bytes_csr.f32);
  const MatrixStats scattered = compute_stats(
      random_rows(500, 500, std::vector<std::int64_t>(500, 6), 14));
  EXPECT_GT(scattered.bsr_fill, 1.25);
  EXPECT_FALSE(k->cost(scattered, Precision::f64, po).applicable);
}

TEST(CpuBsrKernel, BytesMovedCountsBlocksOnce) {
  // 2 block rows of 3x3 blocks, 3 blocks, 16-bit deltas: 27 values, 3 deltas, 3
  // block-row offsets, x, y.
  const Csr<double> a = block_matrix(6, 6, 3, {{0, 0}, {0, 1}, {1, 1}}, 13);
  PlanOptions po;
  auto p = registry().find(kBsr)->make_f64(a, po);
  EXPECT_EQ(p->bytes_moved(), 27u * 8 + 3u * 2 + 3u * 8 + 12u * 8);
}

} // namespace
} // namespace spkit::test
