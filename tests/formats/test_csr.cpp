// COO -> CSR: against a dense reference and against the slow reference conversion (duplicates summed in
// input order, bit for bit) for any thread count and entry order, huge buckets, and indices outside the
// matrix.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "formats/csr_reference.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"

using namespace spkit;
using namespace spkit::csr_test;

TEST(CooToCsr, MatchesReferenceOnShuffledInputWithDuplicates) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int saved = omp_get_max_threads();
  for (auto [rows, cols, nnz] : {std::tuple<int, int, int>{0, 0, 0}, {1, 1, 3}, {7, 3, 40}, {1000, 333, 200000},
                                  {50000, 17, 300000}, {3, 100000, 250000},
                                  // the sort's packed scratch at exactly 32 bits (9 + 23), and the
                                  // 16-byte fallback when row-in-bucket and column do not fit (11 + 31)
                                  {1 << 20, 1 << 23, 200000}, {1 << 22, 2147483647, 100000}}) {
    Coo<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    Dense want;
    for (int k = 0; k < nnz; ++k) {
      // skewed rows: one heavy row, many empty rows
      std::int32_t r = (rng() % 4 == 0) ? 0 : static_cast<std::int32_t>(rng() % std::max(1, rows / 2));
      std::int32_t c = static_cast<std::int32_t>(rng() % cols);
      double v = static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 8;  // exact sums in any order
      coo.row_idx.push_back(r);
      coo.col_idx.push_back(c);
      coo.values.push_back(v);
      want[{r, c}] += v;
    }
    for (int threads : {1, 2, 5}) {
      omp_set_num_threads(threads);
      const Csr<double> a = coo_to_csr(coo);
      ASSERT_NO_THROW(check_csr(a));
      ASSERT_EQ(static_cast<std::size_t>(a.nnz()), want.size()) << rows << "x" << cols;
      EXPECT_EQ(dense_of(a), want);
      // Without summing: every entry kept, columns still non-decreasing within rows.
      const Csr<double> b = coo_to_csr(coo, false);
      ASSERT_EQ(b.nnz(), coo.nnz());
      for (std::int64_t i = 0; i < b.rows; ++i)
        for (std::int64_t k = b.row_ptr[i] + 1; k < b.row_ptr[i + 1]; ++k) ASSERT_LE(b.col_idx[k - 1], b.col_idx[k]);
    }
    // Sorted input takes the fast path: same answer.
    const Csr<double> a = coo_to_csr(coo);
    const Coo<double> back = csr_to_coo(a);
    expect_same(coo_to_csr(back), a);
  }
  omp_set_num_threads(saved);
}


TEST(CooToCsr, SumsDuplicatesInInputOrderForAnyThreadCountAndEntryOrder) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int saved = omp_get_max_threads();
  struct Shape {
    std::int64_t rows, cols, nnz, distinct_cols;  // columns drawn from distinct_cols values: many repeats
  };
  // Row lengths from 1 to ~60 cover the rank sort (<= 16), insertion sort (<= 32) and stable_sort;
  // 2^28 columns take the 64-bit rank keys, 2^31 - 1 columns the 16-byte bucket layout.
  for (const Shape sh : {Shape{1, 1, 5, 1}, Shape{300, 200, 9000, 200}, Shape{5000, 1 << 20, 150000, 24},
                         Shape{70000, 1 << 28, 200000, 5}, Shape{1 << 22, 2147483647, 120000, 3}}) {
    SCOPED_TRACE(std::to_string(sh.rows) + " x " + std::to_string(sh.cols));
    std::vector<std::int64_t> col_pool;
    for (std::int64_t k = 0; k < sh.distinct_cols; ++k) col_pool.push_back(static_cast<std::int64_t>(rng() % sh.cols));
    std::vector<Entry> entries;
    for (std::int64_t k = 0; k < sh.nnz; ++k) {
      // a quarter of the entries in 8 rows: long rows and repeated (row, column) pairs
      const std::int64_t r = rng() % 4 == 0 ? static_cast<std::int64_t>(rng() % 8) % sh.rows
                                            : static_cast<std::int64_t>(rng() % sh.rows);
      entries.push_back({r, col_pool[rng() % col_pool.size()], order_sensitive_value(rng)});
    }
    // The same multiset of entries in three orders: random, sorted by row then reversed, sorted.
    std::vector<Entry> reversed = entries;
    std::stable_sort(reversed.begin(), reversed.end(),
                     [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
    std::vector<Entry> sorted = reversed;
    std::reverse(reversed.begin(), reversed.end());
    for (const auto* order : {&entries, &reversed, &sorted}) {
      const Coo<double> coo = coo_of(sh.rows, sh.cols, *order);
      const Csr<double> want = reference_csr(sh.rows, sh.cols, *order, true);
      const Csr<double> want_all = reference_csr(sh.rows, sh.cols, *order, false);
      for (int threads : {1, 2, 5}) {
        SCOPED_TRACE("threads " + std::to_string(threads));
        omp_set_num_threads(threads);
        expect_same(coo_to_csr(coo), want);
        expect_same(coo_to_csr(coo, false), want_all);
      }
    }
  }
  omp_set_num_threads(saved);
}

// A bucket of more than 2^20 entries (three rows) is sorted where it lies rather than in a buffer.
TEST(CooToCsr, HugeBucketOfLongRows) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<Entry> entries;
  for (int k = 0; k < 1100000; ++k)
    entries.push_back({static_cast<std::int64_t>(rng() % 3), static_cast<std::int64_t>(rng() % 50000), order_sensitive_value(rng)});
  const Coo<double> coo = coo_of(3, 50000, entries);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    expect_same(coo_to_csr(coo), reference_csr(3, 50000, entries, true));
  }
  omp_set_num_threads(saved);
}

TEST(CooToCsr, RefusesIndicesOutsideTheMatrix) {
  Coo<double> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row_idx = {0, 2};
  coo.col_idx = {0, 0};
  coo.values = {1, 1};
  EXPECT_THROW(coo_to_csr(coo), Error);
  coo.rows = 3000000000LL;
  EXPECT_THROW(coo_to_csr(coo), Error);
}
