// The CPU SpMM register tiles at their boundaries (src/spmm/cpu/spmm_tiles.hpp): every k around a tile
// width (16..512 bytes: 2..64 doubles, 4..128 floats) and the tails below 16 bytes, k beyond one
// column-major panel, and the 16-bit diagonal offsets at their limit (|col - row| = 32767 fits, 32768
// does not), each against the serial double reference with alpha/beta and padded leading dimensions.
#include <gtest/gtest.h>

#include <string>

#include "common/test_matrices.hpp"
#include "spmm/spmm_check.hpp"
#include "spkit/spmm.hpp"

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

}  // namespace
}  // namespace spkit::test
