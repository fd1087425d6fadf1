// Cases the registry-driven test's small matrices do not reach, for the merge-path CSR and SELL-C-sigma
// kernels: a row of more than a million entries (merge only: spans hundreds of merge tiles), a
// matrix of mostly empty rows with a few long ones, and rows whose ends fall exactly on tile
// boundaries; plus bitwise reproducibility of the merge kernel (no atomics). CUDA kernels skip
// without a device.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>

#include "common/kernel_param_name.hpp"
#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

// 3000 x 2,000,000: row 1500 holds 1,200,001 entries (every column up to 1.2 M, one far one), the other
// rows 0-5 entries, a third of them empty.
Csr<double> million_row_matrix() {
  std::vector<std::int64_t> len(3000);
  for (int i = 0; i < 3000; ++i) len[i] = i % 3 == 0 ? 0 : i % 6;
  auto a = random_rows(3000, 2'000'000, len, 41);
  // Splice the long row in.
  Csr<double> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr.assign(a.row_ptr.size(), 0);
  const std::int64_t long_len = 1'200'001;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t b0 = a.row_ptr[i], e0 = a.row_ptr[i + 1];
    if (i == 1500) {
      for (std::int32_t c = 0; c < long_len - 1; ++c) b.col_idx.push_back(c);
      b.col_idx.push_back(1'999'999);
      for (std::int64_t k = 0; k < long_len; ++k) b.values.push_back(((k * 7919) % 2001) / 1000.0 - 1.0001);
    } else {
      b.col_idx.insert(b.col_idx.end(), a.col_idx.begin() + b0, a.col_idx.begin() + e0);
      b.values.insert(b.values.end(), a.values.begin() + b0, a.values.begin() + e0);
    }
    b.row_ptr[i + 1] = static_cast<std::int64_t>(b.col_idx.size());
  }
  check_csr(b);
  return b;
}

// 200,000 rows, one in 400 non-empty (1..3000 entries): long runs of empty rows between long rows.
Csr<double> sparse_rows_matrix() {
  std::vector<std::int64_t> len(200'000, 0);
  for (std::size_t i = 7; i < len.size(); i += 400) len[i] = 1 + static_cast<std::int64_t>((i * 37) % 3000);
  return random_rows(200'000, 50'000, len, 43);
}

// Every row of length 255 (256 items with its end): both tile sizes (1792 fp64, 2304 fp32 items) are
// multiples of 256, so every tile ends exactly on a row end (no carry at all).
Csr<double> tile_boundary_matrix() {
  return random_rows(4096, 4096, std::vector<std::int64_t>(4096, 255), 47);
}

template <class T>
std::vector<T> run_once(SpmvPlan<T>& plan, const std::vector<T>& x, std::int64_t rows) {
  std::vector<T> y(static_cast<std::size_t>(rows), std::numeric_limits<T>::quiet_NaN());
  harness::TimingOptions t;
  t.warmup = 1;
  t.reps = 2;
  harness::time_spmv(plan, rows, static_cast<std::int64_t>(x.size()), x.data(), y.data(), t);
  return y;
}

template <class T>
void check(const std::string& kernel, const std::string& name, const Csr<double>& ad) {
  SCOPED_TRACE(kernel + " on " + name + (sizeof(T) == 8 ? ", fp64" : ", fp32"));
  const KernelInfo* k = registry().find(kernel);
  ASSERT_NE(k, nullptr) << kernel << " is not registered";
  const Csr<T> a = csr_cast<T>(ad);
  auto plan = k->factory<T>()(a, PlanOptions{});
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("x seed " + std::to_string(seed));
  const auto xd = random_vector(a.cols, seed);
  const std::vector<T> x(xd.begin(), xd.end());
  const auto y = run_once(*plan, x, a.rows);
  const Validation v = validate_spmv(a, x, y.data());
  EXPECT_TRUE(v.valid) << v.bad_rows << " bad rows, first " << v.first_bad_row << ", rel L2 " << v.rel_l2_error;
  if (kernel == "cuda.csr.merge") {  // no atomics: the same bits every run
    const auto y2 = run_once(*plan, x, a.rows);
    EXPECT_EQ(std::memcmp(y.data(), y2.data(), y.size() * sizeof(T)), 0) << "merge kernel not reproducible";
  }
}

class MergeSellCases : public ::testing::TestWithParam<std::string> {};

TEST_P(MergeSellCases, MillionEntryRowEmptyRunsAndTileBoundaries) {
  const std::string kernel = GetParam();
  const KernelInfo* k = registry().find(kernel);
  if (!k) GTEST_SKIP() << kernel << " is not in this build (CUDA kernels need a CUDA build)";
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << kernel << " compiled but not run";
  static const Csr<double> million = million_row_matrix();
  static const Csr<double> sparse = sparse_rows_matrix();
  static const Csr<double> boundary = tile_boundary_matrix();
  for (const auto* m : {&million, &sparse, &boundary}) {
    // SELL pads the million-entry row's slice to 32 x 1.2 M slots (460 MB): not what SELL is for.
    if (m == &million && k->format == Format::sell) continue;
    const std::string name = m == &million ? "million_row" : m == &sparse ? "sparse_rows" : "tile_boundary";
    check<double>(kernel, name, *m);
    check<float>(kernel, name, *m);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, MergeSellCases,
                         ::testing::Values("cuda.csr.merge", "cuda.sell.c32", "cuda.sell.delta16",
                                           "cpu.sell.omp.delta16", "cpu.sell.serial.c32"),
                         kernel_param_name);

}  // namespace
}  // namespace spkit::test
