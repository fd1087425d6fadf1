// HLL: round trips through CSR for several hack sizes and both layouts, and the last hack when the
// rows are not a multiple of the hack size.
#include <gtest/gtest.h>

#include <string>

#include "common/expect_csr.hpp"
#include "formats/round_trip_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/hll.hpp"

namespace spkit::test {
namespace {

TEST(HllFormat, RoundTripHackSizesAndLayouts) {
  for (const auto& m : round_trip_matrices())
    for (int hs : {1, 3, 8, 32, 100})
      for (Layout l : {Layout::row_major, Layout::col_major}) {
        SCOPED_TRACE(m.name + " hack " + std::to_string(hs));
        const auto h = csr_to_hll(m.a, hs, l);
        expect_same_csr(hll_to_csr(h), m.a);
        EXPECT_EQ(h.memory_bytes(), hll_bytes(m.a, hs));
        EXPECT_EQ(h.hacks(), (m.a.rows + hs - 1) / hs);
      }
}

TEST(HllFormat, HackBoundaryWhenRowsNotMultipleOfHackSize) {
  // 5 rows, hack size 2: hacks {0,1}, {2,3}, {4}; row lengths 1, 3, 0, 2, 2.
  Csr<double> a;
  a.rows = 5;
  a.cols = 6;
  a.row_ptr = {0, 1, 4, 4, 6, 8};
  a.col_idx = {5, 0, 1, 2, 3, 4, 0, 5};
  a.values = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto h = csr_to_hll(a, 2, Layout::col_major);
  EXPECT_EQ(h.hack_width, (std::vector<std::int32_t>{3, 2, 2}));
  EXPECT_EQ(h.hack_offset, (std::vector<std::int64_t>{0, 6, 10, 12}));  // last hack: 1 row x width 2
  // Hack 0 column-major (idx = k*2 + r): row 0 = [5 pad pad], row 1 = [0 1 2].
  EXPECT_EQ(std::vector<std::int32_t>(h.col_idx.begin(), h.col_idx.begin() + 6),
            (std::vector<std::int32_t>{5, 0, 5, 1, 5, 2}));
  EXPECT_EQ(std::vector<double>(h.values.begin(), h.values.begin() + 6), (std::vector<double>{1, 2, 0, 3, 0, 4}));
  // Last hack has one row: idx = k*1 + 0.
  EXPECT_EQ(h.col_idx[10], 0);
  EXPECT_EQ(h.col_idx[11], 5);
  EXPECT_EQ(h.memory_bytes(), 4u * 8 + 3u * 4 + 12u * (4 + 8));
  const auto r = csr_to_hll(a, 2, Layout::row_major);
  // Hack 0 row-major (idx = r*3 + k).
  EXPECT_EQ(std::vector<std::int32_t>(r.col_idx.begin(), r.col_idx.begin() + 6),
            (std::vector<std::int32_t>{5, 5, 5, 0, 1, 2}));
  EXPECT_THROW(csr_to_hll(a, 0, Layout::row_major), Error);
}

}  // namespace
}  // namespace spkit::test
