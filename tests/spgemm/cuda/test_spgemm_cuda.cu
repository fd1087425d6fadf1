// Every GPU SpGEMM kernel of the registry against the fp64 reference (check_spgemm with the kernel's
// unit roundoff), float and double, on edge cases (empty, 1x1, non-square, sizes not multiples of 8,
// empty block rows, long rows, entries and whole blocks cancelling to exact zero), the generator
// families and the repository's real matrices; the bmSparse kernels with both sort paths (segmented
// and radix). Skips with a message without a GPU.
//
// Values are remapped to magnitudes in [0.25, 1) (sign kept): the FP16 kernels' inputs then stay in
// FP16's normal range, where the unit roundoff 2^-11 the checker uses holds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/kernel_param_name.hpp"
#include "common/test_matrices.hpp"
#include "spkit/harness/spgemm_timing.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {
using namespace spkit::harness;

Csr<double> away_from_zero(Csr<double> m) {
  for (double& v : m.values) v = std::copysign(0.25 + 0.75 * std::min(1.0, std::abs(v)), v);
  return m;
}

struct Case {
  std::string name;
  Csr<double> a, b;
  bool same = false;  // B is A (the kernel sees the same object twice)
};

// A (rows 0-7) = [X X], A (rows 8-15) = [X 0], B = [W; -W]: block row 0 of C cancels to exact zero in
// any order of summation (small dyadic values: every product and partial sum is exact, also in FP16).
Case cancellation_case() {
  const double xs[] = {0.5, -1.0, 0.75, 0.25, -0.5, 1.0, -0.75};
  Csr<double> a, b;
  a.rows = 16, a.cols = 16, b.rows = 16, b.cols = 8;
  a.row_ptr = {0};
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 8; ++c)
      if ((r + c) % 3 != 0) a.col_idx.push_back(c), a.values.push_back(xs[(r * 8 + c) % 7]);
    if (r < 8)
      for (int c = 0; c < 8; ++c)
        if ((r + c) % 3 != 0) a.col_idx.push_back(c + 8), a.values.push_back(xs[(r * 8 + c) % 7]);
    a.row_ptr.push_back(static_cast<std::int64_t>(a.col_idx.size()));
  }
  b.row_ptr = {0};
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 8; ++c)
      if ((r + 2 * c) % 4 != 1) {
        const double w = xs[((r % 8) * 8 + c + 3) % 7];
        b.col_idx.push_back(c), b.values.push_back(r < 8 ? w : -w);
      }
    b.row_ptr.push_back(static_cast<std::int64_t>(b.col_idx.size()));
  }
  return {"cancellation_16x16x8", a, b, false};
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& m : edge_case_matrices()) {
    const Csr<double> a = away_from_zero(m.a);
    if (a.rows == a.cols) out.push_back({m.name + "_squared", a, a, true});
    // A different B with a.cols rows; 2001 columns so that the long rows of huge_row/wide overflow
    // a shared hash table into a global one in cuda.csr.hash.
    const std::int64_t bcols = a.cols > 500 ? 2001 : 45;
    const Csr<double> b = away_from_zero(
        random_rows(a.cols, bcols, std::vector<std::int64_t>(static_cast<std::size_t>(a.cols), 3), 777));
    out.push_back({m.name + "_times_random", a, b, false});
  }
  out.push_back(cancellation_case());
  {  // Empty block rows in the middle: rows 8-23 of A empty, B with empty block rows too.
    std::vector<std::int64_t> len(45, 4);
    for (int i = 8; i < 24; ++i) len[i] = 0;
    const Csr<double> a = away_from_zero(random_rows(45, 45, len, 99));
    out.push_back({"empty_block_rows_45_squared", a, a, true});
  }
  {  // (block row, block column) of C needs more than 32 bits: the radix path sorts 64-bit keys.
    std::vector<std::vector<std::int32_t>> ra(1'000'001), rb(8);
    ra[0] = {0, 3, 7}, ra[500'000] = {1, 2}, ra[1'000'000] = {0, 5, 6};
    for (std::int32_t r = 0; r < 8; ++r) rb[r] = {r, 300'000 + r, 600'000};
    out.push_back({"wide_keys_1Mx8_times_8x600k", away_from_zero(random_csr(1'000'001, 8, 31, ra)),
                   away_from_zero(random_csr(8, 600'001, 32, rb)), false});
  }
  for (const auto& m : family_matrices()) {
    const Csr<double> a = away_from_zero(m.a);
    out.push_back({m.name + "_squared", a, a, true});
  }
  for (const auto& m : real_matrices(200'000)) {
    const Csr<double> a = away_from_zero(m.a);
    if (a.rows == a.cols) out.push_back({m.name + "_squared", a, a, true});
  }
  return out;
}

std::int64_t nonempty_blocks(const Csr<double>& c) { return csr_to_bmsparse(c).blocks(); }

std::int64_t expected_tasks(const Csr<double>& a, const Csr<double>& b) {
  const BmSparse<double> ba = csr_to_bmsparse(a), bb = csr_to_bmsparse(b);
  std::int64_t n = 0;
  for (const auto key : ba.keys) {
    const std::int64_t j = BmSparse<double>::key_col(key);
    n += bb.block_row_ptr[j + 1] - bb.block_row_ptr[j];
  }
  return n;
}

template <class T>
void check_case(const SpgemmKernelInfo& k, const Case& cs, std::int64_t sort_threshold, const std::string& path) {
  const auto& fn = k.fn<T>();
  if (!fn) return;
  const Csr<T> a = csr_cast<T>(cs.a);
  const Csr<T> b_own = csr_cast<T>(cs.b);
  const Csr<T>& b = cs.same ? a : b_own;
  const std::string where = k.name + " on " + cs.name + " (" + (sizeof(T) == 4 ? "float" : "double") +
                            (path.empty() ? "" : ", " + path) + ")";
  SpgemmOptions o;
  o.sort_threshold = sort_threshold;
  SpgemmTimingOptions timing;
  timing.warmup = 0;
  timing.reps = 2;
  SpgemmTiming<T> timed;
  try {
    timed = time_spgemm(k, a, b, o, timing);
  } catch (const NotApplicable& e) {
    // A vendor baseline may refuse a shape (cusparseSpGEMM: insufficient resources), a kernel for one structure
    // (dense blocks) a matrix without it (its own tests run it on that structure); spkit's CSR kernels may not.
    if (k.comparison || k.format == Format::bsr || k.format == Format::dia) {
      std::printf("[  NOTE    ] %s: %s\n", where.c_str(), e.what());
      return;
    }
    ADD_FAILURE() << where << ": threw " << e.what();
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << where << ": threw " << e.what();
    return;
  }
  const SpgemmResult<T>& r = timed.result;
  const double u = k.unit_roundoff > 0 ? k.unit_roundoff : (sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
  const SpgemmCheck chk = check_spgemm(a, b, r.c, u, k.input_underflow);
  EXPECT_TRUE(chk.ok) << where << ": " << chk.message << " (" << chk.pattern_mismatches
                      << " mismatches, rel error " << chk.rel_error << ")";
  for (std::int64_t p = 0; p < r.c.nnz(); ++p)
    if (r.c.values[p] == T(0)) {
      ADD_FAILURE() << where << ": C stores an exact zero at position " << p;
      break;
    }
  EXPECT_EQ(timed.total_ms.size(), 2u) << where;
  if (k.format == Format::bmsparse) {
    EXPECT_EQ(r.out_blocks, nonempty_blocks(csr_cast<double>(r.c))) << where << ": out_blocks";
    EXPECT_EQ(r.tasks, expected_tasks(csr_cast<double>(a), csr_cast<double>(b))) << where << ": tasks";
    if (r.tasks > 0) {
      const std::string expect = sort_threshold == 0 ? "segmented sort" : "radix sort";
      EXPECT_NE(r.detail.find(expect), std::string::npos) << where << ": detail '" << r.detail << "'";
    }
    std::vector<std::string> names;
    for (const auto& s : timed.stages)
      if (s.in_total) names.push_back(s.name);
    const std::vector<std::string> want = {"T1 count",      "T2 gather",  "T3 task list", "T4 sort",
                                           "T5 output keys", "T6 multiply", "T7 compact"};
    EXPECT_EQ(names, want) << where;
  }
}

std::vector<const SpgemmKernelInfo*> gpu_kernels() {
  std::vector<const SpgemmKernelInfo*> out;
  for (const auto& k : spgemm_registry().all())
    if (k.backend == Backend::cuda) out.push_back(&k);
  return out;
}

std::vector<std::string> gpu_kernel_names() {
  std::vector<std::string> names;
  for (const auto* k : gpu_kernels()) names.push_back(k->name);
  if (names.empty()) names.push_back("none");  // a build without CUDA: one test that says so
  return names;
}

class CudaSpgemm : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaSpgemm, MatchesReferenceOnEveryCase) {
  if (GetParam() == "none") GTEST_SKIP() << "no GPU SpGEMM kernel compiled in (build without CUDA)";
  const SpgemmKernelInfo* k = spgemm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  const std::int64_t radix_always = std::numeric_limits<std::int64_t>::max();
  for (const Case& cs : cases()) {
    if (k->format == Format::bmsparse) {
      check_case<float>(*k, cs, 0, "segmented sort");
      check_case<float>(*k, cs, radix_always, "radix sort");
      check_case<double>(*k, cs, 0, "segmented sort");
      check_case<double>(*k, cs, radix_always, "radix sort");
    } else {
      check_case<float>(*k, cs, -1, "");
      check_case<double>(*k, cs, -1, "");
    }
  }
}

TEST_P(CudaSpgemm, RefusesMismatchedShapesAndFp16Overflow) {
  if (GetParam() == "none") GTEST_SKIP() << "no GPU SpGEMM kernel compiled in (build without CUDA)";
  const SpgemmKernelInfo* k = spgemm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  const Csr<double> a = random_rows(10, 12, std::vector<std::int64_t>(10, 3), 5);
  EXPECT_THROW(k->run_f64(a, a, SpgemmOptions{}), Error) << k->name;
  if (k->arithmetic.find("fp16") != std::string::npos) {
    Csr<double> big = random_rows(10, 10, std::vector<std::int64_t>(10, 3), 6);
    big.values[4] = 1e5;
    EXPECT_THROW(k->run_f64(big, big, SpgemmOptions{}), NotApplicable) << k->name;
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaSpgemm, ::testing::ValuesIn(gpu_kernel_names()), kernel_param_name);

// Small cases for compute-sanitizer (scripts/gpu-check.sh runs memcheck on this test only).
TEST(CudaSpgemmSanitize, SmallCasesEveryKernel) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  std::vector<Case> small;
  for (const auto& c : cases())
    if (c.name == "blocky_61x59_times_random" || c.name == "cancellation_16x16x8" ||
        c.name == "huge_row_1000x6000_times_random" || c.name == "empty_0x0_squared" ||
        c.name == "empty_block_rows_45_squared")
      small.push_back(c);
  ASSERT_EQ(small.size(), 5u);
  for (const auto* k : gpu_kernels())
    for (const Case& cs : small) {
      check_case<float>(*k, cs, 0, "segmented sort");
      check_case<double>(*k, cs, std::numeric_limits<std::int64_t>::max(), "radix sort");
    }
}

}  // namespace
}  // namespace spkit::test
