// load_matrix: gzip told by content (several members, truncation, corruption), files in every entry order
// and symmetry against the reference conversion, and the repository's (and ../shared's) matrices
// against their manifests.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "formats/csr_reference.hpp"
#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"

using namespace spkit;
using namespace spkit::csr_test;
using namespace spkit::mm_test;

TEST(MatrixMarketFiles, GzipIsDetectedByContentAndTruncationIsAnError) {
  const Csr<double> a = random_csr(200, 150, 0.05, seed_now());
  const fs::path plain = scratch_dir() / "g.mtx";
  write_matrix_market(plain.string(), a);
  const std::string text = read_bytes(plain);
  const fs::path gz = scratch_dir() / "g.mtx.gz", odd = scratch_dir() / "g_no_suffix";
  write_gzip(gz, text);
  write_gzip(odd, text);
  expect_same(a, load_matrix(gz.string()));
  expect_same(a, load_matrix(odd.string()));
  EXPECT_EQ(read_matrix_market_header(gz.string()).stored_entries, a.nnz());
  // Two concatenated gzip members are one file.
  const std::string half1 = text.substr(0, text.size() / 2), half2 = text.substr(text.size() / 2);
  const fs::path m1 = scratch_dir() / "m1.gz", m2 = scratch_dir() / "m2.gz", both = scratch_dir() / "both.mtx.gz";
  write_gzip(m1, half1);
  write_gzip(m2, half2);
  write_text(both, read_bytes(m1) + read_bytes(m2));
  expect_same(a, load_matrix(both.string()));
  // Truncated and corrupted gzip.
  const std::string z = read_bytes(gz);
  const fs::path cut = scratch_dir() / "cut.mtx.gz";
  write_text(cut, z.substr(0, z.size() * 2 / 3));
  try {
    load_matrix(cut.string());
    FAIL() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated gzip"), std::string::npos) << e.what();
    EXPECT_EQ(e.source(), cut.string());
    EXPECT_GT(e.line(), 1);
  }
  std::string flipped = z;
  flipped[flipped.size() / 2] ^= 0x55;
  write_text(cut, flipped);
  EXPECT_THROW(load_matrix(cut.string()), ParseError);
}

// load_matrix takes over the parsed arrays (the consuming conversion): on a file in random order with
// duplicates it must give what the copying coo_to_csr gives, for several thread counts.
TEST(MatrixMarketFiles, LoadMatrixOfAnUnsortedFileWithDuplicates) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int rows = 3001, cols = 257, n = 120000;
  std::string text = "%%MatrixMarket matrix coordinate integer general\n" + std::to_string(rows) + " " +
                     std::to_string(cols) + " " + std::to_string(n) + "\n";
  for (int k = 0; k < n; ++k) {
    const int r = (rng() % 3 == 0) ? 7 : static_cast<int>(rng() % rows);  // one long row, many duplicates
    text += std::to_string(r + 1) + " " + std::to_string(rng() % cols + 1) + " " +
            std::to_string(static_cast<int>(rng() % 201) - 100) + "\n";
  }
  const fs::path p = scratch_dir() / "unsorted.mtx";
  write_text(p, text);
  const Csr<double> want = parse_csr(text, 1);
  check_csr(want);
  const int saved = omp_get_max_threads();
  for (int t : {1, 2, 3}) {
    omp_set_num_threads(t);
    ReadOptions o;
    o.threads = t;
    expect_same(want, load_matrix(p.string(), nullptr, o));
  }
  omp_set_num_threads(saved);
}

// load_matrix against the reference on files whose entries are shuffled, in reverse order, or sorted,
// with duplicates whose sums depend on the order, for general, symmetric, skew-symmetric and pattern
// files (mirrored entries come after the stored ones, in their order, as the reader appends them).
TEST(MatrixMarketFiles, LoadMatrixMatchesTheReferenceForEveryEntryOrderAndSymmetry) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = 4000, stored = 150000;
  for (const char* symmetry : {"general", "symmetric", "skew-symmetric"}) {
    for (const char* field : {"real", "pattern"}) {
      if (std::string(field) == "pattern" && std::string(symmetry) == "skew-symmetric") continue;
      std::vector<Entry> entries;
      for (std::int64_t k = 0; k < stored; ++k) {
        std::int64_t r = static_cast<std::int64_t>(rng() % n), c = static_cast<std::int64_t>(rng() % 64);
        if (std::string(symmetry) != "general" && c > r) std::swap(r, c);  // lower triangle
        if (std::string(symmetry) == "skew-symmetric" && r == c) r = (r + 1) % n, c = 0;
        if (std::string(symmetry) == "skew-symmetric" && r == c) continue;
        entries.push_back({r, c, std::string(field) == "pattern" ? 1.0 : order_sensitive_value(rng)});
      }
      for (int order = 0; order < 3; ++order) {
        SCOPED_TRACE(std::string(symmetry) + " " + field + " order " + std::to_string(order));
        if (order == 0) std::shuffle(entries.begin(), entries.end(), rng);
        if (order > 0)
          std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
            return a.row != b.row ? a.row < b.row : a.col < b.col;
          });
        if (order == 1) std::reverse(entries.begin(), entries.end());
        std::string text = std::string("%%MatrixMarket matrix coordinate ") + field + " " + symmetry + "\n" +
                           std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(entries.size()) + "\n";
        for (const Entry& e : entries) {
          text += std::to_string(e.row + 1) + " " + std::to_string(e.col + 1);
          if (std::string(field) == "real") {
            char buf[32];
            text += " ";
            text.append(buf, std::to_chars(buf, buf + sizeof buf, e.value).ptr);  // reads back exactly
          }
          text += "\n";
        }
        std::vector<Entry> expanded = entries;
        const double sign = std::string(symmetry) == "skew-symmetric" ? -1.0 : 1.0;
        if (std::string(symmetry) != "general")
          for (const Entry& e : entries)
            if (e.row != e.col) expanded.push_back({e.col, e.row, sign * e.value});
        const Csr<double> want = reference_csr(n, n, expanded, true);
        const fs::path p = scratch_dir() / "ordered.mtx";
        write_text(p, text);
        const int saved = omp_get_max_threads();
        for (int t : {1, 2, 3}) {
          omp_set_num_threads(t);
          ReadOptions o;
          o.threads = t;
          expect_same(load_matrix(p.string(), nullptr, o), want);
        }
        omp_set_num_threads(saved);
      }
    }
  }
}

// Every matrix a MANIFEST.tsv lists is there, reads as declared and survives a .spkb round trip.
void expect_matrices_match_manifest(const fs::path& dir) {
  std::ifstream manifest(dir / "MANIFEST.tsv");
  ASSERT_TRUE(manifest) << "missing " << (dir / "MANIFEST.tsv");
  std::string line;
  std::getline(manifest, line);  // header
  int checked = 0;
  while (std::getline(manifest, line)) {
    if (line.empty()) continue;
    std::istringstream ss(line);
    std::string name, field, symmetry;
    std::int64_t rows, cols, stored, expanded;
    ss >> name >> rows >> cols >> stored >> expanded >> field >> symmetry;
    fs::path file = dir / (name + ".mtx.gz");
    if (!fs::exists(file)) file = dir / (name + ".mtx");
    ASSERT_TRUE(fs::exists(file)) << name;
    MmHeader h;
    const Csr<double> a = load_matrix(file.string(), &h);
    EXPECT_EQ(a.rows, rows) << name;
    EXPECT_EQ(a.cols, cols) << name;
    EXPECT_EQ(h.stored_entries, stored) << name;
    EXPECT_EQ(a.nnz(), expanded) << name;
    EXPECT_EQ(to_string(h.field), field) << name;
    EXPECT_EQ(to_string(h.symmetry), symmetry) << name;
    check_csr(a);
    // Through .spkb and back: identical.
    const fs::path s = scratch_dir() / (name + ".spkb");
    write_spkb(s.string(), a, h);
    expect_same(a, load_matrix(s.string()));
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

TEST(RepositoryMatrices, MatchTheManifest) { expect_matrices_match_manifest(spkit::test::repo_matrices_dir()); }

TEST(SharedMatrices, MatchTheManifest) {
  const auto dir = spkit::test::shared_matrices_dir();
  if (!dir) GTEST_SKIP() << "no ../shared/matrices beside this checkout (a user's clone has none)";
  expect_matrices_match_manifest(*dir);
}
