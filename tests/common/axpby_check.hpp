#pragma once
// Shared by the kernel and Plan tests (host and CUDA): y = alpha*A*x + beta*y0 checked row by row against
// the serial double reference, with validate_spmv's rounding bound (spkit/validate.hpp) widened by the
// beta*y term: |y_i - ref_i| <= (gamma_T(n + 4) + gamma_double(n + 4)) * (|alpha| sum_j |a_ij x_j| +
// |beta y0_i|), n the row's length (the alpha and beta products and the final add are the extra roundings).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit::test {

// x and y0 of one alpha/beta check, random from `seed`; y0 is all NaN when beta == 0 (it must not be read).
template <class T>
struct AxpbyOperands {
  std::vector<T> x, y0;
};
template <class T>
AxpbyOperands<T> axpby_operands(const Csr<T>& a, T beta, std::uint64_t seed) {
  const auto xd = random_vector(a.cols, seed);
  const auto yd = random_vector(a.rows, seed + 1);
  AxpbyOperands<T> o{std::vector<T>(xd.begin(), xd.end()), std::vector<T>(yd.begin(), yd.end())};
  if (beta == T(0)) o.y0.assign(o.y0.size(), std::numeric_limits<T>::quiet_NaN());
  return o;
}

inline double rounding_gamma(double n, double unit_roundoff) {
  const double nu = n * unit_roundoff;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}

// Rows of y outside the bound against alpha*A*x + beta*y0 (the first three reported as failures under
// `what`). With beta == 0, y0 is ignored (it may be NaN). A NaN in y always counts.
template <class T>
int count_bad_axpby_rows(const Csr<T>& a, const std::vector<T>& x, const std::vector<T>& y0, T alpha, T beta,
                         const std::vector<T>& y, const std::string& what) {
  const double u_t = std::numeric_limits<T>::epsilon() / 2, u_d = std::numeric_limits<double>::epsilon() / 2;
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
    const double tol = (rounding_gamma(n, u_t) + rounding_gamma(n, u_d)) * bound + std::numeric_limits<T>::min();
    const double got = static_cast<double>(y[i]);
    if (!(std::fabs(got - ref) <= tol)) {  // NaN fails
      if (++bad <= 3)
        ADD_FAILURE() << what << ": row " << i << " got " << got << ", expected " << ref << " (tolerance " << tol << ")";
    }
  }
  return bad;
}

template <class T>
void expect_axpby_product(const Csr<T>& a, const std::vector<T>& x, const std::vector<T>& y0, T alpha, T beta,
                          const std::vector<T>& y, const std::string& what) {
  EXPECT_EQ(count_bad_axpby_rows(a, x, y0, alpha, beta, y, what), 0) << what;
}

}  // namespace spkit::test
