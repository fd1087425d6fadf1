// Matrix Market bodies the reader accepts: what the reference readers accept, empty matrices, every
// field, duplicates, symmetric and skew-symmetric expansion, array files, and parallel chunks giving the
// serial result (and naming an error's exact line).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "formats/csr_reference.hpp"
#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

using namespace spkit;
using namespace spkit::csr_test;
using namespace spkit::mm_test;

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
  const MmMatrix m = parse_matrix_market(kRealGeneralBanner + "2 2 3\n1 1 1e-400\n2 2 -1e-320\n1 2 4.9e-324");
  ASSERT_EQ(m.coo.nnz(), 3);
  EXPECT_EQ(m.coo.values[0], 0.0);  // underflow rounds to zero, as strtod does
  EXPECT_TRUE(m.coo.values[1] <= 0.0);
  EXPECT_EQ(m.coo.values[2], 4.9e-324);
}

TEST(MatrixMarketRead, EmptyMatrices) {
  for (const std::string& t : std::vector<std::string>{kRealGeneralBanner + "0 0 0\n", kRealGeneralBanner + "5 3 0\n", kRealGeneralBanner + "5 3 0", "%%MatrixMarket matrix array real general\n0 0\n"}) {
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
  const Csr<double> a = parse_csr(kRealGeneralBanner + "2 2 4\n1 1 1\n2 2 5\n1 1 2.5\n1 1 -0.5\n");
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
  std::string text = kRealGeneralBanner + "% header comment\n" + "5000 7000 " + std::to_string(n) + "\n";
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
