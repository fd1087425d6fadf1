#include "common/test_matrices.hpp"

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "spkit/gen.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit::test {

Csr<double> random_csr(std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                       const std::vector<std::vector<std::int32_t>>& row_columns) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t i = 0; i < rows; ++i) {
    auto c = row_columns[static_cast<std::size_t>(i)];
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    for (auto col : c) {
      a.col_idx.push_back(col);
      double v = val(rng);
      a.values.push_back(v == 0.0 ? 0.5 : v);
    }
    a.row_ptr[i + 1] = static_cast<std::int64_t>(a.col_idx.size());
  }
  return a;
}

Csr<double> banded_csr(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& offsets, bool symmetric,
                       std::uint64_t seed) {
  std::vector<std::vector<std::int32_t>> rc(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t d : offsets)
      if (i + d >= 0 && i + d < cols) rc[i].push_back(static_cast<std::int32_t>(i + d));
  Csr<double> a = random_csr(rows, cols, seed, rc);
  if (symmetric)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::int64_t lo = std::min<std::int64_t>(i, a.col_idx[k]), hi = std::max<std::int64_t>(i, a.col_idx[k]);
        a.values[k] = 0.25 + static_cast<double>((lo * 31 + hi * 17) % 97) / 97.0;
      }
  return a;
}

Csr<double> full_blocks_csr(std::int64_t block_rows, std::int64_t block_cols, int b,
                            const std::vector<std::vector<std::int32_t>>& pattern, std::uint64_t seed) {
  std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(block_rows * b));
  for (std::int64_t I = 0; I < block_rows; ++I) {
    std::vector<std::int32_t> cols = pattern[static_cast<std::size_t>(I)];
    std::sort(cols.begin(), cols.end());
    for (int i = 0; i < b; ++i)
      for (std::int32_t J : cols)
        for (int j = 0; j < b; ++j) rows[static_cast<std::size_t>(I * b + i)].push_back(J * b + j);
  }
  return random_csr(block_rows * b, block_cols * b, seed, rows);
}

std::vector<std::vector<std::int32_t>> random_block_pattern(std::int64_t block_cols,
                                                            const std::vector<std::int64_t>& lengths, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::int32_t>> p;
  for (std::int64_t len : lengths) {
    std::vector<std::int32_t> all(static_cast<std::size_t>(block_cols));
    for (std::int64_t j = 0; j < block_cols; ++j) all[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(j);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(static_cast<std::size_t>(std::min(len, block_cols)));
    p.push_back(all);
  }
  return p;
}

Csr<double> random_rows(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& lengths,
                        std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::vector<std::vector<std::int32_t>> rc(static_cast<std::size_t>(rows));
  std::vector<std::int32_t> all(static_cast<std::size_t>(cols));
  std::iota(all.begin(), all.end(), 0);
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t len = std::min<std::int64_t>(lengths[static_cast<std::size_t>(i)], cols);
    if (len * 4 > cols) {  // dense-ish row: partial shuffle
      std::shuffle(all.begin(), all.end(), rng);
      rc[i].assign(all.begin(), all.begin() + len);
    } else {
      std::uniform_int_distribution<std::int32_t> col(0, static_cast<std::int32_t>(cols - 1));
      while (static_cast<std::int64_t>(rc[i].size()) < len) {
        std::int32_t c = col(rng);
        if (std::find(rc[i].begin(), rc[i].end(), c) == rc[i].end()) rc[i].push_back(c);
      }
    }
  }
  return random_csr(rows, cols, seed, rc);
}

std::vector<NamedMatrix> edge_case_matrices() {
  std::vector<NamedMatrix> out;
  auto add = [&](std::string name, Csr<double> a) { out.push_back({std::move(name), std::move(a)}); };
  const std::uint64_t s = 12345;
  add("empty_0x0", random_csr(0, 0, s, {}));
  add("empty_5x7_no_entries", random_csr(5, 7, s, std::vector<std::vector<std::int32_t>>(5)));
  add("one_by_one", random_csr(1, 1, s, {{0}}));
  add("one_by_one_empty", random_csr(1, 1, s, {{}}));
  add("diagonal_37", random_rows(37, 37, std::vector<std::int64_t>(37, 1), s));
  {
    std::vector<std::int64_t> len(100);
    for (int i = 0; i < 100; ++i) len[i] = (i % 3 == 0) ? 0 : (i % 7) + 1;  // many empty rows
    add("empty_rows_100", random_rows(100, 100, len, s + 1));
  }
  {
    std::vector<std::int64_t> len(129, 2);
    len[64] = 129;  // one dense row
    add("one_dense_row_129", random_rows(129, 129, len, s + 2));
  }
  {
    std::vector<std::vector<std::int32_t>> rc(77);
    for (int i = 0; i < 77; ++i) rc[i] = {0, static_cast<std::int32_t>(i)};  // dense column 0
    add("dense_column_77", random_csr(77, 77, s + 3, rc));
  }
  {
    std::vector<std::int64_t> len(1000, 1);
    len[500] = 5000;  // one row holding most non-zeros
    add("huge_row_1000x6000", random_rows(1000, 6000, len, s + 4));
  }
  add("wide_3x1000", random_rows(3, 1000, {400, 0, 999}, s + 5));
  add("tall_1001x5", random_rows(1001, 5, std::vector<std::int64_t>(1001, 3), s + 6));
  {
    std::vector<std::int64_t> len(33);
    for (int i = 0; i < 33; ++i) len[i] = (i * 5) % 11;
    add("odd_33x31", random_rows(33, 31, len, s + 7));
  }
  {
    std::vector<std::int64_t> len(1025);
    std::mt19937_64 rng(s + 8);
    for (auto& l : len) l = static_cast<std::int64_t>(rng() % 40);
    add("ragged_1025x999", random_rows(1025, 999, len, s + 9));
  }
  {
    // Dense 8x8-blocky matrix whose size is not a multiple of 8 (bmSparse edge blocks).
    std::vector<std::vector<std::int32_t>> rc(61);
    for (int i = 0; i < 61; ++i)
      for (int j = 0; j < 59; ++j)
        if (((i / 8) + (j / 8)) % 3 == 0) rc[i].push_back(j);
    add("blocky_61x59", random_csr(61, 59, s + 10, rc));
  }
  {
    std::vector<std::int64_t> len(257, 0);
    len[256] = 3;  // only the last row has entries
    add("last_row_only_257", random_rows(257, 300, len, s + 11));
  }
  {
    // Three 32-row slices: narrow columns (16-bit deltas fit), a jump of > 65535 within rows (32-bit
    // fallback), and narrow columns far from 0 (a large 16-bit base); for SELL's mixed index widths.
    std::vector<std::vector<std::int32_t>> rc(96);
    for (int i = 0; i < 32; ++i) rc[i] = {i, i + 7, 300 + i};
    for (int i = 32; i < 64; ++i) rc[i] = {i, 139000 - i};
    for (int i = 64; i < 96; ++i) rc[i] = {100000 + i, 100100 + i, 100200};
    add("mixed_16_32bit_slices_96x140000", random_csr(96, 140000, s + 12, rc));
  }
  return out;
}

std::vector<NamedMatrix> family_matrices() {
  std::vector<NamedMatrix> out;
  struct F { const char* family; std::int64_t n; int extra; };
  const F fams[] = {{"lap2d", 23, 0}, {"lap3d", 7, 7}, {"lap3d", 6, 27}, {"fem", 5, 0},     {"random", 333, 0},
                    {"powerlaw", 517, 0}, {"road", 21, 0}, {"circuit", 401, 0}, {"banded", 299, 0}};
  for (const auto& f : fams) {
    GenOptions o;
    o.family = f.family;
    o.n = f.n;
    if (f.extra) o.points = f.extra;
    o.seed = 7;
    std::string name = std::string(f.family) + (f.extra ? "_" + std::to_string(f.extra) : "") + "_" +
                       std::to_string(f.n);
    out.push_back({name, generate(o)});
  }
  return out;
}

std::filesystem::path repo_matrices_dir() { return SPKIT_TEST_MATRICES; }

std::optional<std::filesystem::path> shared_matrices_dir() {
  namespace fs = std::filesystem;
  const fs::path dir = SPKIT_SHARED_MATRICES;
  if (fs::exists(dir / "MANIFEST.tsv")) return dir;
  // A worktree sits deeper than the main checkout: look for shared/matrices beside an ancestor.
  for (fs::path p = fs::path(SPKIT_SOURCE_DIR).parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
    if (fs::exists(p / "shared" / "matrices" / "MANIFEST.tsv")) return p / "shared" / "matrices";
  return std::nullopt;
}

std::vector<NamedMatrix> real_matrices(std::int64_t max_nnz) {
  std::vector<NamedMatrix> out;
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs{repo_matrices_dir()};
  if (auto shared = shared_matrices_dir()) dirs.push_back(*shared);
  std::vector<fs::path> files;
  std::vector<std::string> seen;
  for (const auto& dir : dirs) {
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> here;
    for (const auto& e : fs::directory_iterator(dir)) {
      auto n = e.path().filename().string();
      auto ends = [&](const std::string& suf) { return n.size() >= suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0; };
      if (ends(".mtx") || ends(".mtx.gz")) here.push_back(e.path());
    }
    std::sort(here.begin(), here.end());
    for (auto& f : here) {
      const std::string name = f.filename().string();
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
      seen.push_back(name);
      files.push_back(f);
    }
  }
  for (const auto& f : files) {
    if (fs::file_size(f) > 64u * 1024 * 1024) continue;
    auto a = load_matrix(f.string());
    if (a.nnz() <= max_nnz) out.push_back({"real_" + f.filename().string(), std::move(a)});
  }
  return out;
}

std::vector<NamedMatrix> all_test_matrices() {
  auto out = edge_case_matrices();
  for (auto& m : family_matrices()) out.push_back(std::move(m));
  for (auto& m : real_matrices()) out.push_back(std::move(m));
  return out;
}

std::vector<double> random_vector(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = d(rng);
  return x;
}

std::uint64_t fresh_seed() { return std::random_device{}() ^ (static_cast<std::uint64_t>(std::random_device{}()) << 32); }

}  // namespace spkit::test
