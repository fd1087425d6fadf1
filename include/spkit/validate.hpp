#pragma once
// Validation of a kernel's y against the serial reference computed in double.
#include <cstdint>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit {

struct Validation {
  double rel_l2_error = 0;   // ||y - y_ref||_2 / ||y_ref||_2 (absolute norm when y_ref = 0)
  double max_abs_error = 0;  // max |y_i - y_ref_i|
  std::int64_t bad_rows = 0; // rows over their tolerance (NaN counts as bad)
  std::int64_t first_bad_row = -1;
  bool valid = false;
};

// y_ref = A x in double (serial CSR), the reference every kernel is checked against.
std::vector<double> reference_spmv(const Csr<double>& a, const std::vector<double>& x);

// Checks y (computed in precision T from A and x rounded to T) row by row against the product of
// the same rounded inputs in double. Tolerance per row i, from the error bound of a floating-point
// sum of n = len_i products in any order: |y_i - y_ref_i| <= gamma(n + 2) * sum_j |a_ij x_j|, with
// gamma(n) = n u / (1 - n u) and u the unit roundoff of T (plus the double reference's own bound).
// The reported errors compare against `y_exact` when given (the double matrix and x), otherwise
// against the reference of the rounded inputs.
template <class T>
Validation validate_spmv(const Csr<T>& a, const std::vector<T>& x, const T* y,
                         const std::vector<double>* y_exact = nullptr);

}  // namespace spkit
