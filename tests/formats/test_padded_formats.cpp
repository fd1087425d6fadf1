// ELL, HLL, HYB and bmSparse: round trips through CSR (explicit zeros, empty rows, 0x0 included),
// hand-checked layouts and byte counts, bitmap bit order, hack boundaries, and the memory budget.
#include <gtest/gtest.h>

#include <string>

#include "common/expect_csr.hpp"
#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/formats/ell.hpp"
#include "spkit/formats/hll.hpp"
#include "spkit/formats/hyb.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

// Hand-made 3 x 5 matrix, rows of length 2, 0, 3, with an explicit zero at (2, 4).
//   [ 1 . 2 . . ]
//   [ . . . . . ]
//   [ . 3 . 4 0 ]
Csr<double> small() {
  Csr<double> a;
  a.rows = 3;
  a.cols = 5;
  a.row_ptr = {0, 2, 2, 5};
  a.col_idx = {0, 2, 1, 3, 4};
  a.values = {1, 2, 3, 4, 0};
  return a;
}

// Edge cases plus matrices with explicit zeros, for the round trips.
std::vector<NamedMatrix> round_trip_matrices() {
  auto ms = edge_case_matrices();
  ms.push_back({"small_explicit_zero", small()});
  auto z = random_rows(70, 45, std::vector<std::int64_t>(70, 9), 99);
  for (std::size_t k = 0; k < z.values.size(); k += 3) z.values[k] = 0.0;  // stored zeros must survive
  ms.push_back({"explicit_zeros_70x45", std::move(z)});
  ms.push_back({"default_constructed_0x0", [] { Csr<double> d; d.row_ptr = {0}; return d; }()});
  return ms;
}

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

TEST(FormatBudget, TinyBudgetThrowsTooLargeNamingTheBytes) {
  const auto a = small();
  const FormatLimits tiny{16};
  try {
    csr_to_ell(a, Layout::row_major, tiny);
    FAIL() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_EQ(e.bytes_needed(), 9u * 12 + 3u * 4);  // padded arrays + row lengths
    EXPECT_NE(std::string(e.what()).find(std::to_string(e.bytes_needed())), std::string::npos) << e.what();
  }
  EXPECT_THROW(csr_to_hll(a, 2, Layout::col_major, tiny), TooLarge);
  EXPECT_THROW(csr_to_hyb(a, -1, tiny), TooLarge);
  EXPECT_THROW(csr_to_bmsparse(a, tiny), TooLarge);
  // A budget exactly the size needed is enough.
  EXPECT_NO_THROW(csr_to_ell(a, Layout::row_major, FormatLimits{9u * 12 + 3u * 4}));
}

TEST(FormatBudget, KernelsRefuseAtPlanTime) {
  const auto a = small();
  PlanOptions po;
  po.memory_budget_bytes = 16;
  for (const char* name : {"cpu.ell.serial.row_order", "cpu.ell.serial.col_order", "cpu.ell.omp",
                           "cpu.hll.serial.row_major", "cpu.hll.omp.guided", "cpu.hyb.omp", "cpu.bmsparse.omp"}) {
    const KernelInfo* k = registry().find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_THROW(k->make_f64(a, po), TooLarge) << name;
    EXPECT_THROW(k->make_f32(csr_cast<float>(a), po), TooLarge) << name;
  }
}

TEST(FormatBudget, EllOfAHugeRowCountsIn64Bits) {
  // 300000 rows with one row of 100000 entries: 3e10 padded slots, 3.6e11 bytes; products in 32 bits
  // would wrap. The budget check must name the exact 64-bit size and allocate nothing.
  std::vector<std::int64_t> len(300000, 0);
  len[0] = 100000;
  Csr<double> a;
  a.rows = 300000;
  a.cols = 100000;
  a.row_ptr.assign(300001, 100000);
  a.row_ptr[0] = 0;
  a.col_idx.resize(100000);
  for (int k = 0; k < 100000; ++k) a.col_idx[k] = k;
  a.values.assign(100000, 1.0);
  const std::uint64_t expected = 300000ull * 100000ull * 12ull + 300000ull * 4ull;
  EXPECT_EQ(ell_bytes(a), 300000ull * 100000ull * 12ull);
  try {
    csr_to_ell(a, Layout::col_major, FormatLimits{1ull << 30});
    FAIL() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_EQ(e.bytes_needed(), expected);
  }
}

}  // namespace
}  // namespace spkit::test
