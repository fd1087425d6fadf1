// The CPU SpMM register tiles at their boundaries (src/spmm/cpu/spmm_tiles.hpp): every k around a tile
// width (16..512 bytes: 2..64 doubles, 4..128 floats) and the tails below 16 bytes, k beyond one
// column-major panel, and the 16-bit diagonal offsets at their limit (|col - row| = 32767 fits, 32768
// does not), each against the serial double reference with alpha/beta and padded leading dimensions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/test_matrices.hpp"
#include "spmm/spmm_check.hpp"
#include "spkit/spmm.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

// k just below, at and above each tile width of both precisions, and several panels (k > 128 floats).
constexpr std::int64_t kTileKs[] = {2, 5, 7, 8, 9, 15, 17, 31, 32, 63, 65, 127, 128, 129, 200};

// CSR SpMM plans of this backend that are spkit's own (not a vendor baseline) and use several threads (the
// DIA kernel's tiles: test_cpu_spmm_dia.cpp).
std::vector<const SpmmKernelInfo*> own_cpu_kernels() {
  std::vector<const SpmmKernelInfo*> out;
  for (const auto& k : spmm_registry().all())
    if (k.backend == Backend::cpu && k.format == Format::csr && !k.comparison && k.parallel) out.push_back(&k);
  return out;
}

template <class T>
void check_all(const Csr<double>& ad, const std::vector<std::int64_t>& ks, const std::string& name) {
  const Csr<T> a = csr_cast<T>(ad);
  for (const SpmmKernelInfo* k : own_cpu_kernels())
    for (DenseLayout layout : {DenseLayout::row_major, DenseLayout::col_major}) {
      if (!k->handles(layout)) continue;
      for (std::int64_t kk : ks) {
        SCOPED_TRACE(k->name + " on " + name + ", " + std::string(to_string(precision_of<T>())) + ", " +
                     std::string(to_string(layout)) + "-major, k " + std::to_string(kk));
        const SpmmShape shape{kk, layout};
        PlanOptions po;
        po.threads = 2;
        auto plan = k->factory<T>()(a, shape, po);
        check_product<T>(*plan, a, shape, T(1), T(0), 0);
        check_product<T>(*plan, a, shape, T(-0.5), T(0.75), 0);
        if (::testing::Test::HasFailure()) return;
      }
    }
}

TEST(CpuSpmmTiles, EveryTileWidthAndTail) {
  // Rows of 0..40 non-zeros (short, empty and long rows; odd lengths for the partial-sum tails).
  std::vector<std::int64_t> lengths(77);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>((i * 7) % 41);
  lengths[5] = 0;
  const Csr<double> a = random_rows(77, 61, lengths, 21);
  check_all<double>(a, {std::begin(kTileKs), std::end(kTileKs)}, "random rows 77 x 61");
  check_all<float>(a, {std::begin(kTileKs), std::end(kTileKs)}, "random rows 77 x 61");
}

TEST(CpuSpmmTiles, DiagonalOffsetsAtTheirLimit) {
  const std::int64_t n = 32800;
  const Csr<double> fits = banded_csr(n, n, {-32767, -1, 0, 3, 32767}, false);
  const Csr<double> too_far = banded_csr(n, n, {-5, 0, 32768}, false);
  const Csr<double> too_far_below = banded_csr(n, n, {-32768, 0, 2}, false);
  const Csr<double> wide = banded_csr(3, n + 40, {0, 32767, 32767 + 39}, false);  // rectangular, past the limit
  for (const auto* m : {&fits, &too_far, &too_far_below, &wide}) {
    check_all<double>(*m, {4, 16}, "banded " + std::to_string(m->rows) + " x " + std::to_string(m->cols));
    check_all<float>(*m, {3, 16}, "banded " + std::to_string(m->rows) + " x " + std::to_string(m->cols));
  }
  // The offsets are taken where they fit and not where they don't (the plan says which in its detail). At 16
  // doubles: rows this short (3 on average) take slices at 32 and 64 bytes (spmm_sliced.hpp), not tiles.
  const SpmmKernelInfo* row = spmm_registry().find("cpu.csr.spmm_rowmajor");
  ASSERT_NE(row, nullptr);
  const SpmmShape shape{16, DenseLayout::row_major};
  EXPECT_NE(row->factory<double>()(fits, shape, PlanOptions{})->detail().find("16-bit"), std::string::npos);
  EXPECT_EQ(row->factory<double>()(too_far, shape, PlanOptions{})->detail().find("16-bit"), std::string::npos);
  EXPECT_EQ(row->factory<double>()(too_far_below, shape, PlanOptions{})->detail().find("16-bit"), std::string::npos);
}

// Y = alpha A X + beta Y through the plan on a 64-byte aligned Y (offset by `shift` elements), checked
// against a double product of the same inputs.
template <class T>
void check_aligned_product(SpmmPlan<T>& plan, const Csr<T>& a, std::int64_t k, std::int64_t ldy, std::int64_t shift,
                           T alpha, T beta) {
  SCOPED_TRACE("k " + std::to_string(k) + ", ldy " + std::to_string(ldy) + ", shift " + std::to_string(shift) +
               ", alpha " + std::to_string(alpha) + ", beta " + std::to_string(beta));
  const auto xd = random_vector(a.cols * k, fresh_seed());
  const std::vector<T> x(xd.begin(), xd.end());
  const std::size_t n = static_cast<std::size_t>(a.rows * ldy + shift);
  std::unique_ptr<T, void (*)(void*)> buf(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64)),
                                          std::free);
  ASSERT_NE(buf, nullptr);
  T* y = buf.get() + shift;
  const auto y0 = random_vector(a.rows * ldy, fresh_seed());
  for (std::int64_t q = 0; q < a.rows * ldy; ++q) y[q] = static_cast<T>(y0[q]);
  plan.run(alpha, x.data(), k, beta, y, ldy, Stream{});
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-12;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t c = 0; c < k; ++c) {
      double want = 0, mag = std::abs(static_cast<double>(beta) * static_cast<T>(y0[i * ldy + c]));
      for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        want += static_cast<double>(a.values[p]) * x[a.col_idx[p] * k + c];
        mag += std::abs(static_cast<double>(a.values[p]) * x[a.col_idx[p] * k + c]);
      }
      want = static_cast<double>(alpha) * want + static_cast<double>(beta) * static_cast<T>(y0[i * ldy + c]);
      if (!(std::abs(y[i * ldy + c] - want) <= tol * (mag + 1))) ++bad;
    }
    for (std::int64_t c = k; c < ldy; ++c) bad += y[i * ldy + c] != static_cast<T>(y0[i * ldy + c]);  // padding
  }
  EXPECT_EQ(bad, 0);
}

// Past tuning::kSpmmCpuStreamingMinBytes of Y, row-major products with beta = 0 on a 64-byte aligned Y
// whose rows are whole lines write it with streaming stores: checked on the register tiles and on the
// slices of short rows, with padded rows, a Y that is not aligned (ordinary stores), alpha != 1 and
// beta != 0 (Y read: ordinary stores), on two threads.
TEST(CpuSpmmTiles, StreamingStoresOnALargeAlignedY) {
  const SpmmKernelInfo* row = spmm_registry().find("cpu.csr.spmm_rowmajor");
  ASSERT_NE(row, nullptr);
  const std::int64_t rows = tuning::kSpmmCpuStreamingMinBytes / 64 + 1001;  // float k = 16: just past the bound
  for (const std::int64_t mean : {3, 9}) {  // slices (at 64-byte rows of floats) and tiles
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) lengths[i] = (i * 7 + i / 3) % (2 * mean);
    const Csr<double> ad = random_rows(rows, 5003, lengths, 40 + mean);
    PlanOptions po;
    po.threads = 2;
    for (const std::int64_t k : {16, 32}) {
      const Csr<float> af = csr_cast<float>(ad);
      auto pf = row->factory<float>()(af, SpmmShape{k, DenseLayout::row_major}, po);
      auto pd = row->factory<double>()(ad, SpmmShape{k, DenseLayout::row_major}, po);
      for (const std::int64_t shift : {0, 1}) {
        check_aligned_product<float>(*pf, af, k, k, shift, 1.0f, 0.0f);
        check_aligned_product<double>(*pd, ad, k, k, shift, 1.0, 0.0);
      }
      check_aligned_product<float>(*pf, af, k, k + 16, 0, -2.0f, 0.0f);
      check_aligned_product<double>(*pd, ad, k, k + 8, 0, -2.0, 0.0);
      check_aligned_product<double>(*pd, ad, k, k, 0, 0.5, 0.25);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Past tuning::kSpmmCpuColStreamingMinBytes, column-major products with beta = 0 stream Y from the register tiles'
// block buffer, each column shifted onto whole lines: rows whose count and start are no multiple of a vector, two
// threads (each range's first and last partial lines), every lane shift, a second panel of one column (k = 33
// doubles), alpha != 1, beta != 0 beside (ordinary stores).
TEST(CpuSpmmTiles, ColumnMajorStreamedOnEveryLaneShift) {
  const SpmmKernelInfo* colk = spmm_registry().find("cpu.csr.spmm_colmajor");
  ASSERT_NE(colk, nullptr);
  const std::int64_t rows = tuning::kSpmmCpuColStreamingMinBytes / 256 + 13;  // 33 doubles / 64 floats: past it
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) lengths[i] = 1 + (i * 7 + i / 3) % 17;
  const Csr<double> ad = random_rows(rows, 7001, lengths, 77);
  const Csr<float> af = csr_cast<float>(ad);
  PlanOptions po;
  po.threads = 2;
  auto pd = colk->factory<double>()(ad, SpmmShape{33, DenseLayout::col_major}, po);
  check_col_major_at<double>(*pd, ad, 33, rows, 0, -2.0, 0.0);
  check_col_major_at<double>(*pd, ad, 33, rows + 3, 5, 1.0, 0.0);
  check_col_major_at<double>(*pd, ad, 33, rows, 1, 0.5, 0.25);
  auto pf = colk->factory<float>()(af, SpmmShape{64, DenseLayout::col_major}, po);
  check_col_major_at<float>(*pf, af, 64, rows, 0, 1.0f, 0.0f);
  check_col_major_at<float>(*pf, af, 64, rows + 16 - rows % 16, 7, -1.0f, 0.0f);
}

}  // namespace
}  // namespace spkit::test
