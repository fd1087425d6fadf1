// The reader's bucketed route (parse_matrix_market_csr on a general file in random order): the COO
// route's result bit for bit for every field, shape, thread count and chunking, every line form, a huge
// bucket, and the same errors.
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "formats/csr_reference.hpp"
#include "io/mm_bucketed_route.hpp"
#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

using namespace spkit;
using namespace spkit::csr_test;
using namespace spkit::mm_test;

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
