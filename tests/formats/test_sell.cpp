// SELL-C-sigma: round trips through CSR for both index kinds and several C and sigma (sigma > C
// included), a hand-checked layout (permutation, widths, offsets, 16-bit delta chains), exact byte
// accounting, per-slice 16/32-bit fallback, the shape MatrixStats reports, and bad parameters.
#include <gtest/gtest.h>

#include <string>

#include "common/test_matrices.hpp"
#include "kernels/sell_cost.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/sell.hpp"
#include "spkit/stats.hpp"

namespace spkit::test {
namespace {

template <class T>
void expect_same_csr(const Csr<T>& a, const Csr<T>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);  // exact: conversions only move values
}

// Every array counted by hand, independently of spmv_bytes().
template <class T>
std::uint64_t counted_bytes(const Sell<T>& s) {
  return s.perm.size() * 4 + s.slice_offset.size() * 8 + s.slice_width.size() * 4 + s.slice_col_base.size() * 4 +
         s.slice_col_offset.size() * 8 + s.col_delta16.size() * 2 + s.col_idx32.size() * 4 + s.values.size() * sizeof(T);
}

std::vector<NamedMatrix> sell_matrices() {
  auto ms = edge_case_matrices();
  auto z = random_rows(70, 45, std::vector<std::int64_t>(70, 9), 99);
  for (std::size_t k = 0; k < z.values.size(); k += 3) z.values[k] = 0.0;  // stored zeros must survive
  ms.push_back({"explicit_zeros_70x45", std::move(z)});
  ms.push_back({"default_constructed_0x0", [] { Csr<double> d; d.row_ptr = {0}; return d; }()});
  for (auto& f : family_matrices()) ms.push_back(std::move(f));
  return ms;
}

TEST(SellFormat, RoundTripIndexKindsSliceHeightsAndWindows) {
  for (const auto& m : sell_matrices())
    for (SellIndex index : {SellIndex::c32, SellIndex::delta16})
      for (int c : {1, 4, 32})
        for (int sigma : {1, 32, 1024}) {
          SCOPED_TRACE(m.name + ", C " + std::to_string(c) + ", sigma " + std::to_string(sigma) +
                       (index == SellIndex::c32 ? ", c32" : ", delta16"));
          const auto s = csr_to_sell(m.a, index, c, sigma);
          expect_same_csr(sell_to_csr(s), m.a);
          EXPECT_EQ(s.spmv_bytes(), counted_bytes(s));
          EXPECT_EQ(s.bytes(), counted_bytes(s) + s.row_length.size() * 4);
          EXPECT_EQ(s.slices(), (m.a.rows + c - 1) / c);
          const SellShape shape = sell_shape(m.a, c, sigma);
          EXPECT_EQ(shape.slots, s.slots());
          EXPECT_EQ(shape.permuted, !s.perm.empty());
          if (index == SellIndex::delta16) EXPECT_EQ(shape.slots_16bit, s.col_delta16.size());
          else EXPECT_TRUE(s.col_delta16.empty());
          EXPECT_EQ(s.col_delta16.size() + s.col_idx32.size(), static_cast<std::size_t>(s.slots()));
          const auto sf = csr_to_sell(csr_cast<float>(m.a), index, c, sigma);
          expect_same_csr(sell_to_csr(sf), csr_cast<float>(m.a));
          EXPECT_EQ(sf.spmv_bytes(), counted_bytes(sf));
        }
}

// 5 x 70000, row lengths 0, 3, 0, 2, 1; C = 2, sigma = 4 (> C): window {0..3} sorted by length
// descending (stable) gives rows 1, 3, 0, 2; window {4} keeps row 4. Sorting saves 4 padded slots
// (12 -> 8), at least one per two rows, so the permutation is kept.
//   row 0: empty        row 1: (1, 10) (1, 20) (1, 69000)    row 2: empty
//   row 3: (3, 100) (3, 101)                                 row 4: (4, 65540)
Csr<double> hand_matrix() {
  Csr<double> a;
  a.rows = 5;
  a.cols = 70000;
  a.row_ptr = {0, 0, 3, 3, 5, 6};
  a.col_idx = {10, 20, 69000, 100, 101, 65540};
  a.values = {2, 3, 4, 5, 6, 7};
  return a;
}

TEST(SellFormat, HandCheckedLayoutDeltasAndBytes) {
  const auto s = csr_to_sell(hand_matrix(), SellIndex::delta16, 2, 4);
  EXPECT_EQ(s.sigma, 4);
  EXPECT_EQ(s.perm, (std::vector<std::int32_t>{1, 3, 0, 2, 4}));
  EXPECT_EQ(s.slice_width, (std::vector<std::int32_t>{3, 0, 1}));
  EXPECT_EQ(s.slice_offset, (std::vector<std::int64_t>{0, 6, 6, 8}));
  // Slice 0 (rows 1, 3): delta 69000 - 20 > 65535 -> 32-bit; row 3 padded with its last column.
  // Slice 1 (rows 0, 2): both empty, width 0, base 0.
  // Slice 2 (row 4 and the tail slot): base 65540 (> 65535 itself: only the deltas must fit).
  EXPECT_EQ(s.slice_col_base, (std::vector<std::int32_t>{-1, 0, 65540}));
  EXPECT_EQ(s.slice_col_offset, (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(s.col_idx32, (std::vector<std::int32_t>{10, 100, 20, 101, 69000, 101}));  // column-major
  EXPECT_EQ(s.col_delta16, (std::vector<std::uint16_t>{0, 0}));
  EXPECT_EQ(s.values, (std::vector<double>{2, 5, 3, 6, 4, 0, 7, 0}));
  EXPECT_EQ(s.slices_16bit(), 2);
  EXPECT_EQ(s.spmv_bytes(), 5u * 4 + 4u * 8 + 3u * 4 + 3u * 4 + 3u * 8 + 2u * 2 + 6u * 4 + 8u * 8);
  expect_same_csr(sell_to_csr(s), hand_matrix());

  // The same with 32-bit indices everywhere: 4 bytes per slot instead of 2 for the 16-bit ones.
  const auto c = csr_to_sell(hand_matrix(), SellIndex::c32, 2, 4);
  EXPECT_EQ(c.slice_col_base, (std::vector<std::int32_t>{-1, -1, -1}));
  EXPECT_EQ(c.slice_col_offset, (std::vector<std::int64_t>{0, 6, 6}));
  EXPECT_EQ(c.spmv_bytes(), s.spmv_bytes() + 2u * 2);
  // sigma = 1: no sorting, no permutation stored.
  EXPECT_TRUE(csr_to_sell(hand_matrix(), SellIndex::c32, 2, 1).perm.empty());
}

TEST(SellFormat, SortKeptOnlyWhenItPaysForThePermutation) {
  // Lengths 2, 3, 2, 2 in every window of 4: sorting moves the 3 to the front but both slices keep
  // widths 3 and 2 (no slot saved): no permutation, sigma 1.
  std::vector<std::int64_t> len(64);
  for (int i = 0; i < 64; ++i) len[i] = i % 4 == 1 ? 3 : 2;
  const auto a = random_rows(64, 50, len, 3);
  const auto s = csr_to_sell(a, SellIndex::c32, 2, 4);
  EXPECT_TRUE(s.perm.empty());
  EXPECT_EQ(s.sigma, 1);
  EXPECT_EQ(s.slots(), 16 * (2 * 3 + 2 * 2));
  expect_same_csr(sell_to_csr(s), a);
}

TEST(SellFormat, MixedSlicesFallBackPerSlice) {
  for (const auto& m : edge_case_matrices()) {
    if (m.name.rfind("mixed_16_32bit_slices", 0) != 0) continue;
    const auto s = csr_to_sell(m.a, SellIndex::delta16, 32, 1);
    EXPECT_EQ(s.slice_col_base.size(), 3u);
    EXPECT_GE(s.slice_col_base[0], 0);
    EXPECT_EQ(s.slice_col_base[1], -1);
    EXPECT_GE(s.slice_col_base[2], 100000);
    expect_same_csr(sell_to_csr(s), m.a);
    return;
  }
  FAIL() << "edge_case_matrices() lost mixed_16_32bit_slices";
}

TEST(SellFormat, PaddingShrinksWithTheWindow) {
  // Rows of lengths 1 and 33 alternating: unsorted every slice is 33 wide; sorted within 64 rows,
  // half the slices are 33 wide and half 1 wide.
  std::vector<std::int64_t> len(128);
  for (int i = 0; i < 128; ++i) len[i] = i % 2 ? 33 : 1;
  const auto a = random_rows(128, 200, len, 5);
  EXPECT_EQ(sell_shape(a, 32, 1).slots, 4 * 32 * 33);
  EXPECT_EQ(sell_shape(a, 32, 64).slots, 2 * 32 * 33 + 2 * 32 * 1);
  const MatrixStats st = compute_stats(a);
  EXPECT_NEAR(st.sell_padding_ratio, (2.0 * 32 * 33 + 2 * 32 - a.nnz()) / a.nnz(), 1e-12);
  EXPECT_DOUBLE_EQ(st.sell_delta16_fraction, 1.0);  // 200 columns: every delta fits
  EXPECT_TRUE(st.sell_permuted);
  // What the cost models read: the bytes of the format the conversion builds, x and y.
  const auto s = csr_to_sell(a, SellIndex::delta16);
  EXPECT_EQ(sell_spmv_bytes(st, 8, SellIndex::delta16), s.spmv_bytes() + (a.rows + a.cols) * 8);
}

TEST(SellFormat, RejectsBadParametersAndBudget) {
  const auto a = hand_matrix();
  EXPECT_THROW(csr_to_sell(a, SellIndex::c32, 0, 1), Error);
  EXPECT_THROW(csr_to_sell(a, SellIndex::c32, 32, 0), Error);
  EXPECT_THROW(csr_to_sell(a, SellIndex::c32, 32, 1, FormatLimits{16}), TooLarge);
}

}  // namespace
}  // namespace spkit::test
