// ELL: round trips through CSR in both layouts, a hand-checked layout with its padding and bytes.
#include <gtest/gtest.h>

#include "common/expect_csr.hpp"
#include "formats/round_trip_matrices.hpp"
#include "spkit/formats/ell.hpp"

namespace spkit::test {
namespace {

TEST(EllFormat, RoundTripBothLayouts) {
  for (const auto& m : round_trip_matrices())
    for (Layout l : {Layout::row_major, Layout::col_major}) {
      SCOPED_TRACE(m.name);
      const auto e = csr_to_ell(m.a, l);
      expect_same_csr(ell_to_csr(e), m.a);
      EXPECT_EQ(e.memory_bytes(), ell_bytes(m.a));
      const auto ef = csr_to_ell(csr_cast<float>(m.a), l);
      expect_same_csr(ell_to_csr(ef), csr_cast<float>(m.a));
    }
}

TEST(EllFormat, HandCheckedLayoutPaddingAndBytes) {
  const auto a = small();
  const auto r = csr_to_ell(a, Layout::row_major);
  EXPECT_EQ(r.width, 3);
  EXPECT_EQ(r.nnz, 5);
  // Row-major: row i at i*3. Padding: value 0, column = the row's last column (0 for an empty row).
  EXPECT_EQ(r.col_idx, (std::vector<std::int32_t>{0, 2, 2, 0, 0, 0, 1, 3, 4}));
  EXPECT_EQ(r.values, (std::vector<double>{1, 2, 0, 0, 0, 0, 3, 4, 0}));
  EXPECT_EQ(r.memory_bytes(), 9u * (4 + 8));
  const auto c = csr_to_ell(a, Layout::col_major);
  // Column-major: element k of row i at k*3 + i.
  EXPECT_EQ(c.col_idx, (std::vector<std::int32_t>{0, 0, 1, 2, 0, 3, 2, 0, 4}));
  EXPECT_EQ(c.values, (std::vector<double>{1, 0, 3, 2, 0, 4, 0, 0, 0}));
  EXPECT_EQ(csr_to_ell(csr_cast<float>(a), Layout::col_major).memory_bytes(), 9u * (4 + 4));
}

}  // namespace
}  // namespace spkit::test
