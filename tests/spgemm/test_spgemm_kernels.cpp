// The registry-driven SpGEMM test: every registered SpGEMM kernel x precision x thread count on
// edge cases (empty, 1x1, non-square products, sizes not divisible by 8, empty rows, a huge row,
// exact cancellation), generator families and the repository's real matrices, with fresh random
// values each run, against the fp64 reference (check_spgemm). Then the CPU kernels against each
// other. Nothing here names a kernel except where a property of one kernel is tested.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "common/kernel_param_name.hpp"
#include "common/test_matrices.hpp"
#include "spkit/harness/spgemm_timing.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "platform/memory.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {
using namespace spkit::harness;

struct Product {
  std::string name;
  Csr<double> a, b;
};

// Same pattern, values fresh in [-1, 1) (never zero) from `seed`.
Csr<double> fresh_values(Csr<double> m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (auto& v : m.values) {
    v = val(rng);
    if (v == 0.0) v = 0.5;
  }
  return m;
}

// A B where row 0 of A has 1 at columns 0 and 1 and B's rows 0 and 1 are negatives of each other,
// so row 0 of C cancels to exact zeros (which must be dropped); row 1 of A takes 2 * row 0 of B and
// cancels in one column only; the values are powers of two, exact in float and double.
Product cancellation() {
  Product p;
  p.name = "cancellation_3x3";
  p.a = random_csr(3, 3, 1, {{0, 1}, {0, 2}, {2}});
  p.a.values = {1.0, 1.0, 2.0, 1.0, 0.5};
  p.b = random_csr(3, 4, 1, {{0, 2, 3}, {0, 2, 3}, {1, 2}});
  p.b.values = {0.25, -0.5, 4.0, -0.25, 0.5, -4.0, 8.0, 1.0};
  // Row 1 of C: 2*(0.25, -0.5 @2, 4 @3) + (8 @1, 1 @2) = (0.5 @0, 8 @1, 0 @2, 8 @3): column 2 cancels.
  return p;
}

// A wider block-level cancellation: C = [X; X] [Y; -Y] = 0, whole 8x8 output blocks vanish.
Product block_cancellation() {
  Product p;
  p.name = "block_cancellation_20x20";
  std::vector<std::vector<std::int32_t>> rows_a(20), rows_b(20);
  for (int i = 0; i < 20; ++i) {
    rows_a[i] = {static_cast<std::int32_t>(i % 10), static_cast<std::int32_t>(i % 10 + 10)};
    for (int j = 0; j < 20; j += 3) rows_b[i].push_back(j);
  }
  p.a = random_csr(20, 20, 3, rows_a);
  for (auto& v : p.a.values) v = 1.0;
  p.b = random_csr(20, 20, 4, rows_b);
  for (int i = 10; i < 20; ++i)  // B's row i+10 = -row i: A's two entries per row cancel exactly
    for (std::int64_t q = p.b.row_ptr[i], s = p.b.row_ptr[i - 10]; q < p.b.row_ptr[i + 1]; ++q, ++s)
      p.b.values[q] = -p.b.values[s];
  return p;
}

// The products every kernel runs: square matrices times themselves; non-square A (m x k) times a
// random B (k x n); explicit odd shapes; cancellation.
std::vector<Product> products() {
  std::vector<Product> out;
  std::uint64_t seed = 100;
  auto partner = [&](std::int64_t k, std::int64_t n, std::int64_t per_row) {
    return random_rows(k, n, std::vector<std::int64_t>(static_cast<std::size_t>(k), std::min(per_row, n)), ++seed);
  };
  std::vector<NamedMatrix> ms = edge_case_matrices();
  for (auto& m : family_matrices()) ms.push_back(std::move(m));
  for (auto& m : real_matrices(200'000)) ms.push_back(std::move(m));
  for (auto& m : ms) {
    if (m.a.rows == m.a.cols) out.push_back({m.name + " * itself", m.a, m.a});
    out.push_back({m.name + " * random " + std::to_string(m.a.cols) + "x13", m.a, partner(m.a.cols, 13, 4)});
  }
  out.push_back({"13x21 * 21x9", partner(13, 21, 5), partner(21, 9, 3)});
  out.push_back({"1x300 * 300x1", partner(1, 300, 300), partner(300, 1, 1)});
  out.push_back({"300x1 * 1x300", partner(300, 1, 1), partner(1, 300, 300)});
  out.push_back({"0x5 * 5x3", random_csr(0, 5, 1, {}), partner(5, 3, 2)});
  out.push_back({"4x0 * 0x6", random_csr(4, 0, 1, std::vector<std::vector<std::int32_t>>(4)), random_csr(0, 6, 1, {})});
  out.push_back({"9x17 * 17x0", partner(9, 17, 4), random_csr(17, 0, 1, std::vector<std::vector<std::int32_t>>(17))});
  out.push_back(cancellation());
  out.push_back(block_cancellation());
  return out;
}

const std::vector<Product>& all_products() {
  static const auto p = products();
  return p;
}

template <class T>
double unit_roundoff_of(const SpgemmKernelInfo& k) {
  if (k.unit_roundoff > 0) return k.unit_roundoff;
  return sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
}

bool has_stored_zero(const Csr<double>& c) {
  for (double v : c.values)
    if (v == 0.0) return true;
  return false;
}

template <class T>
void check_kernel_on(const SpgemmKernelInfo& k, const Product& p, int threads, bool fresh) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(k.name + " on " + p.name + ", " + (sizeof(T) == 4 ? "float" : "double") + ", threads " +
               std::to_string(threads) + (fresh ? ", values seed " + std::to_string(seed) : ", fixed values"));
  const Csr<T> a = csr_cast<T>(fresh ? fresh_values(p.a, seed) : p.a);
  const Csr<T> b = csr_cast<T>(fresh ? fresh_values(p.b, seed + 1) : p.b);
  SpgemmOptions o;
  o.threads = threads;
  SpgemmTimingOptions timing;
  timing.warmup = 0;
  timing.reps = 2;  // two products in a row: the second must not depend on the first's scratch
  SpgemmTiming<T> timed;
  try {
    timed = time_spgemm(k, a, b, o, timing);
  } catch (const NotApplicable&) {
    return;  // e.g. MKL handles need a row and a column; the runner reports it skipped
  }
  const SpgemmResult<T>& r = timed.result;
  ASSERT_NO_THROW(check_csr(r.c));
  EXPECT_FALSE(has_stored_zero(csr_cast<double>(r.c))) << "exact zeros must be dropped";
  const SpgemmCheck v = check_spgemm(a, b, r.c, unit_roundoff_of<T>(k), k.input_underflow);
  EXPECT_TRUE(v.ok) << v.message << " (" << v.pattern_mismatches << " mismatches, rel error " << v.rel_error << ")";
  // Inputs with exactly representable products (the cancellation cases): C is the reference exactly.
  if (!fresh) {
    const Csr<double> ref = spgemm_reference(a, b);
    EXPECT_EQ(r.c.row_ptr, ref.row_ptr);
    EXPECT_EQ(r.c.col_idx, ref.col_idx);
  }
  EXPECT_FALSE(timed.stages.empty());
  EXPECT_EQ(static_cast<int>(timed.total_ms.size()), timing.reps);
  for (double t : timed.total_ms) EXPECT_GE(t, 0.0);
}

class AllSpgemmKernels : public ::testing::TestWithParam<std::string> {};

TEST_P(AllSpgemmKernels, MatchesFp64Reference) {
  const SpgemmKernelInfo* k = spgemm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  // 1 and an odd count (rows not split evenly); 2 is what AgreeWithEachOther uses.
  const std::vector<int> thread_counts = k->parallel ? std::vector<int>{1, 3} : std::vector<int>{1};
  for (const auto& p : all_products())
    for (int th : thread_counts) {
      const bool exact = p.name.rfind("cancellation", 0) == 0 || p.name.rfind("block_cancellation", 0) == 0;
      if (k->run_f32) check_kernel_on<float>(*k, p, th, !exact);
      if (k->run_f64) check_kernel_on<double>(*k, p, th, !exact);
    }
}

TEST_P(AllSpgemmKernels, RejectsMismatchedShapes) {
  const SpgemmKernelInfo* k = spgemm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  const Csr<double> a = random_rows(4, 3, {1, 1, 1, 1}, 1);
  if (k->run_f64) EXPECT_THROW(k->run_f64(a, a, SpgemmOptions{}), Error);
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : spgemm_registry().all()) names.push_back(k.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, AllSpgemmKernels, ::testing::ValuesIn(kernel_names()), kernel_param_name);

// The CPU kernels of spkit itself (not the comparisons): the dense and hash accumulators sum every
// entry's products in the same order, so they agree bit for bit; the bmSparse kernel sums in block
// order, so it agrees in pattern and within the rounding bound.
TEST(SpgemmCpuKernels, AgreeWithEachOther) {
  std::vector<const SpgemmKernelInfo*> cpu;
  for (const auto& k : spgemm_registry().all())
    if (k.backend == Backend::cpu && !k.comparison) cpu.push_back(&k);
  ASSERT_GE(cpu.size(), 3u) << "expected the dense, hash and bmSparse CPU kernels";
  const SpgemmKernelInfo* dense = spgemm_registry().find("cpu.csr.gustavson_dense");
  const SpgemmKernelInfo* hash = spgemm_registry().find("cpu.csr.gustavson_hash");
  ASSERT_TRUE(dense && hash);
  SpgemmOptions o;
  o.threads = 2;
  for (const auto& p : all_products()) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE(p.name + ", values seed " + std::to_string(seed));
    const Csr<double> a = fresh_values(p.a, seed), b = fresh_values(p.b, seed + 1);
    const Csr<double> cd = dense->run_f64(a, b, o).c, ch = hash->run_f64(a, b, o).c;
    EXPECT_EQ(cd.row_ptr, ch.row_ptr);
    EXPECT_EQ(cd.col_idx, ch.col_idx);
    EXPECT_EQ(cd.values, ch.values);
    for (const SpgemmKernelInfo* k : cpu) {
      Csr<double> c;
      try {
        c = k->run_f64(a, b, o).c;
      } catch (const NotApplicable&) {
        // Only a kernel for one structure may refuse (cpu.dia.spgemm: diagonal-structured A and B;
        // cpu.bsr.spgemm: full dof blocks).
        if (k->format != Format::dia && k->format != Format::bsr) ADD_FAILURE() << k->name << " refused a CSR product";
        continue;
      }
      EXPECT_EQ(c.row_ptr, cd.row_ptr) << k->name;
      EXPECT_EQ(c.col_idx, cd.col_idx) << k->name;
      EXPECT_TRUE(check_spgemm(a, b, c, 0x1p-53).ok) << k->name;
    }
  }
}

TEST(SpgemmCpuKernels, BmsparseCountsTasksAndBlocks) {
  const SpgemmKernelInfo* k = spgemm_registry().find("cpu.bmsparse.blocks");
  ASSERT_NE(k, nullptr);
  // Block diagonal: two dense 8x8 blocks on the diagonal of a 16x16 matrix, plus one at (0, 1).
  std::vector<std::vector<std::int32_t>> rc(16);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      if (i / 8 == j / 8 || (i < 8 && j >= 8)) rc[i].push_back(j);
  const Csr<double> a = fresh_values(random_csr(16, 16, 1, rc), fresh_seed());
  SpgemmTimingOptions timing;
  timing.reps = 1;
  const SpgemmTiming<double> timed = time_spgemm(*k, a, a, SpgemmOptions{}, timing);
  const SpgemmResult<double>& r = timed.result;
  // Tasks: block row 0 has A(0,0), A(0,1); B block row 0 has 2 blocks, row 1 has 1: 2 + 1 = 3;
  // block row 1 has A(1,1) times B(1,1): 1. Output blocks (0,0), (0,1), (1,1).
  EXPECT_EQ(r.tasks, 4);
  EXPECT_EQ(r.out_blocks, 3);
  EXPECT_TRUE(check_spgemm(a, a, r.c, 0x1p-53).ok);
  // Stages: preparation reported apart from the product.
  bool convert_apart = false;
  for (const auto& s : timed.stages) convert_apart = convert_apart || (s.name == "convert" && !s.in_total);
  EXPECT_TRUE(convert_apart);
}

// A B of width 2^31 - 1: the dense accumulator would need ~17 GB per thread and says so with the
// bytes (TooLarge) when that is over half the memory available; the hash accumulator computes it.
TEST(SpgemmCpuKernels, WideProductDenseTooLargeHashWorks) {
  const std::int64_t wide = 2147483647;
  Csr<double> a = random_csr(2, 1, 1, {{0}, {}});
  Csr<double> b;
  b.rows = 1, b.cols = wide;
  b.row_ptr = {0, 2};
  b.col_idx = {5, static_cast<std::int32_t>(wide - 1)};
  b.values = {0.5, -2.0};
  const SpgemmOptions o;
  const Csr<double> c = spgemm_registry().find("cpu.csr.gustavson_hash")->run_f64(a, b, o).c;
  ASSERT_EQ(c.nnz(), 2);
  EXPECT_EQ(c.row_ptr, (std::vector<std::int64_t>{0, 2, 2}));
  EXPECT_EQ(c.col_idx, (std::vector<std::int32_t>{5, static_cast<std::int32_t>(wide - 1)}));
  EXPECT_EQ(c.values, (std::vector<double>{a.values[0] * 0.5, a.values[0] * -2.0}));
  // Values (8 bytes) and a presence bit per column; the kernel allows its scratch half the memory.
  const std::uint64_t dense_needs = static_cast<std::uint64_t>(wide) * 8 + (static_cast<std::uint64_t>(wide) + 63) / 64 * 8;
  if (available_memory_bytes() / 2 > dense_needs)
    GTEST_SKIP() << "this machine has more than " << 2 * dense_needs << " bytes available; TooLarge not reachable";
  try {
    spgemm_registry().find("cpu.csr.gustavson_dense")->run_f64(a, b, o);
    ADD_FAILURE() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_GE(e.bytes_needed(), dense_needs);
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos);
  }
}

}  // namespace
}  // namespace spkit::test
