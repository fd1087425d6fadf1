// CPU Gustavson SpGEMM on rows of every shape the dense accumulator emits differently (src/spgemm/cpu):
// short rows spread over many columns (sorted, written through the small row buffer), long rows in
// dense bands (scanned, written in place), rows either side of the buffer's length limit, rows mixing
// both, empty rows and one huge row, in a rectangular product; and auto's CPU rule on the families
// whose rows of C are short (road, stencils), where it keeps the dense accumulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spgemm/cpu/gustavson.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

using detail::GustavsonAccumulator;
using detail::GustavsonRoute;

static_assert(tuning::spgemm::kOnePassBufferedRowEntries == 32, "mixed_a's band rows straddle the row buffer's limit");

constexpr std::int64_t kSpreadRows = 3000;  // rows of B with two far-apart columns; the rest are bands

// B: 6007 x 9001. Rows below kSpreadRows hold two columns thousands apart; the others a band of 8
// consecutive columns that starts 2 further each row, so k consecutive band rows give 6 + 2k columns.
Csr<double> mixed_b(std::uint64_t seed) {
  const std::int64_t rows = 6007, cols = 9001;
  std::vector<std::vector<std::int32_t>> pattern(static_cast<std::size_t>(rows));
  for (std::int64_t j = 0; j < rows; ++j) {
    auto& r = pattern[static_cast<std::size_t>(j)];
    if (j < kSpreadRows) {
      const auto x = static_cast<std::int32_t>((j * 7919) % cols);
      const auto y = static_cast<std::int32_t>((j * 104729 + 13) % cols);
      r = x == y ? std::vector<std::int32_t>{x} : std::vector<std::int32_t>{std::min(x, y), std::max(x, y)};
    } else {
      const auto first = static_cast<std::int32_t>(((j - kSpreadRows) * 2) % (cols - 8));
      for (std::int32_t c = 0; c < 8; ++c) r.push_back(first + c);
    }
  }
  return random_csr(rows, cols, seed, pattern);
}

// A: 5003 x 6007. By i % 6: empty; three spread rows of B (~6 columns over thousands: sorted); k
// consecutive band rows, k = 1..16 (8..38 columns in one or two 64-column blocks: scanned; the row
// buffer takes rows up to 32 entries, so k = 13 and 14 sit either side of it); two spread rows and
// four band rows (a band and far columns); one band row; a spread row. Row 2501 reaches 1500 band
// rows (one huge row).
Csr<double> mixed_a(std::uint64_t seed) {
  const std::int64_t rows = 5003, b_rows = 6007;
  std::mt19937_64 rng(seed);
  const auto spread = [&] { return static_cast<std::int32_t>(rng() % kSpreadRows); };
  const auto band = [&](std::int64_t room) {
    return static_cast<std::int32_t>(kSpreadRows + rng() % (b_rows - kSpreadRows - room));
  };
  std::vector<std::vector<std::int32_t>> pattern(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) {
    std::vector<std::int32_t> r;
    switch (i % 6) {
      case 0: break;
      case 1: r = {spread(), spread(), spread()}; break;
      case 2: {
        const std::int64_t k = 1 + (i / 6) % 16;
        const std::int32_t j = band(k);
        for (std::int32_t d = 0; d < k; ++d) r.push_back(j + d);
        break;
      }
      case 3: {
        r = {spread(), spread()};
        const std::int32_t j = band(4);
        for (std::int32_t d = 0; d < 4; ++d) r.push_back(j + d);
        break;
      }
      case 4: r = {band(1)}; break;
      default: r = {spread()};
    }
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    pattern[static_cast<std::size_t>(i)] = std::move(r);
  }
  auto& huge = pattern[2501];
  huge.clear();
  for (std::int32_t j = 0; j < 1500; ++j) huge.push_back(static_cast<std::int32_t>(kSpreadRows + 2 * j));
  return random_csr(rows, b_rows, seed + 1, pattern);
}

template <class T>
void check_mixed_rows(std::uint64_t seed) {
  const Csr<T> a = csr_cast<T>(mixed_a(seed)), b = csr_cast<T>(mixed_b(seed + 2));
  const Csr<double> ref = spgemm_reference(csr_cast<double>(a), csr_cast<double>(b));
  Csr<T> first;
  bool have_first = false;
  for (GustavsonAccumulator acc : {GustavsonAccumulator::dense, GustavsonAccumulator::hash})
    for (GustavsonRoute route : {GustavsonRoute::automatic, GustavsonRoute::one_pass_copied,
                                 GustavsonRoute::one_pass_stolen, GustavsonRoute::one_pass_assembled,
                                 GustavsonRoute::two_pass})
      for (int threads : {1, 2, 3, 5}) {
        SCOPED_TRACE(std::string(sizeof(T) == 4 ? "float" : "double") +
                     (acc == GustavsonAccumulator::dense ? ", dense" : ", hash") + ", route " +
                     std::to_string(static_cast<int>(route)) + ", threads " + std::to_string(threads) + ", seed " +
                     std::to_string(seed));
        SpgemmOptions o;
        o.threads = threads;
        const Csr<T> c = detail::cpu_gustavson(a, b, o, acc, route).c;
        ASSERT_NO_THROW(check_csr(c));
        ASSERT_EQ(c.row_ptr, ref.row_ptr) << "no entry of C is an exact zero here: the reference's structure";
        ASSERT_EQ(c.col_idx, ref.col_idx);
        const SpgemmCheck v = check_spgemm(a, b, c, sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
        ASSERT_TRUE(v.ok) << v.message;
        if (!have_first) {
          first = c, have_first = true;
          continue;
        }
        ASSERT_EQ(c.values, first.values) << "every route, accumulator and thread count sums in one order";
      }
}

TEST(SpgemmCpuRows, SortedScannedBufferedAndInPlaceRowsAgree) {
  const std::uint64_t seed = fresh_seed();
  const Csr<double> a = mixed_a(seed), b = mixed_b(seed + 2);
  // The matrix holds what its comment says: rows of C on both sides of the row buffer's limit (32).
  const Csr<double> ref = spgemm_reference(a, b);
  int at_limit = 0, past_limit = 0;
  for (std::int64_t i = 0; i < ref.rows; ++i) {
    at_limit += ref.row_length(i) == 32;
    past_limit += ref.row_length(i) == 34;
  }
  EXPECT_GT(at_limit, 0);
  EXPECT_GT(past_limit, 0);
  EXPECT_GT(ref.row_length(2501), 2048) << "the huge row outgrows the row buffer";
  check_mixed_rows<float>(seed);
  check_mixed_rows<double>(seed);
}

// Auto's CPU rule on the generated families of issue 28's losing rows (short rows of C, where the dense
// accumulator now sorts them rather than scanning their span): the dense accumulator, hash second; the
// hash accumulator first only when B is too wide for a dense row per thread.
TEST(SpgemmCpuRows, CpuRuleKeepsTheDenseAccumulatorOnShortRows) {
  struct Family {
    const char* family;
    int points;
    std::int64_t n;
  };
  for (const Family& f : {Family{"road", 0, 60}, Family{"road_planar", 0, 60}, Family{"lap2d", 0, 101},
                          Family{"lap3d", 7, 23}, Family{"lap3d", 27, 17}, Family{"powerlaw", 0, 5003}}) {
    GenOptions o;
    o.family = f.family;
    o.n = f.n;
    if (f.points) o.points = f.points;
    const Csr<double> a = generate(o);
    const MatrixStats s = spgemm_selector_stats(a);
    SCOPED_TRACE(std::string(f.family) + " " + std::to_string(f.points));
    const auto c = spgemm_candidates(s, a.cols, Backend::cpu, Precision::f64);
    ASSERT_GE(c.size(), 2u);
    EXPECT_EQ(c[0].kernel, "cpu.csr.gustavson_dense");
    EXPECT_EQ(c[1].kernel, "cpu.csr.gustavson_hash");
    const auto wide = spgemm_candidates(s, std::int64_t{1} << 30, Backend::cpu, Precision::f64);
    EXPECT_EQ(wide[0].kernel, "cpu.csr.gustavson_hash");
  }
}

}  // namespace
}  // namespace spkit::test
