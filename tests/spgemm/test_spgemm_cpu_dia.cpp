// cpu.dia.spgemm, the diagonal SpGEMM: on diagonal-structured products it must give exactly what the dense
// Gustavson kernel gives (pattern, dropped exact zeros, and values: both sum each entry in A's then B's
// order) and agree with the fp64 reference; the same C at 1, 2 and 3 threads; a refusal, with a reason,
// for matrices that are not diagonal-structured. The registry-driven tests (test_spgemm_kernels.cpp) run
// it on every product as well.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/stats.hpp"

namespace spkit::test {
namespace {

const SpgemmKernelInfo& dia() {
  const SpgemmKernelInfo* k = spgemm_registry().find("cpu.dia.spgemm");
  EXPECT_NE(k, nullptr);
  return *k;
}

// Same pattern, values fresh in [-1, 1) from `seed`.
Csr<double> fresh(Csr<double> m, std::uint64_t seed) {
  m.values = random_vector(m.nnz(), seed);
  return m;
}

// C = A B by cpu.dia.spgemm at 1, 2 and 3 threads: identical to each other and to the dense Gustavson
// kernel's C, and within the reference's bound.
template <class T>
void expect_as_gustavson(const Csr<double>& a64, const Csr<double>& b64, const std::string& what) {
  SCOPED_TRACE(what + (sizeof(T) == 4 ? ", float" : ", double"));
  const Csr<T> a = csr_cast<T>(a64), b = csr_cast<T>(b64);
  const SpgemmKernelInfo* dense = spgemm_registry().find("cpu.csr.gustavson_dense");
  ASSERT_NE(dense, nullptr);
  SpgemmOptions o;
  const Csr<T> want = dense->fn<T>()(a, b, o).c;
  for (int threads : {1, 2, 3}) {
    o.threads = threads;
    const SpgemmResult<T> r = dia().fn<T>()(a, b, o);
    SCOPED_TRACE("threads " + std::to_string(threads) + ": " + r.detail);
    ASSERT_NO_THROW(check_csr(r.c));
    EXPECT_EQ(r.c.rows, want.rows);
    EXPECT_EQ(r.c.cols, want.cols);
    EXPECT_EQ(r.c.row_ptr, want.row_ptr);
    EXPECT_EQ(r.c.col_idx, want.col_idx);
    EXPECT_EQ(r.c.values, want.values);
    const SpgemmCheck v = check_spgemm(a, b, r.c, sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
    EXPECT_TRUE(v.ok) << v.message;
  }
}

void expect_both(const Csr<double>& a, const Csr<double>& b, const std::string& what) {
  expect_as_gustavson<double>(a, b, what);
  expect_as_gustavson<float>(a, b, what);
}

std::vector<std::int64_t> band(std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> d;
  for (std::int64_t x = lo; x <= hi; ++x) d.push_back(x);
  return d;
}

TEST(SpgemmCpuDia, BandedTimesItself) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("values seed " + std::to_string(seed));
  for (std::int64_t n : {1, 2, 5, 11, 12, 37, 1001, 20'003}) {
    const Csr<double> a = fresh(banded_csr(n, n, band(-5, 5), false), seed + n);
    expect_both(a, a, "banded n " + std::to_string(n));
  }
  // The generator's banded family (the benchmark's matrix), with its own values.
  GenOptions spec;
  spec.family = "banded";
  spec.n = 30'011;
  const Csr<double> g = generate(spec);
  expect_both(g, g, "spkit gen banded");
}

TEST(SpgemmCpuDia, RectangularAndOneSided) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("values seed " + std::to_string(seed));
  // A 301 x 77, B 77 x 413: diagonals cut by both shapes.
  const Csr<double> a = fresh(banded_csr(301, 77, band(-4, 2), false), seed);
  const Csr<double> b = fresh(banded_csr(77, 413, band(-1, 6), false), seed + 1);
  expect_both(a, b, "301x77 * 77x413");
  const Csr<double> wide = fresh(banded_csr(40, 1000, band(0, 9), false), seed + 2);
  const Csr<double> tall = fresh(banded_csr(1000, 40, band(-3, 0), false), seed + 3);
  expect_both(wide, tall, "40x1000 * 1000x40");
  expect_both(tall, wide, "1000x40 * 40x1000");
  // Far, non-consecutive diagonals (the general lane table), and n smaller than the band's reach.
  const Csr<double> gaps = fresh(banded_csr(200, 200, {-7, -1, 0, 2, 5}, false), seed + 6);  // interior rows too
  expect_both(gaps, gaps, "diagonals -7 -1 0 2 5");
  const Csr<double> far = fresh(banded_csr(500, 500, {-97, -1, 0, 3, 250}, false), seed + 4);
  expect_both(far, far, "diagonals -97 -1 0 3 250");
  const Csr<double> tiny = fresh(banded_csr(3, 3, {-40, -2, 0, 1, 40}, false), seed + 5);
  expect_both(tiny, tiny, "3x3 with diagonals reaching past it");
}

TEST(SpgemmCpuDia, EmptyAndOneByOne) {
  expect_both(random_csr(1, 1, 3, {{0}}), random_csr(1, 1, 4, {{0}}), "1x1");
  const Csr<double> none = random_csr(6, 6, 1, std::vector<std::vector<std::int32_t>>(6));
  expect_both(none, none, "6x6 with no entries");
  expect_both(random_csr(0, 4, 1, {}), random_csr(4, 3, 1, {{0}, {1}, {2}, {0}}), "0x4 * 4x3");
  expect_both(banded_csr(9, 9, band(-1, 1), false), random_csr(9, 9, 1, std::vector<std::vector<std::int32_t>>(9)),
              "tridiagonal * empty");
}

// Explicit zeros stored in A and B stay in C's pattern as products (C_ij present iff some k has A_ik and
// B_kj stored), and exact zeros of C, from stored zeros or cancellation, are dropped as Gustavson drops them.
TEST(SpgemmCpuDia, StoredZerosAndCancellation) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("values seed " + std::to_string(seed));
  Csr<double> a = fresh(banded_csr(200, 200, band(-2, 2), false), seed);
  for (std::int64_t p = a.row_ptr[100]; p < a.row_ptr[101]; ++p) a.values[p] = 0.0;  // a zero row of values
  a.values[static_cast<std::size_t>(a.row_ptr[50] + 1)] = 0.0;                     // one stored zero
  expect_both(a, a, "stored zeros");
  // Exact cancellation: all values 1 in A, B = alternating +-1 per column parity on a tridiagonal band,
  // so that some entries of C sum to exactly 0.
  Csr<double> t = banded_csr(64, 64, band(-1, 1), false);
  for (auto& v : t.values) v = 1.0;
  Csr<double> s = banded_csr(64, 64, band(-1, 1), false);
  for (std::int64_t i = 0; i < s.rows; ++i)
    for (std::int64_t p = s.row_ptr[i]; p < s.row_ptr[i + 1]; ++p) s.values[p] = (i % 2 == 0) ? 1.0 : -1.0;
  expect_both(t, s, "cancellation");
  // C_{i,i+1} = (-1)^i + (-1)^(i+1) = 0: those entries cancel and are gone (with |B| they stay).
  Csr<double> s_abs = s;
  for (auto& v : s_abs.values) v = 1.0;
  const Csr<double> c = dia().run_f64(t, s, SpgemmOptions{}).c;
  EXPECT_LT(c.nnz(), dia().run_f64(t, s_abs, SpgemmOptions{}).c.nnz());
  for (double v : c.values) EXPECT_NE(v, 0.0);
}

TEST(SpgemmCpuDia, RefusesWhatIsNotDiagonal) {
  const auto refusal = [](const Csr<double>& a, const Csr<double>& b) -> std::string {
    try {
      dia().run_f64(a, b, SpgemmOptions{});
    } catch (const NotApplicable& e) {
      return e.what();
    }
    return "";
  };
  // A gap: diagonal +1 missing on row 10 only (the 5-point stencil's +-1 diagonals at grid edges).
  std::vector<std::vector<std::int32_t>> rows(30);
  for (int i = 0; i < 30; ++i)
    for (int j = std::max(0, i - 1); j <= std::min(29, i + 1); ++j)
      if (!(i == 10 && j == 11)) rows[i].push_back(j);
  const Csr<double> gap = random_csr(30, 30, 1, rows);
  EXPECT_NE(refusal(gap, gap).find("gap"), std::string::npos) << refusal(gap, gap);
  const Csr<double> band3 = banded_csr(30, 30, band(-1, 1), false);
  EXPECT_NE(refusal(band3, gap).find("B is not diagonal"), std::string::npos);
  // Too many diagonals: a random matrix.
  const Csr<double> r = random_rows(5000, 5000, std::vector<std::int64_t>(5000, 8), 3);
  EXPECT_NE(refusal(r, r).find("diagonals"), std::string::npos) << refusal(r, r);
  // lap2d (5-point): its +-1 diagonals stop at each grid row's end.
  GenOptions spec;
  spec.family = "lap2d";
  spec.n = 30;
  const Csr<double> lap = generate(spec);
  EXPECT_NE(refusal(lap, lap), "");
}


// auto's CPU rule: a nearly full band goes to the diagonal product first (fp64 and fp32); stencils,
// whose band is mostly empty, do not; a full-looking band with a gap is refused and the next kernel runs.
TEST(SpgemmCpuDia, AutoRulePicksItForFullBands) {
  GenOptions spec;
  spec.family = "banded";
  spec.n = 5003;
  const Csr<double> banded = generate(spec);
  const MatrixStats s = spgemm_selector_stats(banded);
  EXPECT_EQ(s.max_diag_distance, compute_stats(banded).max_diag_distance);
  for (Precision p : {Precision::f64, Precision::f32})
    EXPECT_EQ(spgemm_candidates(s, banded.cols, Backend::cpu, p).front().kernel, "cpu.dia.spgemm");
  const SpgemmRun<double> run = spgemm(banded, banded);
  EXPECT_EQ(run.kernel, "cpu.dia.spgemm") << run.summary();
  EXPECT_TRUE(run.refused.empty());
  EXPECT_TRUE(check_spgemm(banded, banded, run.result.c, 0x1p-53).ok);

  for (const char* family : {"lap2d", "lap3d"}) {
    GenOptions st;
    st.family = family;
    st.n = 20;
    const Csr<double> m = generate(st);
    const MatrixStats ms = spgemm_selector_stats(m);
    EXPECT_EQ(ms.max_diag_distance, compute_stats(m).max_diag_distance) << family;
    EXPECT_NE(spgemm_candidates(ms, m.cols, Backend::cpu, Precision::f64).front().kernel, "cpu.dia.spgemm") << family;
  }

  // Tridiagonal with one entry missing: the rule picks the diagonal product, which refuses; auto goes on.
  std::vector<std::vector<std::int32_t>> rows(300);
  for (int i = 0; i < 300; ++i)
    for (int j = std::max(0, i - 1); j <= std::min(299, i + 1); ++j)
      if (!(i == 150 && j == 151)) rows[i].push_back(j);
  const Csr<double> gap = random_csr(300, 300, 1, rows);
  const SpgemmRun<double> fallback = spgemm(gap, gap);
  ASSERT_EQ(fallback.refused.size(), 1u) << fallback.summary();
  EXPECT_EQ(fallback.refused[0].kernel, "cpu.dia.spgemm");
  EXPECT_NE(fallback.refused[0].reason.find("gap"), std::string::npos);
  EXPECT_TRUE(check_spgemm(gap, gap, fallback.result.c, 0x1p-53).ok);
}

}  // namespace
}  // namespace spkit::test
