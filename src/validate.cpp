#include "spkit/validate.hpp"

#include <cmath>
#include <limits>

namespace spkit {

std::vector<double> reference_spmv(const Csr<double>& a, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double sum = 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];
    y[i] = sum;
  }
  return y;
}

namespace {
double gamma(double n, double unit_roundoff) {
  double nu = n * unit_roundoff;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}
}  // namespace

template <class T>
Validation validate_spmv(const Csr<T>& a, const std::vector<T>& x, const T* y, const std::vector<double>* y_exact) {
  const double u_t = std::numeric_limits<T>::epsilon() / 2;
  const double u_d = std::numeric_limits<double>::epsilon() / 2;
  Validation v;
  double diff2 = 0, ref2 = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double sum = 0, abs_sum = 0;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      double term = static_cast<double>(a.values[k]) * static_cast<double>(x[a.col_idx[k]]);
      sum += term;
      abs_sum += std::fabs(term);
    }
    const double n = static_cast<double>(a.row_ptr[i + 1] - a.row_ptr[i]);
    const double tol = (gamma(n + 2, u_t) + gamma(n + 2, u_d)) * abs_sum;
    const double yi = static_cast<double>(y[i]);
    const double err_rounded = std::fabs(yi - sum);
    if (!(err_rounded <= tol)) {  // also catches NaN
      if (v.bad_rows++ == 0) v.first_bad_row = i;
    }
    const double ref = y_exact ? (*y_exact)[static_cast<std::size_t>(i)] : sum;
    const double err = std::fabs(yi - ref);
    diff2 += err * err;
    ref2 += ref * ref;
    if (!(err <= v.max_abs_error)) v.max_abs_error = std::isnan(err) ? std::numeric_limits<double>::quiet_NaN() : err;
  }
  v.rel_l2_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  v.valid = v.bad_rows == 0 && !std::isnan(v.rel_l2_error);
  return v;
}

template Validation validate_spmv<float>(const Csr<float>&, const std::vector<float>&, const float*,
                                         const std::vector<double>*);
template Validation validate_spmv<double>(const Csr<double>&, const std::vector<double>&, const double*,
                                          const std::vector<double>*);

}  // namespace spkit
