// spgemm(), the product as a user asks for it: auto's candidates and their fallback when a kernel refuses,
// memory-bounded row batches under a memory cap (SpgemmOptions::memory_limit, SPKIT_DEVICE_MEMORY_LIMIT),
// and the refusals before any work. Every C is checked against the fp64 reference on fresh values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/stats.hpp"

namespace spkit::test {
namespace {

template <class T>
void expect_valid(const Csr<T>& a, const Csr<T>& b, const Csr<T>& c) {
  const SpgemmCheck v = check_spgemm(a, b, c, sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
  EXPECT_TRUE(v.ok) << v.message;
}

// A kernel that refuses every product the way real ones do, counting its calls.
struct Refuser {
  int calls = 0;
  SpgemmKernelInfo info(const std::string& name, int kind) {
    SpgemmKernelInfo k;
    k.name = name;
    k.backend = Backend::cpu;
    k.run_f64 = [this, kind](const Csr<double>&, const Csr<double>&, const SpgemmOptions&) -> SpgemmResult<double> {
      ++calls;
      if (kind == 0) throw NotApplicable("refuses on purpose");
      if (kind == 1) throw TooLarge("needs more memory on purpose", 12345);
      if (kind == 2) throw DeviceError("cusparseSpGEMM_compute", "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES");
      throw Error("a real failure");
    };
    return k;
  }
};

// A registry whose auto candidates on the CPU (dense Gustavson first on a block-poor matrix) refuse in
// one of the ways `kind` names; the hash Gustavson is the real kernel.
SpgemmRegistry refusing_registry(Refuser& r, int kind) {
  SpgemmRegistry reg;
  reg.add(r.info("cpu.csr.gustavson_dense", kind));
  reg.add(*spgemm_registry().find("cpu.csr.gustavson_hash"));
  reg.add(*spgemm_registry().find("cpu.bmsparse.blocks"));
  return reg;
}

Csr<double> block_poor(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  for (auto& l : lengths) l = static_cast<std::int64_t>(rng() % 9);  // 0..8: empty rows included
  lengths[static_cast<std::size_t>(n / 2)] = n / 2;                   // one huge row
  return random_rows(n, n, lengths, seed);
}

TEST(SpgemmRun, AutoPicksTheSelectorsFirstCandidate) {
  const std::uint64_t seed = fresh_seed();
  const Csr<double> a = block_poor(301, seed);
  const SpgemmRun<double> run = spgemm(a, a);
  const auto first = spgemm_candidates(spgemm_selector_stats(a), a.cols, Backend::cpu, Precision::f64).front();
  EXPECT_EQ(run.kernel, first.kernel) << "seed " << seed;
  EXPECT_EQ(run.reason, first.reason);
  EXPECT_TRUE(run.refused.empty());
  EXPECT_EQ(run.plan.batches(), 1);
  expect_valid(a, a, run.result.c);
  EXPECT_NE(run.summary().find(run.kernel), std::string::npos);
}

TEST(SpgemmRun, SelectorStatsMatchComputeStats) {
  for (const auto& m : family_matrices()) {
    const MatrixStats full = compute_stats(m.a);
    const MatrixStats light = spgemm_selector_stats(m.a);
    EXPECT_NEAR(light.bm_nnz_per_block, full.bm_nnz_per_block, 1e-9) << m.name;
    EXPECT_NEAR(light.row_nnz_mean, full.row_nnz_mean, 1e-9) << m.name;
    EXPECT_EQ(light.bm_blocks, full.bm_blocks) << m.name;
    EXPECT_EQ(light.row_nnz_max, full.row_nnz_max) << m.name;
  }
}

TEST(SpgemmRun, CandidatesAreDistinctAndRegistered) {
  for (const auto& m : family_matrices())
    for (Backend be : {Backend::cpu, Backend::cuda}) {
      if (be == Backend::cuda && !spgemm_registry().find("cuda.csr.hash")) continue;
      const auto c = spgemm_candidates(spgemm_selector_stats(m.a), m.a.cols, be, Precision::f64);
      ASSERT_FALSE(c.empty());
      for (std::size_t i = 0; i < c.size(); ++i) {
        EXPECT_NE(spgemm_registry().find(c[i].kernel), nullptr) << c[i].kernel;
        EXPECT_FALSE(c[i].reason.empty()) << c[i].kernel;
        for (std::size_t j = 0; j < i; ++j) EXPECT_NE(c[i].kernel, c[j].kernel);
      }
    }
}

// The GPU rule on the statistics of issue 28's matrices (2M non-zeros; fem_mesh 5M): its first choice,
// and cusparseSpGEMM's memory-bounded algorithm and a spkit kernel among the fallbacks (auto never fails),
// the binned kernel first after cusparseSpGEMM.
TEST(SpgemmRun, GpuRuleOnMeasuredFamilies) {
  if (!spgemm_registry().find("cuda.csr.binned")) GTEST_SKIP() << "built without CUDA: no GPU SpGEMM kernels";
  const auto stats = [](double fill, double mean, std::int64_t longest) {
    MatrixStats s;
    s.rows = 200'000, s.cols = 200'000, s.nnz = static_cast<std::int64_t>(mean * 200'000);
    s.bm_nnz_per_block = fill, s.row_nnz_mean = mean, s.row_nnz_max = longest;
    return s;
  };
  const auto full_blocks = [](MatrixStats s, int b) {  // every row made of full b x b blocks
    s.bsr_block = b, s.bsr_fill = 1.0;
    return s;
  };
  const struct {
    const char* family;
    MatrixStats s;
    const char* first;
  } cases[] = {{"banded", stats(29.3, 11.0, 11), "cuda.bmsparse.tc_fp64"},
               {"lap3d27", stats(8.6, 26.2, 27), "cuda.bmsparse.tc_fp64"},
               {"geometric", stats(8.8, 9.0, 26), "cuda.cusparse.spgemm"},
               {"road_planar", stats(1.1, 2.8, 4), "cuda.csr.binned"},
               // Measured 2026-11-27 (H100), short rows merged: binned 1.53 / 1.51x cuSPARSE's best (fp64 /
               // fp32), csr.hash 1.15 / 0.93x.
               {"road_planar random", stats(1.4, 3.3, 5), "cuda.csr.binned"},
               // cusparseSpGEMM 1.11 / 0.92 ms, binned 1.27 / 1.17 ms (fp64 / fp32).
               {"geometric random", stats(1.1, 9.0, 26), "cuda.cusparse.spgemm"},
               // binned 1.18 / 1.19x cuSPARSE's best.
               {"random", stats(1.0, 8.0, 8), "cuda.csr.binned"},
               // Short uneven rows (a star-like graph): the hash kernel's thread rows.
               {"short uneven rows", stats(1.0, 3.0, 40), "cuda.csr.hash"},
               {"fem_mesh P1 random", stats(6.0, 42.9, 81), "cuda.csr.binned"},
               // One dof per node, 5M non-zeros (H100): binned 2.36 / 2.00x cuSPARSE's best (P1), 1.73 /
               // 2.32x (P2, longest row 4.5x the mean); three dofs, P2: binned 1.18 / 1.15x (H200, compact
               // tables).
               {"fem_mesh P1 dof 1 random", stats(1.1, 14.7, 27), "cuda.csr.binned"},
               {"fem_mesh P2 dof 1 random", stats(1.0, 27.8, 125), "cuda.csr.binned"},
               {"fem_mesh P2 dof 3 random", stats(5.9, 80.6, 375), "cuda.csr.binned"},
               // The same meshes seen as 3x3 blocks: one hash key per block of C.
               {"fem_mesh P2 dof 3 random, 3x3 blocks", full_blocks(stats(5.9, 80.6, 375), 3), "cuda.csr.dense_blocks"},
               {"fem_mesh P1 dof 3 random, 3x3 blocks", full_blocks(stats(6.0, 42.9, 81), 3), "cuda.csr.dense_blocks"},
               // Full 8x8 tiles too (the grid-numbered 3-dof fem): blocks ahead of bmSparse (H200: 0.57 against
               // 1.03 ms in fp64).
               {"fem 3-dof grid, 3x3 blocks", full_blocks(stats(20.0, 21.0, 21), 3), "cuda.csr.dense_blocks"},
               {"powerlaw", stats(1.1, 8.0, 16'000), "cuda.cusparse.spgemm"},
               // binned 2.55 / 1.79x cuSPARSE's best (its hub row, 5.9 % of A, expanded and sorted).
               {"circuit", stats(3.3, 10.0, 117'647), "cuda.csr.binned"},
               {"rmat", stats(1.0, 15.0, 10'013), "cuda.cusparse.spgemm"}};
  for (const auto& c : cases) {
    if (!spgemm_registry().find(c.first)) continue;  // e.g. no tc_fp64 in this build
    const auto got = spgemm_candidates(c.s, c.s.cols, Backend::cuda, Precision::f64);
    EXPECT_EQ(got.front().kernel, c.first) << c.family << ": " << got.front().reason;
    bool alg3 = false, ours = false;
    for (const auto& k : got) {
      alg3 = alg3 || k.kernel == "cuda.cusparse.spgemm_alg3";
      ours = ours || k.kernel == "cuda.csr.binned";
    }
    EXPECT_TRUE(ours) << c.family;
    if (spgemm_registry().find("cuda.cusparse.spgemm_alg3")) EXPECT_TRUE(alg3) << c.family;
    // When cusparseSpGEMM refuses (out of resources: rmat), the binned kernel (rmat: 75 ms, the hash
    // kernel 386 ms, H100) before the slow ALG3.
    if (std::string(c.first) == "cuda.cusparse.spgemm") {
      ASSERT_GT(got.size(), 1u);
      EXPECT_EQ(got[1].kernel, "cuda.csr.binned") << c.family;
    }
  }
}

TEST(SpgemmRun, FallsBackWhenThePickRefuses) {
  const std::uint64_t seed = fresh_seed();
  const Csr<double> a = block_poor(157, seed);
  for (int kind : {0, 1, 2}) {
    Refuser r;
    const SpgemmRegistry reg = refusing_registry(r, kind);
    const SpgemmRun<double> run = spgemm<double>(reg, a, a, SpgemmRequest{}, SpgemmExecutor<double>());
    EXPECT_EQ(run.kernel, "cpu.csr.gustavson_hash") << "kind " << kind << " seed " << seed;
    ASSERT_FALSE(run.refused.empty());
    EXPECT_EQ(run.refused.front().kernel, "cpu.csr.gustavson_dense");
    EXPECT_NE(run.summary().find("cpu.csr.gustavson_dense refused"), std::string::npos) << run.summary();
    EXPECT_GE(r.calls, 1);
    expect_valid(a, a, run.result.c);
  }
}

TEST(SpgemmRun, ARealFailureIsNotAFallback) {
  const Csr<double> a = block_poor(64, fresh_seed());
  Refuser r;
  const SpgemmRegistry reg = refusing_registry(r, 3);
  EXPECT_THROW(spgemm<double>(reg, a, a, SpgemmRequest{}, SpgemmExecutor<double>()), Error);
  EXPECT_EQ(r.calls, 1);
}

TEST(SpgemmRun, WhenEveryCandidateRefusesTheErrorNamesThemAll) {
  const Csr<double> a = block_poor(64, fresh_seed());
  Refuser r;
  SpgemmRegistry reg;
  reg.add(r.info("cpu.csr.gustavson_dense", 0));
  reg.add(r.info("cpu.csr.gustavson_hash", 0));
  try {
    spgemm<double>(reg, a, a, SpgemmRequest{}, SpgemmExecutor<double>());
    FAIL() << "no kernel computed C, yet spgemm returned";
  } catch (const NotApplicable& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cpu.csr.gustavson_dense"), std::string::npos) << what;
    EXPECT_NE(what.find("cpu.csr.gustavson_hash"), std::string::npos) << what;
    EXPECT_NE(what.find("cpu.bmsparse.blocks: not in this registry"), std::string::npos) << what;
  }
}

TEST(SpgemmRun, NamedKernelRunsAloneAndUnknownNamesAreRefused) {
  const Csr<double> a = block_poor(90, fresh_seed());
  SpgemmRequest req;
  req.kernel = "cpu.bmsparse.blocks";
  const SpgemmRun<double> run = spgemm(a, a, req);
  EXPECT_EQ(run.kernel, "cpu.bmsparse.blocks");
  EXPECT_EQ(run.reason, "requested");
  expect_valid(a, a, run.result.c);
  req.kernel = "no.such.kernel";
  EXPECT_THROW(spgemm(a, a, req), NotApplicable);
  Csr<double> wrong = random_rows(5, 7, {1, 2, 0, 3, 1}, 3);
  EXPECT_THROW(spgemm(a, wrong), Error);
}

// Batches under a memory cap: rectangular, empty rows, a huge row, float and double, every CPU kernel.
template <class T>
void check_batched(const Csr<double>& a64, const Csr<double>& b64, const std::string& kernel, std::uint64_t limit) {
  const Csr<T> a = csr_cast<T>(a64), b = csr_cast<T>(b64);
  SpgemmRequest req;
  req.kernel = kernel;
  req.memory_limit = limit;
  req.threads = 2;
  const SpgemmRun<T> run = spgemm(a, b, req);
  EXPECT_GT(run.plan.batches(), 1) << kernel << " limit " << limit;
  EXPECT_EQ(run.plan.row_starts.front(), 0);
  EXPECT_EQ(run.plan.row_starts.back(), a.rows);
  EXPECT_LE(run.plan.batch_bytes, run.plan.budget_bytes);
  expect_valid(a, b, run.result.c);
  // The same C as one unbatched call, entry for entry.
  req.memory_limit = 0;
  const SpgemmRun<T> whole = spgemm(a, b, req);
  EXPECT_EQ(whole.plan.batches(), 1);
  EXPECT_EQ(run.result.c.row_ptr, whole.result.c.row_ptr) << kernel;
  EXPECT_EQ(run.result.c.col_idx, whole.result.c.col_idx) << kernel;
  EXPECT_EQ(run.result.c.values, whole.result.c.values) << kernel;
}

TEST(SpgemmRun, RowBatchesUnderAMemoryCapGiveTheSameC) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Csr<double> a = block_poor(203, seed);
  const Csr<double> b = random_rows(203, 77, std::vector<std::int64_t>(203, 5), seed + 1);  // rectangular
  for (const char* k : {"cpu.csr.gustavson_dense", "cpu.csr.gustavson_hash", "cpu.bmsparse.blocks"}) {
    check_batched<double>(a, a, k, 40'000);
    check_batched<float>(a, b, k, 12'000);
  }
  for (const auto& m : family_matrices()) {
    if (m.a.rows != m.a.cols || m.a.rows < 16) continue;
    check_batched<double>(m.a, m.a, "cpu.csr.gustavson_hash", std::max<std::uint64_t>(m.a.nnz() * 40, 20'000));
  }
}

TEST(SpgemmRun, AutoReportsItsBatches) {
  const Csr<double> a = block_poor(150, fresh_seed());
  SpgemmRequest req;
  req.memory_limit = 30'000;
  const SpgemmRun<double> run = spgemm(a, a, req);
  EXPECT_GT(run.plan.batches(), 1);
  EXPECT_NE(run.summary().find("row batches"), std::string::npos) << run.summary();
  expect_valid(a, a, run.result.c);
}

TEST(SpgemmRun, EnvironmentCapSplitsTheProduct) {
  const Csr<double> a = block_poor(120, fresh_seed());
  ::setenv("SPKIT_DEVICE_MEMORY_LIMIT", "24K", 1);
  SpgemmRun<double> run;
  EXPECT_NO_THROW(run = spgemm(a, a));
  ::setenv("SPKIT_DEVICE_MEMORY_LIMIT", "lots", 1);
  EXPECT_THROW(spgemm(a, a), Error);
  ::unsetenv("SPKIT_DEVICE_MEMORY_LIMIT");
  EXPECT_GT(run.plan.batches(), 1);
  expect_valid(a, a, run.result.c);
}

TEST(SpgemmRun, ParsesMemorySizes) {
  EXPECT_EQ(parse_memory_bytes("1500", "x"), 1500u);
  EXPECT_EQ(parse_memory_bytes("64K", "x"), 65536u);
  EXPECT_EQ(parse_memory_bytes("1.5M", "x"), 1572864u);
  EXPECT_EQ(parse_memory_bytes("2GiB", "x"), 2147483648u);
  for (const char* bad : {"", "-5", "0", "12Q", "K", "3 M"}) EXPECT_THROW(parse_memory_bytes(bad, "x"), Error) << bad;
}

TEST(SpgemmRun, RefusesBeforeAnyWorkWhenARowCannotFit) {
  const Csr<double> a = block_poor(100, fresh_seed());
  Refuser r;
  SpgemmRegistry reg;
  SpgemmKernelInfo k = r.info("cpu.csr.gustavson_dense", 0);
  reg.add(k);
  SpgemmRequest req;
  req.kernel = "cpu.csr.gustavson_dense";
  req.memory_limit = 64;  // one row of C does not fit: TooLarge naming the bytes, the kernel never called
  try {
    spgemm<double>(reg, a, a, req, SpgemmExecutor<double>());
    FAIL() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_GT(e.bytes_needed(), 64u);
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos);
  }
  EXPECT_EQ(r.calls, 0);
}

TEST(SpgemmRun, RefusesACThatDoesNotFitInHostMemory) {
  // An outer product: A is n x 1, B is 1 x n, C has n^2 entries (9e12), past any host memory.
  const std::int64_t n = 3'000'000;
  Csr<double> a, b;
  a.rows = n, a.cols = 1, b.rows = 1, b.cols = n;
  a.row_ptr.resize(n + 1), a.col_idx.assign(n, 0), a.values.assign(n, 1.0);
  for (std::int64_t i = 0; i <= n; ++i) a.row_ptr[i] = i;
  b.row_ptr = {0, n}, b.col_idx.resize(n), b.values.assign(n, 2.0);
  for (std::int64_t j = 0; j < n; ++j) b.col_idx[j] = static_cast<std::int32_t>(j);
  try {
    spgemm(a, b);
    FAIL() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
    EXPECT_GE(e.bytes_needed(), static_cast<std::uint64_t>(n) * n * 12);
  }
}

}  // namespace
}  // namespace spkit::test
