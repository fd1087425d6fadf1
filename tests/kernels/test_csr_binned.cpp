// Cases the registry-driven test's small matrices do not reach, for the binned CSR kernel and the
// sub-warp kernel (whose long rows are now split into 2048-entry chunks too): a row of more than a
// million entries (hundreds of chunks, with empty rows and rows of every bin around it), long runs of
// empty rows (the empty bin writes y = 0), and rows of every length at and beside the bin and chunk
// boundaries; plus bitwise reproducibility (long rows: partials summed in chunk order, whichever block
// finishes last). CUDA kernels skip without a device.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <limits>
#include <utility>

#include "common/kernel_param_name.hpp"
#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

// 5000 x 1,500,000: row 2500 holds 1,100,003 entries (a chunk count that is not whole), a third of the
// other rows empty, the rest 1..200 entries (every sub-warp bin).
Csr<double> million_row_matrix() {
  std::vector<std::int64_t> len(5000);
  for (std::int64_t i = 0; i < 5000; ++i) len[i] = i % 3 == 0 ? 0 : 1 + (i * 7) % 200;
  len[2500] = 1'100'003;
  return random_rows(5000, 1'500'000, len, 51);
}

// 300,000 rows, one in 500 non-empty (1..1500 entries; every tenth of them 1025..5024, long): long runs of
// empty rows.
Csr<double> mostly_empty_matrix() {
  std::vector<std::int64_t> len(300'000, 0);
  for (std::size_t i = 11, k = 0; i < len.size(); i += 500, ++k)
    len[i] = k % 10 == 9 ? 1025 + static_cast<std::int64_t>((i * 37) % 4000) : 1 + static_cast<std::int64_t>((i * 37) % 1500);
  return random_rows(300'000, 8000, len, 53);
}

// Every row length at and beside a boundary: the sub-warp classes change at 16, 32, 64, 128 (lanes =
// largest power of two <= length / 4), the binned long-row limit is 1024, chunks hold 2048; the
// sub-warp kernel's own long-row limit is 16 x lanes (32 for this matrix's mean). Each length three
// times, so a bin holds rows that fill a block partly.
Csr<double> bin_boundary_matrix() {
  std::vector<std::int64_t> len;
  for (const std::int64_t b : {1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 1023, 1024,
                               1025, 2047, 2048, 2049, 4096, 4097})
    for (int rep = 0; rep < 3; ++rep) len.push_back(b), len.push_back(0);
  return random_rows(static_cast<std::int64_t>(len.size()), 5000, len, 57);
}

// 10,001 rows of 5 entries then 7,003 rows of 1..40 entries: the binned plans' blocks over the first part keep
// consecutive row ids (they skip the row-id array), those over the second part mostly do not.
Csr<double> runs_matrix() {
  std::vector<std::int64_t> len(17'004);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = i < 10'001 ? 5 : 1 + static_cast<std::int64_t>((i * 13) % 40);
  return random_rows(static_cast<std::int64_t>(len.size()), 20'000, len, 61);
}

template <class T>
std::vector<T> run_once(SpmvPlan<T>& plan, const std::vector<T>& x, std::int64_t rows) {
  std::vector<T> y(static_cast<std::size_t>(rows), std::numeric_limits<T>::quiet_NaN());  // NaN: a row not written shows
  harness::TimingOptions t;
  t.warmup = 1;
  t.reps = 2;
  harness::time_spmv(plan, rows, static_cast<std::int64_t>(x.size()), x.data(), y.data(), t);
  return y;
}

template <class T>
void check(const KernelInfo& k, const std::string& name, const Csr<double>& ad) {
  SCOPED_TRACE(k.name + " on " + name + (sizeof(T) == 8 ? ", fp64" : ", fp32"));
  const Csr<T> a = csr_cast<T>(ad);
  auto plan = k.factory<T>()(a, PlanOptions{});
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("x seed " + std::to_string(seed) + ", plan: " + plan->detail());
  const auto xd = random_vector(a.cols, seed);
  const std::vector<T> x(xd.begin(), xd.end());
  const auto y = run_once(*plan, x, a.rows);
  const Validation v = validate_spmv(a, x, y.data());
  EXPECT_TRUE(v.valid) << v.bad_rows << " bad rows, first " << v.first_bad_row << ", rel L2 " << v.rel_l2_error;
  for (std::int64_t i = 0; i < a.rows; ++i)
    if (a.row_length(i) == 0) {
      ASSERT_EQ(y[static_cast<std::size_t>(i)], T(0)) << "empty row " << i << " not zeroed";
    }
  const auto y2 = run_once(*plan, x, a.rows);  // chunk partials summed in a fixed order: the same bits
  EXPECT_EQ(std::memcmp(y.data(), y2.data(), y.size() * sizeof(T)), 0) << k.name << " not reproducible";
}

class CsrBinnedCases : public ::testing::TestWithParam<std::string> {};

TEST_P(CsrBinnedCases, MillionEntryRowEmptyRowsAndBinBoundaries) {
  const std::string kernel = GetParam();
  const KernelInfo* k = registry().find(kernel);
  if (!k) GTEST_SKIP() << kernel << " is not in this build (CUDA kernels need a CUDA build)";
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << kernel << " compiled but not run";
  static const Csr<double> million = million_row_matrix();
  static const Csr<double> empty = mostly_empty_matrix();
  static const Csr<double> boundary = bin_boundary_matrix();
  static const Csr<double> runs = runs_matrix();
  const std::pair<const char*, const Csr<double>*> cases[] = {
      {"million_row", &million}, {"mostly_empty", &empty}, {"bin_boundary", &boundary}, {"runs", &runs}};
  for (const auto& [name, m] : cases) {
    check<double>(*k, name, *m);
    check<float>(*k, name, *m);
  }
  if (kernel.rfind("cuda.csr.binned", 0) == 0) {  // both kinds of blocks ran: with and without a run
    const std::string detail = k->factory<double>()(runs, PlanOptions{})->detail();
    EXPECT_EQ(detail.find("(0 in runs"), std::string::npos) << detail;
    EXPECT_EQ(detail.find("(17004 in runs"), std::string::npos) << detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, CsrBinnedCases,
                         ::testing::Values("cuda.csr.binned", "cuda.csr.binned_degree", "cuda.csr.binned_stream",
                                           "cuda.csr.subwarp"),
                         kernel_param_name);

}  // namespace
}  // namespace spkit::test
