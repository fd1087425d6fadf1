// Matrix Market tokens: indices of every length and separator (the 8-byte index reader and its
// fallback), and values read back bit for bit as std::from_chars reads them.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  std::string text = kRealGeneralBanner + "1 1 " + std::to_string(texts.size()) + "\n";
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
