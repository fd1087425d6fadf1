// compute_stats: every figure on a hand-checked matrix, edge cases (0x0, 1x1, no entries), and a
// brute-force cross-check (set of blocks, explicit padding) on generated and edge-case matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/stats.hpp"

namespace spkit::test {
namespace {

Csr<double> from_rows(std::int64_t rows, std::int64_t cols, const std::vector<std::vector<std::int32_t>>& r) {
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.push_back(0);
  for (const auto& row : r) {
    for (auto c : row) {
      a.col_idx.push_back(c);
      a.values.push_back(1.5);
    }
    a.row_ptr.push_back(static_cast<std::int64_t>(a.col_idx.size()));
  }
  check_csr(a);
  return a;
}

// 10 x 12, 12 non-zeros, rows 1 and 4..7 empty:
//   row 0: 0 1 9      row 2: 2      row 3: 0 8 9 10 11      row 8: 8      row 9: 0 11
// 8x8 blocks: (0,0) holds r0c0 r0c1 r2c2 r3c0 = 4; (0,1) holds r0c9 r3c8..r3c11 = 5;
//             (1,0) holds r9c0 = 1; (1,1) holds r8c8 r9c11 = 2.
Csr<double> hand_matrix() {
  return from_rows(10, 12, {{0, 1, 9}, {}, {2}, {0, 8, 9, 10, 11}, {}, {}, {}, {}, {8}, {0, 11}});
}

TEST(Stats, HandCheckedMatrix) {
  const MatrixStats s = compute_stats(hand_matrix(), 4);
  EXPECT_EQ(s.rows, 10);
  EXPECT_EQ(s.cols, 12);
  EXPECT_EQ(s.nnz, 12);
  // Lengths 3 0 1 5 0 0 0 0 1 2: mean 1.2, E[len^2] = 40/10 = 4, variance 4 - 1.44 = 2.56.
  EXPECT_EQ(s.row_nnz_min, 0);
  EXPECT_EQ(s.row_nnz_max, 5);
  EXPECT_DOUBLE_EQ(s.row_nnz_mean, 1.2);
  EXPECT_NEAR(s.row_nnz_std, 1.6, 1e-12);
  EXPECT_EQ(s.empty_rows, 5);
  EXPECT_EQ(s.max_diag_distance, 9);  // (0, 9) and (9, 0)
  // ELL: 10 rows x width 5 = 50 slots for 12 entries.
  EXPECT_EQ(s.ell_width, 5);
  EXPECT_DOUBLE_EQ(s.ell_padding_ratio, 38.0 / 12.0);
  // HLL, hack 4: widths 5, 0, 2 over 4, 4, 2 rows = 24 slots.
  EXPECT_EQ(s.hack_size, 4);
  EXPECT_DOUBLE_EQ(s.hll_padding_ratio, 12.0 / 12.0);
  // HYB: ceil(10/3) = 4th longest row has 1 entry; overflow 2 + 4 + 1 = 7.
  EXPECT_EQ(s.hyb_width, 1);
  EXPECT_EQ(s.hyb_coo_entries, 7);
  // bmSparse: 4 blocks holding 4, 5, 1 and 2.
  EXPECT_EQ(s.bm_blocks, 4);
  EXPECT_DOUBLE_EQ(s.bm_nnz_per_block, 3.0);
  for (int k = 0; k <= 64; ++k)
    EXPECT_EQ(s.bm_block_histogram[k], (k == 1 || k == 2 || k == 4 || k == 5) ? 1 : 0) << "k = " << k;
  // Bytes (fp64 / fp32).
  EXPECT_EQ(s.bytes_coo.f64, 12u * 16);
  EXPECT_EQ(s.bytes_coo.f32, 12u * 12);
  EXPECT_EQ(s.bytes_csr.f64, 11u * 8 + 12 * 12);
  EXPECT_EQ(s.bytes_csr.f32, 11u * 8 + 12 * 8);
  EXPECT_EQ(s.bytes_ell.f64, 50u * 12);
  EXPECT_EQ(s.bytes_ell.f32, 50u * 8);
  EXPECT_EQ(s.bytes_hll.f64, 4u * 8 + 3 * 4 + 24 * 12);  // hack offsets, hack widths, slots
  EXPECT_EQ(s.bytes_hll.f32, 4u * 8 + 3 * 4 + 24 * 8);
  EXPECT_EQ(s.bytes_hyb.f64, 10u * 12 + 7 * 16);  // ELL part 10 x 1, COO part 7
  EXPECT_EQ(s.bytes_hyb.f32, 10u * 8 + 7 * 12);
  EXPECT_EQ(s.bytes_bmsparse.f64, 4u * 8 + 4 * 8 + 5 * 8 + 3 * 8 + 12 * 8);  // keys, bitmaps, offsets, block_row_ptr
  EXPECT_EQ(s.bytes_bmsparse.f32, 4u * 8 + 4 * 8 + 5 * 8 + 3 * 8 + 12 * 4);

  // The default hack size 32: one hack of width 5, padding as ELL.
  const MatrixStats d = compute_stats(hand_matrix());
  EXPECT_EQ(d.hack_size, 32);
  EXPECT_DOUBLE_EQ(d.hll_padding_ratio, 38.0 / 12.0);
}

TEST(Stats, DenseBlockAndFullHistogramEnd) {
  // A dense 8x8 block plus one entry: histogram[64] and [1].
  std::vector<std::vector<std::int32_t>> r(9);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) r[i].push_back(j);
  r[8] = {20};
  const MatrixStats s = compute_stats(from_rows(9, 21, r));
  EXPECT_EQ(s.bm_blocks, 2);
  EXPECT_EQ(s.bm_block_histogram[64], 1);
  EXPECT_EQ(s.bm_block_histogram[1], 1);
  EXPECT_EQ(s.max_diag_distance, 12);
  EXPECT_EQ(s.hyb_width, 8);  // ceil(9/3) = 3rd longest
  EXPECT_EQ(s.hyb_coo_entries, 0);
}

TEST(Stats, EmptyAndTinyMatrices) {
  Csr<double> empty;
  empty.row_ptr = {0};
  MatrixStats s = compute_stats(empty);
  EXPECT_EQ(s.rows, 0);
  EXPECT_EQ(s.nnz, 0);
  EXPECT_EQ(s.bm_blocks, 0);
  EXPECT_EQ(s.ell_padding_ratio, 0.0);
  EXPECT_EQ(s.bytes_csr.f64, 8u);
  EXPECT_EQ(s.bytes_bmsparse.f64, 8u + 8u);  // offsets[0] and block_row_ptr[0]

  auto one = from_rows(1, 1, {{0}});
  s = compute_stats(one);
  EXPECT_EQ(s.row_nnz_min, 1);
  EXPECT_EQ(s.row_nnz_std, 0.0);
  EXPECT_EQ(s.bm_blocks, 1);
  EXPECT_EQ(s.bm_block_histogram[1], 1);
  EXPECT_EQ(s.hyb_width, 1);

  auto no_entries = from_rows(5, 3, {{}, {}, {}, {}, {}});
  s = compute_stats(no_entries);
  EXPECT_EQ(s.empty_rows, 5);
  EXPECT_EQ(s.ell_width, 0);
  EXPECT_EQ(s.ell_padding_ratio, 0.0);
  EXPECT_EQ(s.hll_padding_ratio, 0.0);
  EXPECT_EQ(s.bm_nnz_per_block, 0.0);

  EXPECT_THROW(compute_stats(one, 0), Error);
}

// The same figures the slow, obvious way.
void expect_matches_brute_force(const Csr<double>& a, int hack) {
  const MatrixStats s = compute_stats(a, hack);
  std::map<std::pair<std::int64_t, std::int64_t>, int> blocks;
  std::set<std::int64_t> diagonals;
  std::map<std::pair<std::int64_t, std::int64_t>, double> entries;
  std::int64_t max_len = 0, min_len = a.rows ? a.row_length(0) : 0, empty = 0, dist = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    max_len = std::max(max_len, a.row_length(i));
    min_len = std::min(min_len, a.row_length(i));
    empty += a.row_length(i) == 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      ++blocks[{i / 8, a.col_idx[k] / 8}];
      diagonals.insert(a.col_idx[k] - i);
      entries[{i, a.col_idx[k]}] = a.values[k];
      dist = std::max<std::int64_t>(dist, std::abs(a.col_idx[k] - i));
    }
  }
  EXPECT_EQ(s.row_nnz_max, max_len);
  EXPECT_EQ(s.row_nnz_min, min_len);
  EXPECT_EQ(s.empty_rows, empty);
  EXPECT_EQ(s.max_diag_distance, dist);
  EXPECT_EQ(s.diagonals, static_cast<std::int64_t>(diagonals.size()));
  bool symmetric = a.rows == a.cols;
  for (const auto& [ij, v] : entries) {
    const auto mirror = entries.find({ij.second, ij.first});
    if (mirror == entries.end() || mirror->second != v) symmetric = false;
  }
  EXPECT_EQ(s.symmetric, symmetric);
  EXPECT_EQ(s.bm_blocks, static_cast<std::int64_t>(blocks.size()));
  std::array<std::int64_t, 65> hist{};
  for (const auto& b : blocks) ++hist[b.second];
  EXPECT_EQ(s.bm_block_histogram, hist);
  std::int64_t hll_slots = 0;
  for (std::int64_t h = 0; h * hack < a.rows; ++h) {
    std::int64_t w = 0, rows_in = 0;
    for (std::int64_t i = h * hack; i < std::min(a.rows, (h + 1) * hack); ++i, ++rows_in) w = std::max(w, a.row_length(i));
    hll_slots += w * rows_in;
  }
  if (a.nnz() > 0) {
    EXPECT_NEAR(s.hll_padding_ratio, static_cast<double>(hll_slots - a.nnz()) / a.nnz(), 1e-12);
    EXPECT_NEAR(s.ell_padding_ratio, static_cast<double>(a.rows * max_len - a.nnz()) / a.nnz(), 1e-12);
  }
  // HYB rule: at least a third of the rows have >= K entries, fewer than a third have >= K + 1.
  auto rows_at_least = [&](std::int64_t k) {
    std::int64_t c = 0;
    for (std::int64_t i = 0; i < a.rows; ++i) c += a.row_length(i) >= k;
    return c;
  };
  if (a.rows > 0) {
    EXPECT_GE(3 * rows_at_least(s.hyb_width), a.rows);
    EXPECT_LT(3 * rows_at_least(s.hyb_width + 1), a.rows);
  }
}

TEST(Stats, MatchesBruteForceOnTestMatrices) {
  for (const auto& m : edge_case_matrices()) {
    SCOPED_TRACE(m.name);
    expect_matches_brute_force(m.a, 32);
    expect_matches_brute_force(m.a, 5);
  }
  for (const auto& m : family_matrices()) {
    SCOPED_TRACE(m.name);
    expect_matches_brute_force(m.a, 32);
    expect_matches_brute_force(m.a, 7);
  }
}

// Real matrices as listed in a MANIFEST.tsv (whatever it holds): sizes, stored entries, field and
// symmetry as declared, and every figure against the brute force.
void expect_stats_match_manifest(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::ifstream manifest(dir / "MANIFEST.tsv");
  ASSERT_TRUE(manifest) << "missing " << (dir / "MANIFEST.tsv").string();
  std::string line;
  std::getline(manifest, line);  // header
  int checked = 0;
  while (std::getline(manifest, line)) {
    std::istringstream in(line);
    std::string name, field, symmetry;
    std::int64_t rows, cols, stored, nnz;
    if (!(in >> name >> rows >> cols >> stored >> nnz >> field >> symmetry)) continue;
    fs::path file = dir / (name + ".mtx.gz");
    if (!fs::exists(file)) file = dir / (name + ".mtx");
    if (!fs::exists(file) || fs::file_size(file) > 64u * 1024 * 1024) continue;
    SCOPED_TRACE(name);
    MmHeader header;
    const Csr<double> a = load_matrix(file.string(), &header);
    const MatrixStats s = compute_stats(a);
    EXPECT_EQ(s.rows, rows);
    EXPECT_EQ(s.cols, cols);
    EXPECT_EQ(s.nnz, nnz);
    EXPECT_EQ(header.stored_entries, stored);
    EXPECT_EQ(std::string(to_string(header.field)), field);
    EXPECT_EQ(std::string(to_string(header.symmetry)), symmetry);
    EXPECT_NEAR(s.row_nnz_mean, static_cast<double>(nnz) / rows, 1e-12);
    expect_matches_brute_force(a, 32);
    ++checked;
  }
  EXPECT_GT(checked, 0) << "MANIFEST.tsv lists no matrix found in " << dir.string();
}

TEST(Stats, RepositoryMatricesFromManifest) { expect_stats_match_manifest(repo_matrices_dir()); }

TEST(Stats, SharedMatricesFromManifest) {
  const auto dir = shared_matrices_dir();
  if (!dir) GTEST_SKIP() << "no ../shared/matrices beside this checkout (a user's clone has none)";
  expect_stats_match_manifest(*dir);
}

TEST(Stats, HubColumnShareCountsTheMostUsedHundredth) {
  // 200 columns: the top 1% are 2 columns. Column 7 in every row, column 150 in half of them, the rest once.
  std::vector<std::vector<std::int32_t>> rows;
  for (std::int32_t i = 0; i < 100; ++i) {
    std::vector<std::int32_t> r{7};
    if (i % 2 == 0) r.push_back(150);
    const std::int32_t own = 10 + i;  // 10..109: used once each
    r.push_back(own);
    std::sort(r.begin(), r.end());
    rows.push_back(r);
  }
  const MatrixStats s = compute_stats(from_rows(100, 200, rows));
  EXPECT_DOUBLE_EQ(s.hub_column_share, (100.0 + 50.0) / 250.0);
  // Fewer than 100 columns: the single most used one.
  const MatrixStats t = compute_stats(from_rows(2, 3, {{0, 2}, {2}}));
  EXPECT_DOUBLE_EQ(t.hub_column_share, 2.0 / 3.0);
  EXPECT_EQ(compute_stats(from_rows(3, 4, {{}, {}, {}})).hub_column_share, 0.0);
}

}  // namespace
}  // namespace spkit::test
