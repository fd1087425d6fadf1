// DIA: round trips through CSR (full and symmetric, untiled and tiled), a hand-checked layout of a
// non-square matrix with a diagonal that starts beyond the row range, exact byte accounting, and the
// refusals (not symmetric, too much padding, memory budget).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/expect_csr.hpp"
#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/dia.hpp"

namespace spkit::test {
namespace {

DiaOptions permissive(bool symmetric = false, std::int64_t tile = 0) {
  DiaOptions o;
  o.symmetric = symmetric;
  o.tile_rows = tile;
  o.max_bytes_ratio = 1e12;  // round trips of any pattern
  return o;
}

TEST(DiaFormat, RoundTripEveryTestMatrixUntiledAndTiled) {
  auto ms = edge_case_matrices();
  for (auto& m : family_matrices()) ms.push_back(std::move(m));
  for (const auto& m : ms)
    for (std::int64_t tile : {0, 7, 64}) {
      SCOPED_TRACE(m.name + ", tile " + std::to_string(tile));
      if (m.a.rows + m.a.cols > 200000) continue;  // keep the padded test copies small
      const Dia<double> d = csr_to_dia(m.a, permissive(false, tile));
      expect_same_csr(dia_to_csr(d), m.a);
      const DiaShape s = dia_shape(m.a, permissive(false, tile));
      EXPECT_EQ(d.memory_bytes(), s.bytes);
      EXPECT_EQ(d.diagonals(), s.stored_diagonals);
      EXPECT_EQ(d.values.size(), static_cast<std::size_t>(d.diagonals() * d.padded_rows()));
      const auto af = csr_cast<float>(m.a);
      expect_same_csr(dia_to_csr(csr_to_dia(af, permissive(false, tile))), af);
    }
}

TEST(DiaFormat, SymmetricRoundTripOnSymmetricFamilies) {
  int symmetric_seen = 0;
  for (const auto& m : family_matrices()) {
    SCOPED_TRACE(m.name);
    if (!is_exactly_symmetric(m.a)) {
      EXPECT_THROW(csr_to_dia(m.a, permissive(true)), NotApplicable);
      continue;
    }
    ++symmetric_seen;
    const Dia<double> d = csr_to_dia(m.a, permissive(true));
    EXPECT_TRUE(d.symmetric);
    for (std::int64_t off : d.offsets) EXPECT_GE(off, 0);
    EXPECT_EQ(d.diagonals(), (dia_shape(m.a, permissive()).diagonals + 1) / 2);  // main diagonal present
    expect_same_csr(dia_to_csr(d), m.a);
  }
  EXPECT_GE(symmetric_seen, 4);  // lap2d, lap3d (7 and 27 points), fem, banded are symmetric
}

TEST(DiaFormat, HandCheckedNonSquareLayoutWithFarDiagonal) {
  // 5 x 9: main diagonal, d = +2, and d = +7 which only rows 0 and 1 reach; d = -3 reaches rows 3, 4.
  const Csr<double> a = banded_csr(5, 9, {-3, 0, 2, 7}, false);
  const Dia<double> d = csr_to_dia(a, DiaOptions{});
  ASSERT_EQ(d.offsets, (std::vector<std::int64_t>{-3, 0, 2, 7}));
  EXPECT_EQ(d.rows, 5);
  EXPECT_EQ(d.cols, 9);
  EXPECT_EQ(d.nnz, a.nnz());
  // Slots outside the matrix hold zero; inside, the CSR value of (i, i + d).
  auto value_at = [&](std::int64_t i, std::int64_t j) {
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[k] == j) return a.values[k];
    return 0.0;
  };
  for (std::int64_t k = 0; k < 4; ++k)
    for (std::int64_t i = 0; i < 5; ++i) {
      const std::int64_t j = i + d.offsets[k];
      const double expected = j >= 0 && j < 9 ? value_at(i, j) : 0.0;
      EXPECT_EQ(d.values[d.index(k, i)], expected) << "diagonal " << d.offsets[k] << ", row " << i;
      EXPECT_EQ(d.index(k, i), static_cast<std::size_t>(k * 5 + i));
    }
  EXPECT_EQ(d.values[d.index(3, 2)], 0.0);  // row 2 + 7 = column 9: outside
  EXPECT_NE(d.values[d.index(3, 1)], 0.0);  // row 1 + 7 = column 8: inside
  EXPECT_EQ(d.memory_bytes(), 4u * 5u * 8u + 4u * 8u);  // slots + 64-bit offsets, nothing else
  expect_same_csr(dia_to_csr(d), a);
  // Tiled with 3-row tiles: rows padded to 6, tile-major.
  DiaOptions tiled;
  tiled.tile_rows = 3;
  const Dia<double> t = csr_to_dia(a, tiled);
  EXPECT_EQ(t.padded_rows(), 6);
  EXPECT_EQ(t.values.size(), 4u * 6u);
  EXPECT_EQ(t.index(1, 4), static_cast<std::size_t>((1 * 4 + 1) * 3 + 1));
  EXPECT_EQ(t.memory_bytes(), 4u * 6u * 8u + 4u * 8u);
  expect_same_csr(dia_to_csr(t), a);
  // Tall: 9 x 4, diagonal -8 reaches only row 8.
  const Csr<double> tall = banded_csr(9, 4, {-8, -1, 0, 3}, false);
  const Dia<double> dt = csr_to_dia(tall, permissive());
  EXPECT_EQ(dt.offsets, (std::vector<std::int64_t>{-8, -1, 0, 3}));
  expect_same_csr(dia_to_csr(dt), tall);
}

TEST(DiaFormat, SymmetricButNotBanded) {
  // Main diagonal plus two far symmetric pairs: (0, 49) and (10, 30). Three diagonals d >= 0 stored.
  std::vector<std::vector<std::int32_t>> rc(50);
  for (int i = 0; i < 50; ++i) rc[i].push_back(i);
  auto add = [&](int i, int j) { rc[i].push_back(j), rc[j].push_back(i); };
  add(0, 49);
  add(10, 30);
  for (auto& r : rc) std::sort(r.begin(), r.end());
  Csr<double> a = random_csr(50, 50, 3, rc);
  auto set = [&](int i, int j, double v) {
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[k] == j) a.values[k] = v;
  };
  set(0, 49, 0.5), set(49, 0, 0.5), set(10, 30, -0.75), set(30, 10, -0.75);
  ASSERT_TRUE(is_exactly_symmetric(a));
  const Dia<double> d = csr_to_dia(a, permissive(true));
  EXPECT_EQ(d.offsets, (std::vector<std::int64_t>{0, 20, 49}));
  EXPECT_EQ(d.values[d.index(2, 0)], 0.5);    // a(0, 49); the mirror a(49, 0) is read from here
  EXPECT_EQ(d.values[d.index(1, 10)], -0.75);  // a(10, 30)
  expect_same_csr(dia_to_csr(d), a);
  // The full DIA would store all 5 diagonals: bytes counted exactly, against CSR's.
  const DiaShape full = dia_shape(a, DiaOptions{});
  EXPECT_EQ(full.stored_diagonals, 5);
  EXPECT_EQ(full.bytes, 5u * 50u * 8u + 5u * 8u);
  EXPECT_EQ(full.csr_bytes, 51u * 8u + 54u * 12u);
  // Value asymmetry (same pattern) and pattern asymmetry are both refused for the symmetric variant.
  Csr<double> b = a;
  b.values[static_cast<std::size_t>(b.row_ptr[0] + 1)] = 0.25;  // a(0, 49) changed, a(49, 0) not
  EXPECT_FALSE(is_exactly_symmetric(b));
  EXPECT_THROW(csr_to_dia(b, permissive(true)), NotApplicable);
  const Csr<double> lower_only = banded_csr(6, 6, {-2, 0}, false);
  EXPECT_FALSE(is_exactly_symmetric(lower_only));
  EXPECT_THROW(csr_to_dia(lower_only, permissive(true)), NotApplicable);
  EXPECT_THROW(csr_to_dia(banded_csr(4, 6, {0}, true), permissive(true)), NotApplicable);  // not square
}

TEST(DiaFormat, SymmetricWithoutMainDiagonal) {
  const Csr<double> a = banded_csr(37, 37, {-5, -1, 1, 5}, true);
  ASSERT_TRUE(is_exactly_symmetric(a));
  const Dia<double> d = csr_to_dia(a, permissive(true));
  EXPECT_EQ(d.offsets, (std::vector<std::int64_t>{1, 5}));
  expect_same_csr(dia_to_csr(d), a);
}

TEST(DiaFormat, RefusesMostlyPaddingAndOverBudget) {
  // A random matrix: hundreds of diagonals with one entry each.
  const Csr<double> r = random_rows(300, 300, std::vector<std::int64_t>(300, 4), 11);
  try {
    csr_to_dia(r, DiaOptions{});
    FAIL() << "expected NotApplicable";
  } catch (const NotApplicable& e) {
    EXPECT_NE(std::string(e.what()).find("DIA would store"), std::string::npos) << e.what();
  }
  const Csr<double> band = banded_csr(1000, 1000, {-1, 0, 1}, false);
  FormatLimits tiny;
  tiny.memory_budget_bytes = 1000;
  EXPECT_THROW(csr_to_dia(band, DiaOptions{}, tiny), TooLarge);
  EXPECT_NO_THROW(csr_to_dia(band, DiaOptions{}));
  // A 3-diagonal band is far below CSR: 3 x 8 bytes per row vs 8 + 3 x 12.
  const DiaShape s = dia_shape(band, DiaOptions{});
  EXPECT_LT(static_cast<double>(s.bytes), kDiaKernelMaxBytesRatio * static_cast<double>(s.csr_bytes));
  DiaOptions bad;
  bad.tile_rows = -1;
  EXPECT_THROW(csr_to_dia(band, bad), Error);
}

TEST(DiaFormat, EmptyMatrices) {
  Csr<double> z;
  z.rows = 4;
  z.cols = 3;
  z.row_ptr.assign(5, 0);
  const Dia<double> d = csr_to_dia(z);
  EXPECT_EQ(d.diagonals(), 0);
  EXPECT_EQ(d.memory_bytes(), 0u);
  expect_same_csr(dia_to_csr(d), z);
}

}  // namespace
}  // namespace spkit::test
