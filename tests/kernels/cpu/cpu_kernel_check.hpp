#pragma once
// Shared by the CPU kernel tests (one file per format): a kernel run through the registry on a matrix,
// checked against the serial double reference, and the small matrices several formats are checked on.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {

// Runs `kernel` twice on one plan (carries and accumulators must not leak between runs) on a NaN-poisoned
// y, expecting y = A x; `detail` receives the plan's detail().
template <class T>
inline void expect_valid(const char* kernel, const Csr<double>& ad, const PlanOptions& po, std::string* detail = nullptr) {
  const KernelInfo* k = registry().find(kernel);
  ASSERT_NE(k, nullptr) << kernel;
  const Csr<T> a = csr_cast<T>(ad);
  auto plan = k->factory<T>()(a, po);
  const auto seed = fresh_seed();
  const auto xd = random_vector(a.cols, seed);
  std::vector<T> x(xd.begin(), xd.end());
  std::vector<T> y(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());
  for (int rep = 0; rep < 2; ++rep) {  // twice: carries and accumulators must not leak between runs
    plan->run(1, x.data(), 0, y.data(), spkit::Stream{});
    const Validation v = validate_spmv(a, x, y.data());
    EXPECT_TRUE(v.valid) << kernel << " threads " << po.threads << " seed " << seed << ": rel L2 " << v.rel_l2_error
                         << ", first bad row " << v.first_bad_row;
  }
  if (detail) *detail = plan->detail();
}

// 50 rows of 2 entries, and three long ones (the first, one in the middle, the last) that each span several
// threads' shares.
inline Csr<double> long_rows_matrix() {
  std::vector<std::int64_t> len(50, 2);
  len[0] = 3000;
  len[25] = 4000;
  len[49] = 2500;
  return random_rows(50, 5000, len, 21);
}

// 3 x 5, rows of 2, 0, 3 entries: ELL width 3, 4 of 9 slots padding.
inline Csr<double> small_bytes_matrix() {
  Csr<double> a;
  a.rows = 3;
  a.cols = 5;
  a.row_ptr = {0, 2, 2, 5};
  a.col_idx = {0, 2, 1, 3, 4};
  a.values = {1, 2, 3, 4, 5};
  return a;
}

inline const std::vector<int>& long_row_thread_counts() {
  static const std::vector<int> counts{1, 2, 3, 4, 7, 16};
  return counts;
}

// `kernel` on long_rows_matrix() at every count of long_row_thread_counts().
template <class T>
void expect_valid_on_long_rows(const char* kernel) {
  const Csr<double> a = long_rows_matrix();
  for (int th : long_row_thread_counts()) {
    PlanOptions po;
    po.threads = th;
    expect_valid<T>(kernel, a, po);
  }
}

}  // namespace spkit::test
