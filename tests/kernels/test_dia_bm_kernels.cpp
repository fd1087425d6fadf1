// The DIA kernels and cuda.bmsparse.warp on shapes the registry test's matrices may not reach:
// non-square bands (wide and tall), a diagonal that only the first rows reach, sizes that are not
// multiples of 8 / 32 / 64 / 256, a symmetric matrix without a main diagonal, and bmSparse matrices
// whose blocks fall on both sides of the dense-block threshold (a non-empty CSR remainder).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/dia.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

// Runs kernel k on a; returns false when it refused with NotApplicable.
template <class T>
bool runs_and_matches(const KernelInfo& k, const Csr<double>& ad, int threads) {
  const Csr<T> a = csr_cast<T>(ad);
  PlanOptions po;
  po.threads = threads;
  std::unique_ptr<SpmvPlan<T>> plan;
  try {
    plan = k.factory<T>()(a, po);
  } catch (const NotApplicable&) {
    return false;
  }
  const auto xd = random_vector(a.cols, fresh_seed());
  std::vector<T> x(xd.begin(), xd.end());
  std::vector<T> y(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());
  harness::TimingOptions t;
  t.warmup = 1;
  t.reps = 1;
  harness::time_spmv(*plan, a.rows, a.cols, x.data(), y.data(), t);
  const Validation v = validate_spmv(a, x, y.data());
  EXPECT_TRUE(v.valid) << k.name << ": " << v.bad_rows << " bad rows, first " << v.first_bad_row;
  EXPECT_GT(plan->bytes_moved(), 0u);
  return true;
}

std::vector<const KernelInfo*> kernels_named(const char* pattern) {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo* k : registry().match(pattern))
    if (k->backend == Backend::cpu || gpu_count() > 0) out.push_back(k);
  return out;
}

TEST(DiaKernels, AwkwardBandsRunAndMatch) {
  struct Case { const char* name; Csr<double> a; };
  const std::vector<Case> cases = {
      {"wide 100 x 300, far diagonal +250", banded_csr(100, 300, {-2, 0, 1, 250}, false)},
      {"tall 301 x 290, diagonal -280", banded_csr(301, 290, {-280, -1, 0, 3}, false)},
      {"square 1001, 5 diagonals", banded_csr(1001, 1001, {-33, -1, 0, 1, 33}, false)},
      {"1 x 1", banded_csr(1, 1, {0}, false)},
      {"symmetric 517, 7 diagonals", banded_csr(517, 517, {-70, -9, -1, 0, 1, 9, 70}, true)},
      {"symmetric 259, no main diagonal", banded_csr(259, 259, {-3, -1, 1, 3}, true)},
  };
  const auto ks = kernels_named("*.dia*");
  ASSERT_GE(ks.size(), 3u);  // cpu.dia.serial, cpu.dia.omp, cpu.dia.omp_sym at least
  for (const auto& c : cases) {
    const bool symmetric = is_exactly_symmetric(c.a);
    for (const KernelInfo* k : ks) {
      SCOPED_TRACE(std::string(c.name) + ", " + k->name);
      const bool sym_kernel = k->name.find("sym") != std::string::npos;
      for (int th : k->parallel ? std::vector<int>{1, 3} : std::vector<int>{1}) {
        const bool ran = runs_and_matches<double>(*k, c.a, th) && runs_and_matches<float>(*k, c.a, th);
        // Each of these bands is cheaper as DIA than as CSR: only the symmetric kernels may refuse a
        // matrix that is not symmetric, and the 64-row tiles of cpu.dia.omp may make a 1 x 1 too big.
        const bool tiny_tiled = k->name == "cpu.dia.omp" && c.a.rows < 64;
        if (!tiny_tiled) EXPECT_EQ(ran, !sym_kernel || symmetric);
      }
    }
  }
}

TEST(DiaKernels, RefuseMatricesThatAreNotBands) {
  const Csr<double> r = random_rows(500, 500, std::vector<std::int64_t>(500, 6), 3);
  for (const KernelInfo* k : kernels_named("*.dia*")) {
    SCOPED_TRACE(k->name);
    PlanOptions po;
    try {
      k->make_f64(r, po);
      ADD_FAILURE() << "expected NotApplicable";
    } catch (const NotApplicable& e) {
      EXPECT_NE(std::string(e.what()).size(), 0u);
    }
  }
}

TEST(DiaKernels, CsrSpkitIsPureCsr) {
  const KernelInfo* k = registry().find("cpu.csr.omp.spkit");
  ASSERT_NE(k, nullptr);
  PlanOptions po;
  po.threads = 2;
  auto plan = k->make_f64(banded_csr(2000, 2000, {-40, -1, 0, 1, 40}, true), po);
  EXPECT_NE(plan->detail().find("merge-path"), std::string::npos) << plan->detail();
}

// The cost models (what the selector reads) count exactly the bytes the plans report moving.
TEST(DiaKernels, CostModelBytesMatchThePlans) {
  const Csr<double> sym = banded_csr(1000, 1000, {-31, -1, 0, 1, 31}, true);
  const Csr<double> general = banded_csr(1000, 1000, {-31, -2, 0, 1, 31}, false);
  for (const Csr<double>* a : {&sym, &general}) {
    const MatrixStats stats = compute_stats(*a);
    for (const char* pattern : {"*.dia*", "cuda.bmsparse.warp"})
      for (const KernelInfo* k : kernels_named(pattern)) {
        SCOPED_TRACE(k->name + (a == &sym ? ", symmetric" : ", general"));
        ASSERT_TRUE(static_cast<bool>(k->cost));
        PlanOptions po;
        for (Precision p : {Precision::f64, Precision::f32}) {
          const CostEstimate c = k->cost(stats, p, po);
          const bool sym_kernel = k->name.find("sym") != std::string::npos;
          EXPECT_EQ(c.applicable, !sym_kernel || a == &sym) << c.note;
          if (!c.applicable) continue;
          const std::uint64_t moved = p == Precision::f64 ? k->make_f64(*a, po)->bytes_moved()
                                                          : k->make_f32(csr_cast<float>(*a), po)->bytes_moved();
          EXPECT_EQ(c.bytes, moved);
          EXPECT_GT(c.efficiency, 0.0);
        }
      }
  }
}

TEST(BmSparseWarp, BlocksOnBothSidesOfTheThresholdAndRemainder) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: cuda.bmsparse.warp compiled but not run";
  const KernelInfo* k = registry().find("cuda.bmsparse.warp");
  ASSERT_NE(k, nullptr);
  // Dense 3x3 node blocks (fem-like) plus scattered single entries: both parts non-empty. 203 rows.
  std::vector<std::vector<std::int32_t>> rc(203);
  for (int i = 0; i < 203; ++i) {
    const int node = i / 3;
    for (int nb : {node - 1, node, node + 1})
      for (int d = 0; d < 3; ++d)
        if (nb >= 0 && nb * 3 + d < 203) rc[i].push_back(nb * 3 + d);
    if (i % 5 == 0 && i + 60 < 203) rc[i].push_back(i + 60);  // isolated: a 1-entry block
  }
  for (auto& r : rc) std::sort(r.begin(), r.end());
  const Csr<double> a = random_csr(203, 203, 9, rc);
  EXPECT_TRUE(runs_and_matches<double>(*k, a, 1));
  EXPECT_TRUE(runs_and_matches<float>(*k, a, 1));
  PlanOptions po;
  auto plan = k->make_f64(a, po);
  EXPECT_EQ(plan->detail().find("CSR remainder 0 nz"), std::string::npos) << plan->detail();
}

}  // namespace
}  // namespace spkit::test
