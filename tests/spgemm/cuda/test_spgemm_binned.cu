// cuda.csr.binned on the cases that reach each of its paths: short rows merged one thread each at the
// merge kernels' limits, rows whose column counts straddle every hash-bin boundary (wide column range)
// and the dense-window boundary (narrow range), windows at the compact accumulators' limits, a row tried in the largest hash table that overflows
// into windows, rows with more products than the tried table takes, hub rows expanded and sorted (32-
// and 64-bit keys, entries of C fed by more products than a thread sums), C left on the device when discarded,
// rectangular A B, exact cancellation in every accumulator, 1x1 and empty shapes, R-MAT and power-law
// graphs; every C checked against the fp64 reference, strictly sorted, free of zeros, and bit-identical
// between two runs. (The registry-driven tests in test_spgemm_cuda.cu run it too.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/test_matrices.hpp"
#include "spgemm/cuda/product_check.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {

const SpgemmKernelInfo& binned() {
  const SpgemmKernelInfo* k = spgemm_registry().find("cuda.csr.binned");
  if (!k) throw Error("cuda.csr.binned is not registered");
  return *k;
}

template <class T>
void check_product(const Csr<double>& a64, const Csr<double>& b64, const std::string& name, bool same = false,
                   int compact_tables = -1) {
  SpgemmOptions o;
  o.compact_tables = compact_tables;
  check_deterministic_product<T>(binned(), a64, b64, name, same, o);
}

void check_both(const Csr<double>& a, const Csr<double>& b, const std::string& name, bool same = false,
                int compact_tables = -1) {
  check_product<float>(a, b, name, same, compact_tables);
  check_product<double>(a, b, name, same, compact_tables);
}

#define REQUIRE_GPU() \
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: cuda.csr.binned compiled but not run"

// Rows of A of these lengths times B with rows of 16 entries: products 16 x length, columns close to that
// when B is wide, capped by B's columns when narrow (one window, up to 16 windows, more).
// (Symbolic bins: column bound <= 16, 32, ..., 1,024; numeric: columns <= 24, 48, ..., 3,072, and the
// 1,536- and 3,072-slot tables for 769-1,152 and 1,537-2,304 columns, whose rows of more than 1,024 /
// 2,048 columns are sorted in two runs and merged.)
std::vector<std::int64_t> sweep_lengths() {
  return {0,  1,  2,  3,  4,   5,   6,   7,   8,   9,   12,  13,  16,  17,  24,  25,  32,  33,   48,   49,  64,
          65, 72, 73, 96, 97, 128, 129, 144, 145, 192, 193, 194, 200, 256, 512, 1024, 1025, 2000, 6000};
}

TEST(CsrBinned, RowsOverEveryBinBoundaryWideRange) {
  REQUIRE_GPU();
  const std::vector<std::int64_t> len = sweep_lengths();
  const std::int64_t inner = 7000;
  const Csr<double> a = random_rows(static_cast<std::int64_t>(len.size()), inner, len, fresh_seed());
  const Csr<double> b = random_rows(inner, 300'001, std::vector<std::int64_t>(inner, 16), fresh_seed());
  check_both(a, b, "sweep_wide");
  check_both(a, b, "sweep_wide_compact_tables", false, 1);
}

// So many rows tried in the largest table (80 per SM) that the compact tables are used: the symbolic
// pass's 2,048-slot try with its overflow (rows of 1,537+ columns) retried in 4,096 slots, and the numeric
// pass's 1,536- and 3,072-slot tables with their two sorted runs (rows of 1,025-1,152 and 2,049-2,304
// columns); lengths of A's rows x 16 entries of B over a wide range put columns either side of each limit.
TEST(CsrBinned, ManyWideRowsInCompactTables) {
  REQUIRE_GPU();
  const std::vector<std::int64_t> cycle = {65, 66, 72, 73, 90, 95, 96, 97, 100, 128, 129, 143, 144, 145, 150, 190, 193};
  const std::int64_t rows = 80 * static_cast<std::int64_t>(gpu_info().sm_count);
  std::vector<std::int64_t> len(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) len[i] = cycle[i % cycle.size()];
  const std::int64_t inner = 7000;
  const Csr<double> a = random_rows(rows, inner, len, fresh_seed());
  const Csr<double> b = random_rows(inner, 300'001, std::vector<std::int64_t>(inner, 16), fresh_seed());
  check_both(a, b, "many_wide_rows");
}

TEST(CsrBinned, RowsOverEveryBinBoundaryNarrowRange) {
  REQUIRE_GPU();
  const std::vector<std::int64_t> len = sweep_lengths();
  const std::int64_t inner = 7000;
  const Csr<double> a = random_rows(static_cast<std::int64_t>(len.size()), inner, len, fresh_seed());
  for (std::int64_t cols : {100, 2047, 2048, 2049, 5000, 32768, 32769}) {
    const Csr<double> b = random_rows(inner, cols, std::vector<std::int64_t>(inner, std::min<std::int64_t>(16, cols)),
                                      fresh_seed());
    check_both(a, b, "sweep_narrow_" + std::to_string(cols));
  }
}

TEST(CsrBinned, ShortRowsOfBAndLongRowsOfB) {
  REQUIRE_GPU();
  for (std::int64_t blen : {1, 3, 12, 13, 40, 300}) {  // many rows of B per step of a group, or one over several
    const std::int64_t inner = 3001;
    std::vector<std::int64_t> len(997);
    for (std::size_t i = 0; i < len.size(); ++i) len[i] = static_cast<std::int64_t>(i * 7 % 61);
    const Csr<double> a = random_rows(static_cast<std::int64_t>(len.size()), inner, len, fresh_seed());
    const Csr<double> b = random_rows(inner, 50'000, std::vector<std::int64_t>(inner, blen), fresh_seed());
    check_both(a, b, "b_rows_of_" + std::to_string(blen));
  }
}

TEST(CsrBinned, OneHugeRowAndRectangular) {
  REQUIRE_GPU();
  std::vector<std::int64_t> len(333, 5);
  len[17] = 20'000;  // one row of A over most of B: ~400K products, windows across 100K columns
  const Csr<double> a = random_rows(333, 20'000, len, fresh_seed());
  const Csr<double> b = random_rows(20'000, 100'003, std::vector<std::int64_t>(20'000, 20), fresh_seed());
  check_both(a, b, "huge_row_333x20000_times_20000x100003");
  const Csr<double> t = random_rows(5, 3, {1, 0, 3, 2, 1}, fresh_seed());
  const Csr<double> u = random_rows(3, 70'000, {5000, 0, 70'000}, fresh_seed());
  check_both(t, u, "rectangular_5x3_times_3x70000");
}

// Short rows of A are merged by one thread each: rows of 1-20 entries (either side of the 8- and
// 16-head kernels) over rows of B of 0-40 entries, so products straddle the merge limit (16 x 32 = 512,
// 16 x 33 = 528); B narrow (every head repeats columns of the others: sums in A's order) and wide.
TEST(CsrBinned, MergedShortRowsAtTheirBoundaries) {
  REQUIRE_GPU();
  std::vector<std::int64_t> len;
  for (int rep = 0; rep < 40; ++rep)
    for (std::int64_t l = 0; l <= 20; ++l) len.push_back(l);
  for (std::int64_t blen : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{32}, std::int64_t{33}}) {
    for (std::int64_t cols : {std::int64_t{40}, std::int64_t{100'003}}) {
      const std::int64_t inner = 513;
      std::vector<std::int64_t> blens(inner);
      for (std::int64_t j = 0; j < inner; ++j) blens[j] = std::min(cols, j % 5 == 0 ? std::int64_t{0} : blen + j % 2);
      const Csr<double> a = random_rows(static_cast<std::int64_t>(len.size()), inner, len, fresh_seed());
      const Csr<double> b = random_rows(inner, cols, blens, fresh_seed());
      check_both(a, b, "merge_b" + std::to_string(blen) + "_cols" + std::to_string(cols));
    }
  }
}

// The merged rows' two numeric steps, one product a step and one column of C a step, each forced and
// chosen per warp: B narrow (8-40 columns: a row's products meet in few columns, 1.5-20 products per
// column) and wide (random columns: ~1 per column), rows of 0-20 entries (both head counts); each C
// against the reference, and both steps give the same bits (each sums in the order of A's row).
template <class T>
void check_merge_steps(const Csr<double>& a, const Csr<double>& b, const std::string& name) {
  SpgemmResult<T> by_step[2];
  for (int step : {0, 1, -1}) {
    SpgemmOptions o;
    o.merge_step = step;
    SpgemmResult<T> r = check_deterministic_product<T>(binned(), a, b, name + "_step" + std::to_string(step), false, o);
    if (step >= 0) by_step[step] = std::move(r);
  }
  const std::string where = name + (sizeof(T) == 4 ? " (float)" : " (double)");
  EXPECT_EQ(by_step[0].c.row_ptr, by_step[1].c.row_ptr) << where;
  EXPECT_EQ(by_step[0].c.col_idx, by_step[1].c.col_idx) << where;
  ASSERT_EQ(by_step[0].c.values.size(), by_step[1].c.values.size()) << where;
  EXPECT_EQ(0, by_step[0].c.values.empty() ? 0
                                          : std::memcmp(by_step[0].c.values.data(), by_step[1].c.values.data(),
                                                        by_step[0].c.values.size() * sizeof(T)))
      << where << ": one product a step and one column a step differ";
}

TEST(CsrBinned, MergedRowsOneProductOrOneColumnAStep) {
  REQUIRE_GPU();
  std::vector<std::int64_t> len;
  for (int rep = 0; rep < 50; ++rep)
    for (std::int64_t l = 0; l <= 20; ++l) len.push_back(l);
  const std::int64_t inner = 1031;
  for (std::int64_t cols : {std::int64_t{8}, std::int64_t{40}, std::int64_t{200'003}}) {
    std::vector<std::int64_t> blens(inner);
    for (std::int64_t j = 0; j < inner; ++j) blens[j] = std::min(cols, j % 7 == 0 ? std::int64_t{0} : 1 + j % 8);
    const Csr<double> a = random_rows(static_cast<std::int64_t>(len.size()), inner, len, fresh_seed());
    const Csr<double> b = random_rows(inner, cols, blens, fresh_seed());
    check_merge_steps<float>(a, b, "merge_steps_cols" + std::to_string(cols));
    check_merge_steps<double>(a, b, "merge_steps_cols" + std::to_string(cols));
  }
}

// Hub rows whose rows of B are short and spread over many windows are expanded, sorted and compressed:
// rows of 3,000-20,000 entries over 50-500 windows, rows of B of 0-3 entries (leaves, empty rows) mixed
// with a few of 5,000 (hubs reaching every window), beside short rows that walk as before; square and
// rectangular, each C against the reference and bit-identical between two runs.
TEST(CsrBinned, HubRowsExpanded) {
  REQUIRE_GPU();
  const std::int64_t inner = 30'011;
  std::vector<std::int64_t> blen(inner);
  for (std::int64_t j = 0; j < inner; ++j) blen[j] = j % 997 == 0 ? 5000 : j % 4;
  std::vector<std::int64_t> alen(1'203, 3);
  alen[0] = 20'000, alen[1] = 3'000, alen[600] = 9'999, alen[1'202] = 12'345;
  for (std::int64_t cols : {100'003, 1'000'000}) {
    const Csr<double> a = random_rows(static_cast<std::int64_t>(alen.size()), inner, alen, fresh_seed());
    const Csr<double> b = random_rows(inner, cols, blen, fresh_seed());
    check_both(a, b, "hub_rows_times_" + std::to_string(cols) + "_columns");
  }
  GenOptions g;
  g.family = "powerlaw";
  g.n = 40'000;
  g.seed = fresh_seed();
  const Csr<double> m = generate(g);
  check_both(m, m, "powerlaw_40000_squared", true);
}

// Hub rows are expanded and sorted by (row, column) keys of 32 bits where they fit; B of 2^24 + 3 columns
// (25 bits) under 400 hub rows of 700 entries (800 chunks, 10 bits) needs 64-bit keys.
TEST(CsrBinned, HubRowsWithWideSortKeys) {
  REQUIRE_GPU();
  const std::int64_t inner = 50'021, cols = (std::int64_t{1} << 24) + 3;
  std::vector<std::int64_t> blen(inner);
  for (std::int64_t j = 0; j < inner; ++j) blen[j] = j % 4;
  std::vector<std::int64_t> alen(1'000, 1);
  for (std::int64_t i = 0; i < 1'000; i += 5) alen[i] = 700;
  for (std::int64_t i = 1; i < 1'000; i += 5) alen[i] = i % 3;
  const Csr<double> a = random_rows(static_cast<std::int64_t>(alen.size()), inner, alen, fresh_seed());
  const Csr<double> b = random_rows(inner, cols, blen, fresh_seed());
  check_both(a, b, "hub_rows_times_2^24+3_columns");
}

// An entry of C fed by more products than one thread sums in order (a circuit's hub column: every row of
// B holds it) is summed by a warp: expanded rows of 200, 256, 257 and 5,000 entries whose rows of B all
// hold column 7 beside 1-2 columns scattered over 1M; the same bits on every run.
TEST(CsrBinned, ExpandedRunsLongerThanAThread) {
  REQUIRE_GPU();
  const std::int64_t inner = 6'007, cols = 1'000'003;
  std::vector<std::vector<std::int32_t>> b_cols(inner);
  for (std::int64_t j = 0; j < inner; ++j) {
    b_cols[j].push_back(7);
    for (std::int64_t k = 0; k < 1 + j % 2; ++k)
      b_cols[j].push_back(static_cast<std::int32_t>(8 + (j * 104'729 + k * 499'979) % (cols - 8)));
    std::sort(b_cols[j].begin(), b_cols[j].end());
    b_cols[j].erase(std::unique(b_cols[j].begin(), b_cols[j].end()), b_cols[j].end());
  }
  const Csr<double> b = random_csr(inner, cols, fresh_seed(), b_cols);
  const Csr<double> a = random_rows(6, inner, {200, 256, 257, 5'000, 3, 0}, fresh_seed());
  check_both(a, b, "long_runs_of_column_7");
}

// Expanded hub rows whose entries meet rows of B of 6,000 consecutive columns (one entry's products spread
// over many threads) beside rows of 0-2 scattered columns, under hub rows of A whose 1-2-entry rows of B
// spread over ~490 windows; square products of a wide matrix with empty rows, and rectangular ones.
TEST(CsrBinned, ExpandedHubRowsMeetLongRowsOfB) {
  REQUIRE_GPU();
  const std::int64_t inner = 20'011, cols = 1'000'003;
  std::vector<std::vector<std::int32_t>> b_cols(inner);
  for (std::int64_t j = 0; j < inner; ++j) {
    if (j % 500 == 7) {
      const std::int64_t start = (j * 7'919) % (cols - 6'000);
      for (std::int64_t k = 0; k < 6'000; ++k) b_cols[j].push_back(static_cast<std::int32_t>(start + k));
    } else {
      for (std::int64_t k = 0; k < j % 3; ++k)
        b_cols[j].push_back(static_cast<std::int32_t>((j * 104'729 + k * 499'979) % cols));
      std::sort(b_cols[j].begin(), b_cols[j].end());
    }
  }
  const Csr<double> b = random_csr(inner, cols, fresh_seed(), b_cols);
  std::vector<std::int64_t> alen(517, 2);
  alen[3] = 4'000, alen[100] = 8'000, alen[516] = 2'500;
  for (std::int64_t i = 200; i < 260; ++i) alen[i] = 0;  // empty rows between the hubs
  const Csr<double> a = random_rows(static_cast<std::int64_t>(alen.size()), inner, alen, fresh_seed());
  check_both(a, b, "hub_rows_over_window_segments");
  // Square: B's own rows as A (hub rows of 6,000 entries over B's short rows).
  const Csr<double> square = random_csr(inner, inner, fresh_seed(), [&] {
    std::vector<std::vector<std::int32_t>> c(inner);
    for (std::int64_t j = 0; j < inner; ++j)
      for (std::int32_t x : b_cols[j]) c[j].push_back(static_cast<std::int32_t>(x % inner));
    for (auto& r : c) std::sort(r.begin(), r.end()), r.erase(std::unique(r.begin(), r.end()), r.end());
    return c;
  }());
  check_both(square, square, "window_segments_squared", true);
}

// The numeric pass of a window accumulates in 256 or 1,024 shared slots when its symbolic count fits
// them, densely above: rows of A of 3-4 entries whose rows of B put exactly 1, 255, 256, 257, 1,023,
// 1,024, 1,025, 2,047 and 2,048 columns (scattered) into consecutive windows of 2,048 columns, every
// column reached by 2-3 rows of B (additions in A's order), and rows whose window counts run over
// 1-2,048; square products of the same pattern too.
TEST(CsrBinned, WindowTiersAtTheirBoundaries) {
  REQUIRE_GPU();
  const std::vector<std::int64_t> counts = {1, 255, 256, 257, 1'023, 1'024, 1'025, 2'047, 2'048};
  const std::int64_t windows = static_cast<std::int64_t>(counts.size()), cols = windows * 2'048;
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::vector<std::int32_t>> b_cols(12);
  for (std::int64_t w = 0; w < windows; ++w) {
    std::vector<std::int32_t> pick(2'048);
    for (std::int32_t c = 0; c < 2'048; ++c) pick[c] = static_cast<std::int32_t>(w * 2'048 + c);
    std::shuffle(pick.begin(), pick.end(), rng);
    pick.resize(static_cast<std::size_t>(counts[w]));
    if (w == 0) pick[0] = 0;  // the row's first column: window 0 starts at column 0
    for (std::size_t k = 0; k < pick.size(); ++k) {
      b_cols[k % 3].push_back(pick[k]);          // rows 0-2: each column once
      b_cols[3 + k % 2].push_back(pick[k]);      // rows 3-4: each column again
      if (k % 3 == 0) b_cols[5].push_back(pick[k]);  // row 5: every third column a third time
    }
  }
  b_cols[0].push_back(static_cast<std::int32_t>(cols - 1));  // the row's last column: nine whole windows
  b_cols[6].push_back(static_cast<std::int32_t>(cols - 1));
  for (std::int64_t j = 7; j < 12; ++j)  // rows whose windows fill 1-2,048 columns at random
    for (std::int64_t w = 0; w < windows; ++w)
      for (std::int32_t c = 0; c < 2'048; ++c)
        if (rng() % 12 <= static_cast<std::uint64_t>(j - 7) * 3) b_cols[j].push_back(static_cast<std::int32_t>(w * 2'048 + c));
  for (auto& r : b_cols) std::sort(r.begin(), r.end()), r.erase(std::unique(r.begin(), r.end()), r.end());
  const Csr<double> b = random_csr(12, cols, fresh_seed(), b_cols);
  const Csr<double> a = random_csr(
      6, 12, fresh_seed(), std::vector<std::vector<std::int32_t>>{{0, 1, 2, 3}, {0, 1, 2, 5}, {3, 4, 6}, {7, 8, 9}, {10, 11, 6}, {0, 3, 5, 6}});
  check_both(a, b, "window_tiers");
}

// With discard_result the product runs on the device and returns an empty C, its stages ending before
// any download; the next product (kept) is the full C. Both CSR kernels honour it.
TEST(CsrBinned, DiscardedProductsStayOnTheDevice) {
  REQUIRE_GPU();
  struct Listing final : SpgemmStageRecorder {
    std::vector<std::string> names;
    void begin_stage(const char* name, bool, StageSite) override { names.emplace_back(name); }
    void end_stages() override { names.emplace_back("end"); }
  };
  GenOptions g;
  g.family = "powerlaw";
  g.n = 5'000;
  g.seed = fresh_seed();
  const Csr<double> m = generate(g);
  for (const char* name : {"cuda.csr.binned", "cuda.csr.hash"}) {
    const SpgemmKernelInfo* k = spgemm_registry().find(name);
    ASSERT_NE(k, nullptr) << name;
    Listing listing;
    SpgemmOptions o;
    o.recorder = &listing;
    o.discard_result = true;
    o.keep_device_pool = true;
    const SpgemmResult<double> gone = k->run_f64(m, m, o);
    EXPECT_EQ(gone.c.nnz(), 0) << name;
    EXPECT_TRUE(gone.c.row_ptr.empty()) << name;
    EXPECT_EQ(std::count(listing.names.begin(), listing.names.end(), "download"), 0) << name;
    ASSERT_FALSE(listing.names.empty());
    EXPECT_EQ(listing.names.back(), "end") << name;
    o.discard_result = false, o.keep_device_pool = false, o.recorder = nullptr;
    const SpgemmResult<double> kept = k->run_f64(m, m, o);
    const SpgemmCheck chk = check_spgemm(m, m, kept.c, 0x1p-53);
    EXPECT_TRUE(chk.ok) << name << ": " << chk.message;
  }
}

// B's rows 2k and 2k+1 hold the same columns with opposite dyadic values and A's row is all ones: every
// entry of C sums v - v + w - w ... in A's order, exactly zero, so C is empty. Wide B: hash bins; narrow
// B: dense windows.
TEST(CsrBinned, ExactCancellationIsDropped) {
  REQUIRE_GPU();
  for (std::int64_t cols : {600, 50'000}) {
    const std::int64_t pairs = 200;
    Csr<double> b = random_rows(2 * pairs, cols, std::vector<std::int64_t>(2 * pairs, 150), fresh_seed());
    for (std::int64_t k = 0; k < pairs; ++k) {
      const std::int64_t r0 = b.row_ptr[2 * k], r1 = b.row_ptr[2 * k + 1];
      for (std::int64_t p = 0; p < 150; ++p) {
        b.col_idx[r1 + p] = b.col_idx[r0 + p];
        b.values[r0 + p] = 0.25 * static_cast<double>(1 + (p + k) % 4);
        b.values[r1 + p] = -b.values[r0 + p];
      }
    }
    for (const std::int64_t row_len : {std::int64_t{2}, std::int64_t{20}, 2 * pairs}) {
      std::vector<std::vector<std::int32_t>> cols_of(3);
      for (std::int32_t j = 0; j < row_len; ++j) cols_of[1].push_back(j);
      Csr<double> a = random_csr(3, 2 * pairs, 1, cols_of);
      for (double& v : a.values) v = 1.0;
      for (int t = 0; t < 2; ++t) {
        const std::string name = "cancel_" + std::to_string(cols) + "_" + std::to_string(row_len);
        if (t == 0) {
          const SpgemmResult<double> r = binned().run_f64(a, b, SpgemmOptions{});
          EXPECT_EQ(r.c.nnz(), 0) << name;
        } else {
          const SpgemmResult<float> r = binned().run_f32(csr_cast<float>(a), csr_cast<float>(b), SpgemmOptions{});
          EXPECT_EQ(r.c.nnz(), 0) << name << " (float)";
        }
      }
    }
  }
}

TEST(CsrBinned, TinyAndEmptyShapes) {
  REQUIRE_GPU();
  const Csr<double> one = random_rows(1, 1, {1}, fresh_seed());
  check_both(one, one, "1x1", true);
  const Csr<double> empty_rows = random_rows(9, 9, std::vector<std::int64_t>(9, 0), fresh_seed());
  check_both(empty_rows, empty_rows, "9x9_no_entries", true);
  Csr<double> zero;
  zero.row_ptr = {0};
  check_both(zero, zero, "0x0", true);
  const Csr<double> a = random_rows(4, 6, {2, 0, 6, 1}, fresh_seed());
  Csr<double> no_cols;
  no_cols.rows = 6, no_cols.cols = 0, no_cols.row_ptr.assign(7, 0);
  check_both(a, no_cols, "4x6_times_6x0");
}

TEST(CsrBinned, GraphsRmatAndPowerLaw) {
  REQUIRE_GPU();
  for (const char* family : {"rmat", "powerlaw", "random", "fem_mesh"}) {
    GenOptions g;
    g.family = family;
    g.n = std::string(family) == "fem_mesh" ? 12 : 6000;
    g.seed = fresh_seed();
    if (std::string(family) == "fem_mesh") g.ordering = "random";
    const Csr<double> m = generate(g);
    check_both(m, m, std::string(family) + "_squared", true);
  }
}

TEST(CsrBinned, RefusesUnsortedB) {
  REQUIRE_GPU();
  Csr<double> b = random_rows(3, 10, {3, 3, 3}, fresh_seed());
  std::swap(b.col_idx[3], b.col_idx[4]);
  const Csr<double> a = random_rows(2, 3, {2, 2}, fresh_seed());
  EXPECT_THROW(binned().run_f64(a, b, SpgemmOptions{}), Error);
}

}  // namespace
}  // namespace spkit::test
