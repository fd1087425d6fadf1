// The SpGEMM reference against a dense product, and the checker: it accepts the reference and
// rejects a wrong value, a missing entry and an extra one.
#include <gtest/gtest.h>

#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {

std::vector<double> dense(const Csr<double>& a) {
  std::vector<double> d(static_cast<std::size_t>(a.rows * a.cols), 0.0);
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) d[i * a.cols + a.col_idx[p]] = a.values[p];
  return d;
}

TEST(SpgemmReference, MatchesDenseProductOnEdgeCases) {
  for (const auto& m : edge_case_matrices()) {
    SCOPED_TRACE(m.name);
    const Csr<double>& a = m.a;
    // A * A^T-shaped partner: B with a.cols rows, built from A's pattern transposed via a random matrix.
    const Csr<double> b = random_rows(a.cols, 5, std::vector<std::int64_t>(static_cast<std::size_t>(a.cols), std::min<std::int64_t>(3, 5)), fresh_seed());
    const Csr<double> c = spgemm_reference(a, b);
    check_csr(c);
    const auto da = dense(a), db = dense(b), dc = dense(c);
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t k = 0; k < b.cols; ++k) {
        double s = 0;
        for (std::int64_t j = 0; j < a.cols; ++j) s += da[i * a.cols + j] * db[j * b.cols + k];
        EXPECT_NEAR(dc[i * b.cols + k], s, 1e-12 * (1 + std::abs(s))) << i << "," << k;
      }
    EXPECT_EQ(spgemm_intermediate_products(a, b), [&] {
      std::int64_t n = 0;
      for (std::int64_t p = 0; p < a.nnz(); ++p) n += b.row_length(a.col_idx[p]);
      return n;
    }());
    EXPECT_TRUE(check_spgemm(a, b, c, 0x1p-53).ok);
  }
}

TEST(SpgemmReference, RejectsMismatchedShapes) {
  const Csr<double> a = random_rows(4, 3, {1, 1, 1, 1}, 1);
  EXPECT_THROW(spgemm_reference(a, a), Error);
}

TEST(SpgemmCheck, RejectsWrongMissingAndExtraEntries) {
  const Csr<double> a = random_rows(40, 40, std::vector<std::int64_t>(40, 4), fresh_seed());
  const Csr<double> c = spgemm_reference(a, a);
  ASSERT_GT(c.nnz(), 2);
  EXPECT_TRUE(check_spgemm(a, a, c, 0x1p-53).ok);
  Csr<double> wrong = c;
  wrong.values[c.nnz() / 2] *= 1.001;
  EXPECT_FALSE(check_spgemm(a, a, wrong, 0x1p-24).ok);
  // Missing: drop the last entry of the last non-empty row.
  Csr<double> missing = c;
  missing.col_idx.pop_back(), missing.values.pop_back();
  for (auto& p : missing.row_ptr) p = std::min(p, missing.nnz());
  EXPECT_FALSE(check_spgemm(a, a, missing, 0x1p-24).ok);
  // Extra: an entry in an empty row (row 0 of a matrix whose row 0 is emptied).
  Csr<double> a0 = a;
  const std::int64_t drop = a0.row_ptr[1];
  a0.col_idx.erase(a0.col_idx.begin(), a0.col_idx.begin() + drop);
  a0.values.erase(a0.values.begin(), a0.values.begin() + drop);
  for (auto& p : a0.row_ptr) p = std::max<std::int64_t>(0, p - drop);
  Csr<double> extra = spgemm_reference(a0, a);
  extra.col_idx.insert(extra.col_idx.begin(), 0);
  extra.values.insert(extra.values.begin(), 1.0);
  for (std::size_t i = 1; i < extra.row_ptr.size(); ++i) ++extra.row_ptr[i];
  EXPECT_FALSE(check_spgemm(a0, a, extra, 0x1p-24).ok);
}

// fp16 inputs: a value under 2^-14 is subnormal and rounds to a multiple of 2^-24, an error far above
// 2^-11 relative. With input_underflow = 2^-25 the checker accepts exactly that rounding, and not more.
TEST(SpgemmCheck, InputUnderflowBoundsSubnormalFp16Inputs) {
  Csr<double> a;
  a.rows = a.cols = 1;
  a.row_ptr = {0, 1};
  a.col_idx = {0};
  a.values = {3.3e-6};  // fp16 subnormal: nearest multiple of 2^-24 is 55 * 2^-24 = 3.278e-6
  const double a16 = 55 * 0x1p-24;
  Csr<double> c = spgemm_reference(a, a);
  c.values[0] = a16 * a16;  // what FP16 inputs with an exact FP32 product give
  EXPECT_FALSE(check_spgemm(a, a, c, 0x1p-11).ok);
  EXPECT_TRUE(check_spgemm(a, a, c, 0x1p-11, 0x1p-25).ok);
  c.values[0] = 3.0 * a16 * a16;  // far beyond any rounding of the inputs
  EXPECT_FALSE(check_spgemm(a, a, c, 0x1p-11, 0x1p-25).ok);
}

}  // namespace
}  // namespace spkit::test
