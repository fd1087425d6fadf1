// Matrix Market header alone (read_matrix_market_header): a size line beyond the first prefix read, and
// a missing file.
#include <gtest/gtest.h>

#include <string>

#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

using namespace spkit;
using namespace spkit::mm_test;

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
