// Matrix Market reader and writer: every accepted-input rule, every error path (with its line),
// symmetry expansion, parallel == serial, round trips, gzip, and the real matrices in ../shared.
#include <gtest/gtest.h>
#include <omp.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/test_matrices.hpp"
#include "io/io_util.hpp"
#include "io/mm_bucketed_route.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"
#include "spkit/io/vector.hpp"

namespace fs = std::filesystem;
using namespace spkit;

namespace {

std::uint64_t seed_now() { return std::random_device{}() * 2654435761ULL + 12345; }

// A per-process scratch directory, removed when the test binary exits.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("spkit_io_test_" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

fs::path scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

void write_text(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary);
  f << s;
}

void write_gzip(const fs::path& p, const std::string& s) {
  gzFile g = gzopen(p.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, s.data(), static_cast<unsigned>(s.size())), static_cast<int>(s.size()));
  gzclose(g);
}

std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// (row, col) -> summed value, the reference for any reader/converter output.
using Dense = std::map<std::pair<std::int64_t, std::int64_t>, double>;

Dense dense_of(const Csr<double>& a) {
  Dense d;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d[{i, a.col_idx[k]}] += a.values[k];
  return d;
}

Csr<double> parse_csr(const std::string& text, int threads = 0) {
  ReadOptions o;
  o.threads = threads;
  MmMatrix m = parse_matrix_market(text, "<t>", o);
  return coo_to_csr(m.coo);
}

Csr<double> random_csr(std::int64_t rows, std::int64_t cols, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::bernoulli_distribution keep(density);
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.push_back(0);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j)
      if (keep(rng)) {
        a.col_idx.push_back(static_cast<std::int32_t>(j));
        // awkward values: tiny, huge, negative, exactly representable, shortest-repr tricky
        const int kind = static_cast<int>(rng() % 5);
        double v = u(rng);
        if (kind == 1) v *= 1e-300;
        if (kind == 2) v *= 1e300;
        if (kind == 3) v = std::nextafter(0.1, 1.0);
        a.values.push_back(v);
      }
    a.row_ptr.push_back(static_cast<std::int64_t>(a.values.size()));
  }
  return a;
}

void expect_same(const Csr<double>& a, const Csr<double>& b) {
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.cols, b.cols);
  ASSERT_EQ(a.row_ptr, b.row_ptr);
  ASSERT_EQ(a.col_idx, b.col_idx);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t k = 0; k < a.values.size(); ++k) ASSERT_EQ(a.values[k], b.values[k]) << "entry " << k;  // bitwise-exact
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Malformed input: message fragment and 1-based line.

struct BadCase {
  const char* name;
  std::string text;
  const char* fragment;
  std::int64_t line;
};

class MalformedInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(MalformedInput, ThrowsParseErrorNamingTheLine) {
  const BadCase& c = GetParam();
  // One chunk; and many tiny chunks (a chunk per line or less), so that errors near chunk edges and
  // the entry-count checks across chunks are exercised too.
  for (auto [threads, chunk] : {std::pair<int, std::size_t>{1, 0}, {3, 0}, {3, 1}, {2, 7}}) {
    ReadOptions o;
    o.threads = threads;
    o.chunk_bytes = chunk;
    try {
      parse_matrix_market(c.text, "bad.mtx", o);
      FAIL() << c.name << ": no error";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos) << c.name << ": " << e.what();
      EXPECT_EQ(e.line(), c.line) << c.name << ": " << e.what();
      EXPECT_EQ(e.source(), "bad.mtx");
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "message must be one line";
      EXPECT_EQ(std::string(e.what()).rfind("bad.mtx:" + std::to_string(c.line) + ": ", 0), 0u) << e.what();
    }
  }
}

const std::string B = "%%MatrixMarket matrix coordinate real general\n";

INSTANTIATE_TEST_SUITE_P(
    Table, MalformedInput,
    ::testing::Values(
        BadCase{"empty", "", "empty file", 1},
        BadCase{"binary", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10), "binary", 1},
        BadCase{"gzip_in_buffer", std::string("\x1f\x8b\x08\0\0\0\0\0", 8), "gzip", 1},
        BadCase{"no_banner", "3 3 1\n1 1 1\n", "missing '%%MatrixMarket' banner", 1},
        BadCase{"wrong_banner_word", "%%MatrixMarketX matrix coordinate real general\n1 1 0\n", "banner", 1},
        BadCase{"short_banner", "%%MatrixMarket matrix coordinate real\n1 1 0\n", "incomplete banner", 1},
        BadCase{"banner_extra_word", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", "unexpected word", 1},
        BadCase{"vector_object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", "unsupported object", 1},
        BadCase{"bad_format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", "unknown format", 1},
        BadCase{"complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "complex matrices are not supported", 1},
        BadCase{"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", "hermitian matrices are not supported", 1},
        BadCase{"bad_symmetry", "%%MatrixMarket matrix coordinate real skew\n1 1 0\n", "unknown symmetry", 1},
        BadCase{"array_pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", "cannot have the 'pattern' field", 1},
        BadCase{"missing_size_line", B + "% only a comment\n", "missing size line", 3},
        BadCase{"missing_size_line_no_nl", B + "% only a comment", "missing size line", 2},
        BadCase{"size_line_two_numbers", B + "3 3\n", "size line must have 3 numbers", 2},
        BadCase{"size_line_text", B + "% c\n3 x 1\n", "column count 'x' is not a non-negative integer", 3},
        BadCase{"size_negative", B + "-3 3 1\n", "negative row count", 2},
        BadCase{"size_overflow_int64", B + "99999999999999999999 3 1\n", "overflows a 64-bit integer", 2},
        BadCase{"size_over_int32", B + "3000000000 3000000000 1\n1 1 1\n", "32-bit indices", 2},
        BadCase{"size_array_huge", "%%MatrixMarket matrix array real general\n2147483648 2\n", "32-bit indices", 2},
        BadCase{"nnz_int64_max", B + "3 3 9223372036854775807\n1 1 1\n", "file ends after 1 of the 9223372036854775807", 4},
        BadCase{"sym_nnz_int64_max", "%%MatrixMarket matrix coordinate real symmetric\n3 3 9223372036854775807\n1 1 1\n", "file ends after 1 of", 4},
        BadCase{"nnz_overflow", B + "3 3 99999999999999999999\n", "overflows a 64-bit integer", 2},
        BadCase{"symmetric_not_square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", "must be square", 2},
        BadCase{"fewer_entries", B + "3 3 3\n1 1 1\n2 2 2\n", "file ends after 2 of the 3 entries", 5},
        BadCase{"fewer_entries_no_final_newline", B + "3 3 3\n1 1 1\n2 2 2", "file ends after 2 of the 3", 5},
        BadCase{"no_entries_at_all", B + "3 3 1\n", "file ends after 0 of the 1", 3},
        BadCase{"more_entries", B + "3 3 1\n1 1 1\n% c\n\n2 2 2\n", "more entries than the 1", 6},
        BadCase{"row_zero", B + "3 3 2\n1 1 1\n0 1 1\n", "row index '0' is outside 1..3", 4},
        BadCase{"col_beyond", B + "3 3 2\n1 1 1\n1 4 1\n", "column index '4' is outside 1..3", 4},
        BadCase{"row_negative", B + "3 3 1\n-1 1 1\n", "row index '-1' is not a positive integer", 3},
        BadCase{"row_huge", B + "3 3 1\n123456789012345678901234 1 1\n", "is outside 1..3", 3},
        BadCase{"row_float", B + "3 3 1\n1.5 1 1\n", "row index '1.5' is not a positive integer", 3},
        BadCase{"missing_col", B + "3 3 1\n1\n", "no column index", 3},
        BadCase{"missing_value", B + "3 3 1\n1 1\n", "entry has no value", 3},
        BadCase{"value_text", B + "3 3 1\n1 1 abc\n", "value 'abc' is not a real number", 3},
        BadCase{"value_trailing_junk", B + "3 3 1\n1 1 1.5x\n", "value '1.5x' is not a real number", 3},
        BadCase{"value_comma", B + "3 3 1\n1 1 1,5\n", "is not a real number", 3},
        BadCase{"value_double_sign", B + "3 3 1\n1 1 +-1\n", "is not a real number", 3},
        BadCase{"value_nan", B + "3 3 1\n1 1 nan\n", "is NaN", 3},
        BadCase{"value_NaN_caps", B + "3 3 1\n1 1 NaN\n", "is NaN", 3},
        BadCase{"value_inf", B + "3 3 1\n1 1 -inf\n", "infinite", 3},
        BadCase{"value_overflow", B + "3 3 1\n1 1 1e400\n", "infinite", 3},
        BadCase{"extra_token", B + "3 3 1\n1 1 1 2\n", "unexpected '2' after the entry", 3},
        BadCase{"pattern_with_value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.0\n", "pattern matrix entry has a value", 3},
        BadCase{"integer_with_fraction", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", "is not an integer", 3},
        BadCase{"integer_overflow", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 99999999999999999999\n", "overflows", 3},
        BadCase{"skew_diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", "cannot store a diagonal entry", 3},
        BadCase{"array_too_few", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "file ends after 3 of the 4", 6},
        BadCase{"array_too_many", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", "more entries than the 2", 5},
        BadCase{"array_two_values_a_line", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", "unexpected '2' after the value", 3},
        BadCase{"nul_in_body", B + std::string("3 3 1\n1 1 \0" "1\n", 13), "binary data (byte '\\x00')", 3},
        BadCase{"spkb_as_text", "SPKB\r\n\x1a\n....", "binary", 1}),
    [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// Accepted input.

TEST(MatrixMarketRead, AcceptsWhatTheReferenceReadersAccept) {
  const std::string text =
      "%%MATRIXMARKET Matrix COORDINATE Real GENERAL\r\n"
      "% a comment\r\n"
      "\r\n"
      "   \t\n"
      "%another comment\n"
      "  4\t5  6 \r\n"
      "1 1 1.5e2\r\n"
      "\n"
      "% a comment between entries\n"
      "\t2\t3\t+4\n"
      "3 5 -2.5E-1\n"
      "4 4 0\n"             // explicit zero kept
      "+1 +2 .5\n"          // leading '+' on indices, no leading digit
      "  0002 001 7.  \n"   // leading zeros, trailing dot, trailing blanks
      "\n\n";
  const MmMatrix m = parse_matrix_market(text);
  EXPECT_EQ(m.header.rows, 4);
  EXPECT_EQ(m.header.cols, 5);
  EXPECT_EQ(m.header.stored_entries, 6);
  EXPECT_EQ(m.header.field, MmField::real);
  const Dense d = dense_of(coo_to_csr(m.coo));
  const Dense want{{{0, 0}, 150.0}, {{1, 2}, 4.0}, {{2, 4}, -0.25}, {{3, 3}, 0.0}, {{0, 1}, 0.5}, {{1, 0}, 7.0}};
  EXPECT_EQ(d, want);
  EXPECT_EQ(coo_to_csr(m.coo).nnz(), 6) << "the explicit zero must stay stored";
}

TEST(MatrixMarketRead, NoFinalNewlineAndTinyValues) {
  const MmMatrix m = parse_matrix_market(B + "2 2 3\n1 1 1e-400\n2 2 -1e-320\n1 2 4.9e-324");
  ASSERT_EQ(m.coo.nnz(), 3);
  EXPECT_EQ(m.coo.values[0], 0.0);  // underflow rounds to zero, as strtod does
  EXPECT_TRUE(m.coo.values[1] <= 0.0);
  EXPECT_EQ(m.coo.values[2], 4.9e-324);
}

TEST(MatrixMarketRead, EmptyMatrices) {
  for (const std::string& t : std::vector<std::string>{B + "0 0 0\n", B + "5 3 0\n", B + "5 3 0", "%%MatrixMarket matrix array real general\n0 0\n"}) {
    const Csr<double> a = parse_csr(t);
    EXPECT_EQ(a.nnz(), 0);
    EXPECT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1);
  }
}

// Every accepted-input case again with tiny chunks: the same matrix.
TEST(MatrixMarketRead, TinyChunksGiveTheSameMatrix) {
  const std::vector<std::string> texts = {
      "%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n 4 5 6\r\n1 1 1.5e2\r\n\n% x\n\t2\t3\t+4\n3 5 -2.5E-1\n4 4 0\n+1 +2 .5\n  0002 001 7.  \n\n\n",
      "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 4\n3 3 5",
      "%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n\n2\n% c\n3\n",
      "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1 \n"};
  for (const auto& t : texts) {
    const Dense want = dense_of(parse_csr(t, 1));
    for (std::size_t chunk : {1, 2, 3, 5, 11}) {
      ReadOptions o;
      o.threads = 3;
      o.chunk_bytes = chunk;
      EXPECT_EQ(dense_of(coo_to_csr(parse_matrix_market(t, "<t>", o).coo)), want) << "chunk " << chunk << "\n" << t;
    }
  }
}

TEST(MatrixMarketRead, IntegerAndPatternFields) {
  const Csr<double> ai = parse_csr("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 -7\n2 1 +3\n");
  EXPECT_EQ(dense_of(ai), (Dense{{{0, 0}, -7.0}, {{1, 0}, 3.0}}));
  const Csr<double> ap = parse_csr("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1 \n");
  EXPECT_EQ(dense_of(ap), (Dense{{{0, 2}, 1.0}, {{1, 0}, 1.0}}));
}

TEST(MatrixMarketRead, DuplicatesAreSummed) {
  const Csr<double> a = parse_csr(B + "2 2 4\n1 1 1\n2 2 5\n1 1 2.5\n1 1 -0.5\n");
  EXPECT_EQ(a.nnz(), 2);
  EXPECT_EQ(dense_of(a), (Dense{{{0, 0}, 3.0}, {{1, 1}, 5.0}}));
}

TEST(MatrixMarketRead, SymmetricAndSkewExpansion) {
  const std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 4\n3 3 5\n";
  EXPECT_EQ(dense_of(parse_csr(sym)),
            (Dense{{{0, 0}, 2}, {{1, 0}, -1}, {{0, 1}, -1}, {{2, 1}, 4}, {{1, 2}, 4}, {{2, 2}, 5}}));
  const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -2\n";
  EXPECT_EQ(dense_of(parse_csr(skew)), (Dense{{{1, 0}, 3}, {{0, 1}, -3}, {{2, 0}, -2}, {{0, 2}, 2}}));
  // Without expansion: the stored entries only.
  ReadOptions o;
  o.expand_symmetry = false;
  EXPECT_EQ(parse_matrix_market(sym, "<t>", o).coo.nnz(), 4);
  const std::string pat = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n";
  EXPECT_EQ(dense_of(parse_csr(pat)), (Dense{{{0, 0}, 1}, {{1, 0}, 1}, {{0, 1}, 1}}));
}

TEST(MatrixMarketRead, ArrayFormats) {
  // Column-major: (0,0)=1 (1,0)=2 (0,1)=3 (1,1)=0 (0,2)=5 (1,2)=6; zeros stay stored.
  const Csr<double> g = parse_csr("%%MatrixMarket matrix array real general\n% c\n2 3\n1\n2\n3\n0\n5\n\n6\n");
  EXPECT_EQ(g.nnz(), 6);
  EXPECT_EQ(dense_of(g), (Dense{{{0, 0}, 1}, {{1, 0}, 2}, {{0, 1}, 3}, {{1, 1}, 0}, {{0, 2}, 5}, {{1, 2}, 6}}));
  // Symmetric: lower triangle with diagonal, column by column.
  const Csr<double> s = parse_csr("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
  EXPECT_EQ(dense_of(s), (Dense{{{0, 0}, 1}, {{1, 0}, 2}, {{2, 0}, 3}, {{1, 1}, 4}, {{2, 1}, 5}, {{2, 2}, 6},
                                {{0, 1}, 2}, {{0, 2}, 3}, {{1, 2}, 5}}));
  // Skew: strict lower triangle.
  const Csr<double> k = parse_csr("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  EXPECT_EQ(dense_of(k), (Dense{{{1, 0}, 1}, {{2, 0}, 2}, {{2, 1}, 3}, {{0, 1}, -1}, {{0, 2}, -2}, {{1, 2}, -3}}));
  const Csr<double> i = parse_csr("%%MatrixMarket matrix array integer general\n1 2\n-4\n+9\n");
  EXPECT_EQ(dense_of(i), (Dense{{{0, 0}, -4}, {{0, 1}, 9}}));
}

// A body large enough for many chunks, with blank and comment lines scattered: every thread count
// gives the same COO, and an error deep inside names its exact line.
TEST(MatrixMarketRead, ParallelChunksMatchSerialAndNameExactLines) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = 150000;
  std::string text = B + "% header comment\n" + "5000 7000 " + std::to_string(n) + "\n";
  std::vector<std::int64_t> entry_line;
  std::int64_t line = 4;
  char buf[128];
  for (std::int64_t k = 0; k < n; ++k) {
    if (rng() % 50 == 0) {
      text += (rng() % 2) ? "\n" : "% comment line\r\n";
      ++line;
    }
    const double v = std::ldexp(static_cast<double>(rng() % 1000000) - 500000, -static_cast<int>(rng() % 40));
    std::snprintf(buf, sizeof buf, "%d %d %.17g\n", static_cast<int>(rng() % 5000) + 1, static_cast<int>(rng() % 7000) + 1, v);
    text += buf;
    entry_line.push_back(line++);
  }
  ASSERT_GT(text.size(), 3u << 20);  // several chunks
  ReadOptions one;
  one.threads = 1;
  const MmMatrix ref = parse_matrix_market(text, "<t>", one);
  for (auto [t, chunk] : {std::pair<int, std::size_t>{2, 0}, {3, 0}, {8, 0}, {4, 1000}}) {
    ReadOptions o;
    o.threads = t;
    o.chunk_bytes = chunk;
    const MmMatrix m = parse_matrix_market(text, "<t>", o);
    ASSERT_EQ(m.coo.row_idx, ref.coo.row_idx) << t;
    ASSERT_EQ(m.coo.col_idx, ref.coo.col_idx) << t;
    ASSERT_EQ(m.coo.values, ref.coo.values) << t;
  }
  // Break a random entry deep in the file.
  const std::int64_t victim = n / 2 + static_cast<std::int64_t>(rng() % (n / 2));
  std::size_t pos = 0;
  for (std::int64_t l = 1; l < entry_line[victim]; ++l) pos = text.find('\n', pos) + 1;
  std::string broken = text;
  broken.insert(pos, "1 1 x");  // "1 1 x<row> <col> <val>" -> bad value
  for (int t : {1, 4}) {
    ReadOptions o;
    o.threads = t;
    try {
      parse_matrix_market(broken, "big.mtx", o);
      FAIL() << "no error";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), entry_line[victim]) << e.what();
      EXPECT_NE(std::string(e.what()).find("is not a real number"), std::string::npos) << e.what();
    }
  }
}

// Indices of every length (1..10 digits, leading zeros, '+'), every separator, near the end of the text
// (where the 8-byte index reader cannot be used) and not: the same COO as the numbers written.
TEST(MatrixMarketRead, IndicesOfEveryLengthAndSeparator) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t n = 2147483647;
  for (int trial = 0; trial < 200; ++trial) {
    const int entries = 1 + static_cast<int>(rng() % 20);
    std::string text = "%%MatrixMarket matrix coordinate pattern general\n" + std::to_string(n) + " " +
                       std::to_string(n) + " " + std::to_string(entries) + "\n";
    std::vector<std::pair<std::int32_t, std::int32_t>> want;
    const char* separators[] = {" ", "\t", "  ", " \t "};
    auto index_text = [&](std::int64_t v) {
      std::string t = std::to_string(v);
      t = std::string(rng() % 4 == 0 ? rng() % 4 : 0, '0') + t;  // leading zeros
      if (rng() % 8 == 0) t = "+" + t;
      return t;
    };
    for (int k = 0; k < entries; ++k) {
      const int digits_r = 1 + static_cast<int>(rng() % 10), digits_c = 1 + static_cast<int>(rng() % 10);
      auto draw = [&](int digits) {
        std::int64_t lo = 1;
        for (int d = 1; d < digits; ++d) lo *= 10;
        return std::min<std::int64_t>(n, lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(lo * 9)));
      };
      const std::int64_t r = draw(digits_r), c = draw(digits_c);
      text += index_text(r) + separators[rng() % 4] + index_text(c) + (rng() % 3 == 0 ? " \r\n" : "\n");
      want.emplace_back(static_cast<std::int32_t>(r - 1), static_cast<std::int32_t>(c - 1));
    }
    if (rng() % 2) text.pop_back();  // no final newline
    const MmMatrix m = parse_matrix_market(text, "<t>");
    ASSERT_EQ(m.coo.nnz(), entries) << text;
    for (int k = 0; k < entries; ++k) {
      ASSERT_EQ(m.coo.row_idx[k], want[k].first) << text;
      ASSERT_EQ(m.coo.col_idx[k], want[k].second) << text;
    }
  }
  // A digit run cut by any other byte is an error naming the token, as before.
  for (const char* bad : {"12a 3\n", "1234567x 3\n", "3 12345678y\n", "3 7\xff\n", "\xb9 3\n"}) {
    const std::string text = std::string("%%MatrixMarket matrix coordinate pattern general\n99999999 99999999 1\n") + bad;
    EXPECT_THROW(parse_matrix_market(text, "<t>"), ParseError) << bad;
  }
}

// ---------------------------------------------------------------------------------------------
// COO -> CSR.

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

// The reference for COO -> CSR: entries stably sorted by (row, column), duplicates summed one after
// the other in input order (or all kept, in input order).
struct Entry {
  std::int64_t row, col;
  double value;
};

Csr<double> reference_csr(std::int64_t rows, std::int64_t cols, std::vector<Entry> entries, bool sum_duplicates) {
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    if (sum_duplicates && k > 0 && entries[k].row == entries[k - 1].row && entries[k].col == entries[k - 1].col) {
      a.values.back() += entries[k].value;
      continue;
    }
    a.col_idx.push_back(static_cast<std::int32_t>(entries[k].col));
    a.values.push_back(entries[k].value);
    ++a.row_ptr[entries[k].row + 1];
  }
  for (std::int64_t i = 0; i < rows; ++i) a.row_ptr[i + 1] += a.row_ptr[i];
  return a;
}

Coo<double> coo_of(std::int64_t rows, std::int64_t cols, const std::vector<Entry>& entries) {
  Coo<double> coo;
  coo.rows = rows;
  coo.cols = cols;
  for (const Entry& e : entries) {
    coo.row_idx.push_back(static_cast<std::int32_t>(e.row));
    coo.col_idx.push_back(static_cast<std::int32_t>(e.col));
    coo.values.push_back(e.value);
  }
  return coo;
}

// Values whose sums depend on the order they are added in (magnitudes 1e-9 .. 1e9, both signs), so
// the comparison with the reference checks "summed in input order", bit for bit.
double order_sensitive_value(std::mt19937_64& rng) {
  const double mantissa = std::uniform_real_distribution<double>(-1, 1)(rng);
  return std::ldexp(mantissa, static_cast<int>(rng() % 60) - 30);
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

// ---------------------------------------------------------------------------------------------
// Files: round trips, gzip, .spkb, vectors, the shared matrices.

TEST(MatrixMarketFiles, RoundTripMtxCsrMtxIsExact) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (auto [r, c, d] : {std::tuple<int, int, double>{0, 0, 0}, {1, 1, 1.0}, {37, 5, 0.3}, {5, 41, 0.2}, {300, 300, 0.02}}) {
    const Csr<double> a = random_csr(r, c, d, seed + r);
    const fs::path p = scratch_dir() / "rt.mtx";
    write_matrix_market(p.string(), a, MmField::real, "line one\nline two");
    MmHeader h;
    const Csr<double> b = load_matrix(p.string(), &h);
    expect_same(a, b);
    EXPECT_EQ(h.stored_entries, a.nnz());
    const std::string text = read_bytes(p);
    EXPECT_EQ(text.rfind("%%MatrixMarket matrix coordinate real general\n% line one\n% line two\n", 0), 0u);
    // and mtx -> spkb -> CSR
    const fs::path q = scratch_dir() / "rt.spkb";
    write_spkb(q.string(), b, h);
    EXPECT_TRUE(is_spkb_file(q.string()));
    MmHeader h2;
    expect_same(a, load_matrix(q.string(), &h2));
    EXPECT_EQ(h2.rows, a.rows);
    EXPECT_EQ(h2.stored_entries, h.stored_entries);
  }
}

TEST(MatrixMarketFiles, IntegerAndPatternWriters) {
  Csr<double> a;
  a.rows = 2;
  a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {1, 0};
  a.values = {3, -4};
  const fs::path p = scratch_dir() / "int.mtx";
  write_matrix_market(p.string(), a, MmField::integer);
  EXPECT_EQ(read_bytes(p), "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 3\n2 1 -4\n");
  write_matrix_market(p.string(), a, MmField::pattern);
  EXPECT_EQ(read_bytes(p), "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n");
  // A failed write leaves nothing behind (and does not clobber an existing file).
  a.values[0] = 0.5;
  const fs::path fresh = scratch_dir() / "never.mtx";
  EXPECT_THROW(write_matrix_market(fresh.string(), a, MmField::integer), Error);
  EXPECT_FALSE(fs::exists(fresh));
  for (const auto& e : fs::directory_iterator(scratch_dir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  EXPECT_THROW(write_matrix_market((scratch_dir() / "no/such/dir/x.mtx").string(), a), Error);
}

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

TEST(MatrixMarketFiles, HeaderOnly) {
  const fs::path p = scratch_dir() / "h.mtx";
  std::string text = "%%MatrixMarket matrix coordinate pattern symmetric\n";
  for (int i = 0; i < 20000; ++i) text += "% a long comment block that pushes the size line past the first 64 KiB\n";
  text += "10 10 1\n2 1\n";
  write_text(p, text);
  const MmHeader h = read_matrix_market_header(p.string());
  EXPECT_EQ(h.rows, 10);
  EXPECT_EQ(h.stored_entries, 1);
  EXPECT_EQ(h.field, MmField::pattern);
  EXPECT_EQ(h.symmetry, MmSymmetry::symmetric);
  EXPECT_THROW(read_matrix_market_header((scratch_dir() / "missing.mtx").string()), Error);
}

TEST(Spkb, RefusesCorruptedAndTruncatedFiles) {
  const Csr<double> a = random_csr(300, 200, 0.05, seed_now());
  const fs::path p = scratch_dir() / "c.spkb";
  write_spkb(p.string(), a);
  const std::string good = read_bytes(p);
  auto expect_refused = [&](const std::string& bytes, const char* fragment) {
    write_text(p, bytes);
    try {
      read_spkb(p.string());
      FAIL() << fragment << ": accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  };
  std::string b = good;
  b[good.size() - 3] ^= 1;  // a value bit
  expect_refused(b, "checksum mismatch");
  b = good;
  b[200] ^= 0x10;  // a row pointer / column bit
  expect_refused(b, "checksum mismatch");
  b = good;
  b[30] ^= 1;  // rows in the header
  expect_refused(b, "header checksum");
  expect_refused(good.substr(0, good.size() - 8), "truncated");
  expect_refused(good.substr(0, 100), "truncated header");
  expect_refused(good + "x", "after the data");
  b = good;
  b[0] = 'X';
  expect_refused(b, "magic");
  b = good;
  b[8] = 9;  // version
  expect_refused(b, "version 9");
  write_text(p, good);
  expect_same(a, read_spkb(p.string()));
}

TEST(Vectors, RoundTripAndShapes) {
  std::mt19937_64 rng(seed_now());
  std::vector<double> v(1001);
  for (auto& x : v) x = std::ldexp(static_cast<double>(rng() % 100000) - 5e4, static_cast<int>(rng() % 100) - 50);
  const fs::path p = scratch_dir() / "v.mtx";
  write_vector(p.string(), v);
  EXPECT_EQ(read_vector(p.string()), v);
  std::vector<float> f{1.5f, -0.1f};
  write_vector(p.string(), f.data(), f.size());
  const auto back = read_vector(p.string());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(static_cast<float>(back[1]), -0.1f);
  write_text(p, "%%MatrixMarket matrix array real general\n1 3\n1\n2\n3\n");
  EXPECT_EQ(read_vector(p.string()), (std::vector<double>{1, 2, 3}));
  write_text(p, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_THROW(read_vector(p.string()), Error);
  std::vector<double> bad{1.0, NAN};
  const fs::path q = scratch_dir() / "never_v.mtx";
  EXPECT_THROW(write_vector(q.string(), bad), Error);
  EXPECT_FALSE(fs::exists(q));
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

// The reader's fast decimal path and std::from_chars must agree bit for bit, on the text the writer
// produces (shortest round-trip) and on hand-written forms.
TEST(MatrixMarketRead, ValuesReadBackBitExact) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::string> texts = {"0", "-0", "1", "0.1", "-0.5", "1e22", "1e23", "9007199254740992", "9007199254740993",
                                    "123456789012345678", "1.7976931348623157e308", "2.2250738585072014e-308",
                                    "4.9e-324", "0.30000000000000004", "1E-22", "-1e-23", ".25", "25.", "0000.0001e+0004",
                                    "3.14159265358979323846264338327950288"};
  char buf[64];
  for (int i = 0; i < 20000; ++i) {
    double v;
    switch (i % 4) {
      case 0: v = std::uniform_real_distribution<double>(-1, 1)(rng); break;
      case 1: v = static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000) / 1000; break;
      case 2: { std::uint64_t bits = rng(); std::memcpy(&v, &bits, 8); if (!std::isfinite(v)) v = 1.0; } break;
      default: v = std::ldexp(static_cast<double>(rng() % 1000), static_cast<int>(rng() % 200) - 100); break;
    }
    texts.push_back(std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr));
    std::snprintf(buf, sizeof buf, "%.*g", 1 + static_cast<int>(rng() % 17), v);
    if (std::isfinite(std::strtod(buf, nullptr))) texts.push_back(buf);  // rounding 1.79e308 up overflows
  }
  std::string text = B + "1 1 " + std::to_string(texts.size()) + "\n";
  for (const auto& t : texts) text += "1 1 " + t + "\n";
  ReadOptions o;
  o.expand_symmetry = false;
  const MmMatrix m = parse_matrix_market(text, "<t>", o);
  ASSERT_EQ(m.coo.values.size(), texts.size());
  for (std::size_t k = 0; k < texts.size(); ++k) {
    double want;
    std::from_chars(texts[k].data(), texts[k].data() + texts[k].size(), want);
    std::uint64_t a, b;
    std::memcpy(&a, &m.coo.values[k], 8);
    std::memcpy(&b, &want, 8);
    ASSERT_EQ(a, b) << "'" << texts[k] << "' read as " << m.coo.values[k];
  }
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

namespace {

// A general coordinate file in random order, with duplicates whose sums depend on their order and
// blank and comment lines between entries.
std::string shuffled_file(std::int64_t rows, std::int64_t cols, std::int64_t n, const char* field, std::mt19937_64& rng) {
  std::string text = std::string("%%MatrixMarket matrix coordinate ") + field + " general\n% a comment\n" +
                     std::to_string(rows) + " " + std::to_string(cols) + " " + std::to_string(n) + "\n";
  for (std::int64_t k = 0; k < n; ++k) {
    if (rng() % 97 == 0) text += (rng() % 2) ? "\n" : "% between entries\n";
    const std::int64_t r = rng() % 5 == 0 ? rows / 2 : static_cast<std::int64_t>(rng() % rows);  // one long row
    text += std::to_string(r + 1) + " " + std::to_string(rng() % cols + 1);
    if (std::string(field) == "real") {
      char buf[32];
      text += " ";
      text.append(buf, std::to_chars(buf, buf + sizeof buf, order_sensitive_value(rng)).ptr);
    } else if (std::string(field) == "integer") {
      text += " " + std::to_string(static_cast<int>(rng() % 2001) - 1000);
    }
    text += "\n";
  }
  return text;
}

}  // namespace

// parse_matrix_market_csr parses a general file in random order straight into the conversion's row
// buckets: the result must be what coo_to_csr gives from the COO route, bit for bit, for every field,
// shape (more buckets than one, non-square, a single row or column), thread count and chunking.
TEST(MatrixMarketCsr, RowBucketRouteMatchesTheCooRoute) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::tuple<std::int64_t, std::int64_t, std::int64_t> shapes[] = {
      {3001, 257, 60000}, {100000, 70000, 50000}, {1, 5000, 3000}, {7000, 1, 3000}, {513, 100003, 20000}};
  const io_detail::BucketRouteCounts before = io_detail::bucket_route_counts();
  std::int64_t parses = 0;
  for (const auto& [rows, cols, n] : shapes) {
    for (const char* field : {"real", "integer", "pattern"}) {
      SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + " " + field);
      const std::string text = shuffled_file(rows, cols, n, field, rng);
      const Csr<double> want = parse_csr(text, 1);
      check_csr(want);
      for (int threads : {1, 2, 3}) {
        for (std::size_t chunk : {std::size_t{0}, std::size_t{65536}}) {
          ReadOptions o;
          o.threads = threads;
          o.chunk_bytes = chunk;
          MmHeader h;
          expect_same(parse_matrix_market_csr(text, "<t>", o, &h), want);
          EXPECT_EQ(h.rows, rows);
          EXPECT_EQ(h.stored_entries, n);
          ++parses;
        }
      }
    }
  }
  // Every one of these parses took the bucketed route, and none left it.
  const io_detail::BucketRouteCounts after = io_detail::bucket_route_counts();
  EXPECT_EQ(after.taken - before.taken, parses);
  EXPECT_EQ(after.fell_back, before.fell_back);
}

// Lines the bucketed route's pass 1 must tell apart exactly as the parser does (it counts entries per
// row bucket by a row index at each line start): entries after spaces, tabs, \v or \f, CRLF line ends,
// blank lines of blanks, comments, trailing blanks, and no newline at the end. Chunks of 4 KiB put such
// lines at chunk starts too.
TEST(MatrixMarketCsr, RowBucketRouteReadsEveryLineFormLikeTheCooRoute) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::int64_t rows = 3000, cols = 2000, n = 20000;
  std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(rows) + " " + std::to_string(cols) +
                     " " + std::to_string(n) + "\n";
  const char* prefixes[] = {"", "", "", " ", "\t", "  \t ", "\v", "\f", " \r"};
  const char* blank_lines[] = {"\n", "   \n", "\t\r\n", "% a comment 7 7 7\n", "%\n", " % indented comment\n"};
  for (std::int64_t k = 0; k < n; ++k) {
    if (rng() % 13 == 0) text += blank_lines[rng() % 6];
    text += prefixes[rng() % 9];
    text += std::to_string(rng() % rows + 1) + (rng() % 4 ? " " : " \t ") + std::to_string(rng() % cols + 1) + " ";
    char buf[32];
    text.append(buf, std::to_chars(buf, buf + sizeof buf, order_sensitive_value(rng)).ptr);
    if (rng() % 7 == 0) text += " \t";
    if (k + 1 < n) text += rng() % 5 == 0 ? "\r\n" : "\n";
  }
  ReadOptions one;
  one.threads = 1;
  one.chunk_bytes = 1 << 30;
  const Csr<double> want = coo_to_csr(parse_matrix_market(text, "<t>", one).coo);
  const io_detail::BucketRouteCounts before = io_detail::bucket_route_counts();
  std::int64_t parses = 0;
  for (int threads : {1, 2, 3}) {
    for (std::size_t chunk : {std::size_t{0}, std::size_t{4096}}) {
      ReadOptions o;
      o.threads = threads;
      o.chunk_bytes = chunk;
      expect_same(parse_matrix_market_csr(text, "<t>", o), want);
      ++parses;
    }
  }
  const io_detail::BucketRouteCounts after = io_detail::bucket_route_counts();
  EXPECT_EQ(after.taken - before.taken, parses);
  EXPECT_EQ(after.fell_back, before.fell_back);
}

// A row bucket of more than 2^20 entries (a few very long rows) is copied out of the output before it is
// sorted (sort_bucket would otherwise sort in the array it reads): same result as the COO route.
TEST(MatrixMarketCsr, RowBucketRouteSortsAHugeBucket) {
  std::mt19937_64 rng(11);
  // 600 rows make buckets of 4 rows; rows 1-4 hold ~1.08 M entries (one bucket), in random order.
  const std::int64_t rows = 600, cols = 5000000, n = 1200000;
  std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(rows) + " " + std::to_string(cols) +
                     " " + std::to_string(n) + "\n";
  text.reserve(static_cast<std::size_t>(n) * 24);
  for (std::int64_t k = 0; k < n; ++k) {
    // Columns from a small range in part, so that rows repeat columns (duplicates summed in input order).
    const std::int64_t c = (k % 3 == 0) ? static_cast<std::int64_t>(rng() % 1000) : static_cast<std::int64_t>(rng() % cols);
    const std::int64_t r = k % 10 == 0 ? static_cast<std::int64_t>(rng() % rows) : static_cast<std::int64_t>(rng() % 4);
    text += std::to_string(r + 1) + " " + std::to_string(c + 1) + " ";
    char buf[32];
    text.append(buf, std::to_chars(buf, buf + sizeof buf, order_sensitive_value(rng)).ptr);
    text += "\n";
  }
  ReadOptions one;
  one.threads = 1;
  const Csr<double> want = coo_to_csr(parse_matrix_market(text, "<t>", one).coo);
  const io_detail::BucketRouteCounts before = io_detail::bucket_route_counts();
  for (int threads : {1, 2}) {
    ReadOptions o;
    o.threads = threads;
    expect_same(parse_matrix_market_csr(text, "<t>", o), want);
  }
  const io_detail::BucketRouteCounts after = io_detail::bucket_route_counts();
  EXPECT_EQ(after.taken - before.taken, 2);
  EXPECT_EQ(after.fell_back, before.fell_back);
}

// Errors on the row-bucket route name the same line as on the COO route.
TEST(MatrixMarketCsr, RowBucketRouteReportsErrorsLikeTheCooRoute) {
  std::mt19937_64 rng(7);
  const std::string good = shuffled_file(2000, 300, 20000, "real", rng);
  const std::size_t body = good.find('\n', good.find('\n', good.find('\n') + 1) + 1) + 1;  // after the size line
  const std::size_t mid = good.find('\n', body + good.size() / 2) + 1;
  const std::string bad_value = good.substr(0, mid) + "5 5 x1\n" + good.substr(mid);
  const std::string too_few = good.substr(0, good.rfind('\n', good.size() - 2) + 1);  // last entry dropped
  const std::string too_many = good + "1 1 1\n";
  // Row indices pass 1 stops counting at (it counts entries by row index): zero, beyond the rows, not a
  // number, a sign, a row index alone; one in the middle, one as the very first entry.
  std::vector<std::string> texts = {bad_value, too_few, too_many};
  for (const char* line : {"0 5 1.0\n", "2001 5 1.0\n", "x 5 1.0\n", "-3 5 1.0\n", "12\n", "99999999999999999999 1 1\n"}) {
    texts.push_back(good.substr(0, mid) + line + good.substr(mid));
    texts.push_back(good.substr(0, body) + line + good.substr(body));
  }
  for (const std::string* text : [&] {
         std::vector<const std::string*> v;
         for (const std::string& t : texts) v.push_back(&t);
         return v;
       }()) {
    for (int threads : {1, 3}) {
      ReadOptions o;
      o.threads = threads;
      o.chunk_bytes = 8192;
      std::string want, got;
      try {
        parse_matrix_market(*text, "<t>", o);
      } catch (const ParseError& e) {
        want = e.what();
      }
      try {
        parse_matrix_market_csr(*text, "<t>", o);
      } catch (const ParseError& e) {
        got = e.what();
      }
      EXPECT_FALSE(want.empty());
      EXPECT_EQ(got, want);
    }
  }
}
