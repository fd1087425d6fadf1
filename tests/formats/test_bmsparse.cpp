// bmSparse: bitmap bit order, block keys and packed values by hand, and round trips through CSR.
#include <gtest/gtest.h>

#include "common/expect_csr.hpp"
#include "formats/round_trip_matrices.hpp"
#include "spkit/formats/bmsparse.hpp"

namespace spkit::test {
namespace {

TEST(BmSparseFormat, BitOrderKeysAndPackedValues) {
  // 10 x 27: entries (0,0)=1, (0,5)=2, (1,2)=3 in block (0,0); (9,26)=4 in block (1,3);
  // (7,7)=5 in block (0,0) as element 63 (the least significant bit).
  Csr<double> a;
  a.rows = 10;
  a.cols = 27;
  a.row_ptr = {0, 2, 3, 3, 3, 3, 3, 3, 4, 4, 5};
  a.col_idx = {0, 5, 2, 7, 26};
  a.values = {1, 2, 3, 5, 4};
  const auto bm = csr_to_bmsparse(a);
  ASSERT_EQ(bm.blocks(), 2);
  EXPECT_EQ(bm.keys[0], 0u);
  EXPECT_EQ(bm.keys[1], (std::uint64_t{1} << 32) | 3u);
  const std::uint64_t one = 1;
  EXPECT_EQ(bm.bitmaps[0], (one << 63) | (one << (63 - 5)) | (one << (63 - 10)) | one);
  EXPECT_EQ(bm.bitmaps[1], one << (63 - (8 * 1 + 2)));  // (9,26) is row 1, column 2 of block (1,3)
  EXPECT_TRUE(BmSparse<double>::has(bm.bitmaps[0], 10));
  EXPECT_FALSE(BmSparse<double>::has(bm.bitmaps[0], 11));
  EXPECT_EQ(bm.values, (std::vector<double>{1, 2, 3, 5, 4}));  // row-major within each block
  EXPECT_EQ(bm.offsets, (std::vector<std::int64_t>{0, 4, 5}));
  EXPECT_EQ(bm.block_row_ptr, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(bm.memory_bytes(), 2u * 8 + 2u * 8 + 3u * 8 + 5u * 8 + 3u * 8);
  expect_same_csr(bmsparse_to_csr(bm), a);
}

TEST(BmSparseFormat, RoundTrip) {
  for (const auto& m : round_trip_matrices()) {
    SCOPED_TRACE(m.name);
    const auto bm = csr_to_bmsparse(m.a);
    expect_same_csr(bmsparse_to_csr(bm), m.a);
    EXPECT_EQ(bm.nnz(), m.a.nnz());
    EXPECT_EQ(static_cast<std::int64_t>(bm.block_row_ptr.size()), bm.block_rows() + 1);
    for (std::int64_t b = 1; b < bm.blocks(); ++b) EXPECT_LT(bm.keys[b - 1], bm.keys[b]);  // sorted
    const auto bf = csr_to_bmsparse(csr_cast<float>(m.a));
    expect_same_csr(bmsparse_to_csr(bf), csr_cast<float>(m.a));
  }
}

}  // namespace
}  // namespace spkit::test
