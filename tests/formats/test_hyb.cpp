// HYB: the ELL width rule, the overflow into COO, and round trips through CSR.
#include <gtest/gtest.h>

#include <string>

#include "common/expect_csr.hpp"
#include "formats/round_trip_matrices.hpp"
#include "spkit/formats/hyb.hpp"

namespace spkit::test {
namespace {

TEST(HybFormat, WidthRuleAndRoundTrip) {
  // Row lengths 1..6: rows with >= K entries must be at least a third (2 of 6): K = 5.
  auto a = random_rows(6, 20, {1, 2, 3, 4, 5, 6}, 5);
  EXPECT_EQ(hyb_choose_width(a), 5);
  const auto h = csr_to_hyb(a);
  EXPECT_EQ(h.ell.width, 5);
  EXPECT_EQ(h.ell.layout, Layout::col_major);
  EXPECT_EQ(h.coo.nnz(), 1);  // the 6th entry of the last row
  EXPECT_EQ(h.coo.row_idx[0], 5);
  EXPECT_EQ(h.coo.col_idx[0], a.col_idx[a.row_ptr[6] - 1]);
  EXPECT_EQ(h.ell.nnz + h.coo.nnz(), a.nnz());
  EXPECT_EQ(h.memory_bytes(), 30u * (4 + 8) + 1u * (4 + 4 + 8));
  // All rows length 3 but one of 40: K = 3, the long row overflows into COO.
  std::vector<std::int64_t> len(10, 3);
  len[4] = 40;
  auto b = random_rows(10, 50, len, 6);
  EXPECT_EQ(hyb_choose_width(b), 3);
  EXPECT_EQ(csr_to_hyb(b).coo.nnz(), 37);
  for (const auto& m : round_trip_matrices())
    for (std::int64_t forced : {-1, 0, 1, 4}) {
      SCOPED_TRACE(m.name + " width " + std::to_string(forced));
      expect_same_csr(hyb_to_csr(csr_to_hyb(m.a, forced)), m.a);
    }
}

}  // namespace
}  // namespace spkit::test
