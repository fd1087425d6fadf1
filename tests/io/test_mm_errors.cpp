// Matrix Market input the reader refuses: every error path, with its message fragment and 1-based line,
// for one chunk and for many tiny ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

using namespace spkit;
using namespace spkit::mm_test;

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
        BadCase{"missing_size_line", kRealGeneralBanner + "% only a comment\n", "missing size line", 3},
        BadCase{"missing_size_line_no_nl", kRealGeneralBanner + "% only a comment", "missing size line", 2},
        BadCase{"size_line_two_numbers", kRealGeneralBanner + "3 3\n", "size line must have 3 numbers", 2},
        BadCase{"size_line_text", kRealGeneralBanner + "% c\n3 x 1\n", "column count 'x' is not a non-negative integer", 3},
        BadCase{"size_negative", kRealGeneralBanner + "-3 3 1\n", "negative row count", 2},
        BadCase{"size_overflow_int64", kRealGeneralBanner + "99999999999999999999 3 1\n", "overflows a 64-bit integer", 2},
        BadCase{"size_over_int32", kRealGeneralBanner + "3000000000 3000000000 1\n1 1 1\n", "32-bit indices", 2},
        BadCase{"size_array_huge", "%%MatrixMarket matrix array real general\n2147483648 2\n", "32-bit indices", 2},
        BadCase{"nnz_int64_max", kRealGeneralBanner + "3 3 9223372036854775807\n1 1 1\n", "file ends after 1 of the 9223372036854775807", 4},
        BadCase{"sym_nnz_int64_max", "%%MatrixMarket matrix coordinate real symmetric\n3 3 9223372036854775807\n1 1 1\n", "file ends after 1 of", 4},
        BadCase{"nnz_overflow", kRealGeneralBanner + "3 3 99999999999999999999\n", "overflows a 64-bit integer", 2},
        BadCase{"symmetric_not_square", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", "must be square", 2},
        BadCase{"fewer_entries", kRealGeneralBanner + "3 3 3\n1 1 1\n2 2 2\n", "file ends after 2 of the 3 entries", 5},
        BadCase{"fewer_entries_no_final_newline", kRealGeneralBanner + "3 3 3\n1 1 1\n2 2 2", "file ends after 2 of the 3", 5},
        BadCase{"no_entries_at_all", kRealGeneralBanner + "3 3 1\n", "file ends after 0 of the 1", 3},
        BadCase{"more_entries", kRealGeneralBanner + "3 3 1\n1 1 1\n% c\n\n2 2 2\n", "more entries than the 1", 6},
        BadCase{"row_zero", kRealGeneralBanner + "3 3 2\n1 1 1\n0 1 1\n", "row index '0' is outside 1..3", 4},
        BadCase{"col_beyond", kRealGeneralBanner + "3 3 2\n1 1 1\n1 4 1\n", "column index '4' is outside 1..3", 4},
        BadCase{"row_negative", kRealGeneralBanner + "3 3 1\n-1 1 1\n", "row index '-1' is not a positive integer", 3},
        BadCase{"row_huge", kRealGeneralBanner + "3 3 1\n123456789012345678901234 1 1\n", "is outside 1..3", 3},
        BadCase{"row_float", kRealGeneralBanner + "3 3 1\n1.5 1 1\n", "row index '1.5' is not a positive integer", 3},
        BadCase{"missing_col", kRealGeneralBanner + "3 3 1\n1\n", "no column index", 3},
        BadCase{"missing_value", kRealGeneralBanner + "3 3 1\n1 1\n", "entry has no value", 3},
        BadCase{"value_text", kRealGeneralBanner + "3 3 1\n1 1 abc\n", "value 'abc' is not a real number", 3},
        BadCase{"value_trailing_junk", kRealGeneralBanner + "3 3 1\n1 1 1.5x\n", "value '1.5x' is not a real number", 3},
        BadCase{"value_comma", kRealGeneralBanner + "3 3 1\n1 1 1,5\n", "is not a real number", 3},
        BadCase{"value_double_sign", kRealGeneralBanner + "3 3 1\n1 1 +-1\n", "is not a real number", 3},
        BadCase{"value_nan", kRealGeneralBanner + "3 3 1\n1 1 nan\n", "is NaN", 3},
        BadCase{"value_NaN_caps", kRealGeneralBanner + "3 3 1\n1 1 NaN\n", "is NaN", 3},
        BadCase{"value_inf", kRealGeneralBanner + "3 3 1\n1 1 -inf\n", "infinite", 3},
        BadCase{"value_overflow", kRealGeneralBanner + "3 3 1\n1 1 1e400\n", "infinite", 3},
        BadCase{"extra_token", kRealGeneralBanner + "3 3 1\n1 1 1 2\n", "unexpected '2' after the entry", 3},
        BadCase{"pattern_with_value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.0\n", "pattern matrix entry has a value", 3},
        BadCase{"integer_with_fraction", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", "is not an integer", 3},
        BadCase{"integer_overflow", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 99999999999999999999\n", "overflows", 3},
        BadCase{"skew_diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", "cannot store a diagonal entry", 3},
        BadCase{"array_too_few", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", "file ends after 3 of the 4", 6},
        BadCase{"array_too_many", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", "more entries than the 2", 5},
        BadCase{"array_two_values_a_line", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", "unexpected '2' after the value", 3},
        BadCase{"nul_in_body", kRealGeneralBanner + std::string("3 3 1\n1 1 \0" "1\n", 13), "binary data (byte '\\x00')", 3},
        BadCase{"spkb_as_text", "SPKB\r\n\x1a\n....", "binary", 1}),
    [](const auto& info) { return std::string(info.param.name); });
