#pragma once
// Shared by the Plan tests (host and CUDA): the double reference of y = alpha*A*x + beta*y0 and a
// per-row bound on the rounding a kernel in precision T may add to it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit::test {

// Checks y against alpha*A*x + beta*y0 row by row. With beta == 0, y0 is ignored (it may be NaN).
template <class T>
void expect_axpby_product(const Csr<T>& a, const std::vector<T>& x, const std::vector<T>& y0, T alpha, T beta,
                          const std::vector<T>& y, const std::string& what) {
  const double u = std::numeric_limits<T>::epsilon();
  int bad = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double sum = 0, mag = 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const double p = static_cast<double>(a.values[k]) * static_cast<double>(x[a.col_idx[k]]);
      sum += p;
      mag += std::fabs(p);
    }
    double ref = static_cast<double>(alpha) * sum;
    double bound = std::fabs(static_cast<double>(alpha)) * mag;
    if (beta != T(0)) {
      ref += static_cast<double>(beta) * static_cast<double>(y0[i]);
      bound += std::fabs(static_cast<double>(beta) * static_cast<double>(y0[i]));
    }
    const double n = static_cast<double>(a.row_length(i) + 4);
    const double tol = 2.0 * n * u * bound + std::numeric_limits<T>::min();
    const double got = static_cast<double>(y[i]);
    if (!(std::fabs(got - ref) <= tol)) {  // NaN fails
      if (++bad <= 3)
        ADD_FAILURE() << what << ": row " << i << " got " << got << ", expected " << ref << " (tolerance " << tol << ")";
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

}  // namespace spkit::test
