// The SpGEMM reference every kernel is checked against, and the checker itself.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit {
namespace detail {

template <class T>
void check_spgemm_shapes(const Csr<T>& a, const Csr<T>& b) {
  if (a.cols != b.rows)
    throw Error("SpGEMM: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols) + " (A's columns must equal B's rows)");
}
template void check_spgemm_shapes(const Csr<float>&, const Csr<float>&);
template void check_spgemm_shapes(const Csr<double>&, const Csr<double>&);

}  // namespace detail
using detail::check_spgemm_shapes;

template <class T>
std::int64_t spgemm_intermediate_products(const Csr<T>& a, const Csr<T>& b) {
  check_spgemm_shapes(a, b);
  std::int64_t total = 0;
#pragma omp parallel for reduction(+ : total) schedule(static)
  for (std::int64_t k = 0; k < a.nnz(); ++k) total += b.row_length(a.col_idx[k]);
  return total;
}

template <class T>
Csr<double> spgemm_reference(const Csr<T>& a, const Csr<T>& b) {
  check_spgemm_shapes(a, b);
  Csr<double> c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  std::vector<double> acc(static_cast<std::size_t>(b.cols), 0.0);
  std::vector<char> touched(static_cast<std::size_t>(b.cols), 0);
  std::vector<std::int32_t> cols;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    cols.clear();
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      const double aij = a.values[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        if (!touched[k]) touched[k] = 1, cols.push_back(k);
        acc[k] += aij * static_cast<double>(b.values[q]);
      }
    }
    std::sort(cols.begin(), cols.end());
    for (std::int32_t k : cols) {
      if (acc[k] != 0.0) c.col_idx.push_back(k), c.values.push_back(acc[k]);
      acc[k] = 0.0, touched[k] = 0;
    }
    c.row_ptr[i + 1] = c.nnz();
  }
  return c;
}

template <class T>
SpgemmCheck check_spgemm(const Csr<T>& a, const Csr<T>& b, const Csr<T>& c, double unit_roundoff,
                         double input_underflow) {
  check_spgemm_shapes(a, b);
  SpgemmCheck r;
  if (c.rows != a.rows || c.cols != b.cols) {
    r.message = "C is " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + ", expected " +
                std::to_string(a.rows) + "x" + std::to_string(b.cols);
    return r;
  }
  if (static_cast<std::int64_t>(c.row_ptr.size()) != c.rows + 1 || c.row_ptr[0] != 0 ||
      c.row_ptr.back() != c.nnz() || static_cast<std::int64_t>(c.col_idx.size()) != c.nnz()) {
    r.message = "C's row pointers are inconsistent with its arrays";
    return r;
  }
  // Per row: exact double sums, the magnitude sums that bound rounding, and product counts.
  std::vector<double> exact(static_cast<std::size_t>(b.cols), 0.0), magnitude(exact.size(), 0.0);
  std::vector<double> slack(input_underflow > 0 ? exact.size() : 0, 0.0);  // absolute part of the bound
  std::vector<std::int64_t> count(exact.size(), 0);
  std::vector<std::int32_t> cols;
  double err2 = 0, ref2 = 0;
  auto gamma = [](double n, double u) { return n * u / std::max(1e-300, 1.0 - n * u); };
  for (std::int64_t i = 0; i < a.rows; ++i) {
    cols.clear();
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const double aij = a.values[p];
      for (std::int64_t q = b.row_ptr[a.col_idx[p]]; q < b.row_ptr[a.col_idx[p] + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        if (count[k] == 0) cols.push_back(k);
        exact[k] += aij * static_cast<double>(b.values[q]);
        magnitude[k] += std::abs(aij * static_cast<double>(b.values[q]));
        if (!slack.empty())
          slack[k] += input_underflow * (std::abs(aij) + std::abs(static_cast<double>(b.values[q])) + input_underflow);
        ++count[k];
      }
    }
    for (std::int64_t p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p) {
      const std::int32_t k = c.col_idx[p];
      if (k < 0 || k >= c.cols || (p > c.row_ptr[i] && k <= c.col_idx[p - 1])) {
        r.message = "row " + std::to_string(i) + ": columns out of range or not strictly increasing";
        return r;
      }
      const double v = static_cast<double>(c.values[p]);
      if (!std::isfinite(v)) {
        r.message = "row " + std::to_string(i) + ", column " + std::to_string(k) + ": non-finite value";
        return r;
      }
      if (count[k] == 0) {  // an entry no product contributes to
        if (v != 0.0) ++r.pattern_mismatches;
        r.max_abs_error = std::max(r.max_abs_error, std::abs(v));
        err2 += v * v;
        continue;
      }
      const double tol = (gamma(static_cast<double>(count[k]) + 2, unit_roundoff) + 4 * 0x1p-53) * magnitude[k] +
                         (slack.empty() ? 0.0 : 1.5 * slack[k]);
      const double e = std::abs(v - exact[k]);
      if (!(e <= tol)) {
        if (r.message.empty())
          r.message = "row " + std::to_string(i) + ", column " + std::to_string(k) + ": " + std::to_string(v) +
                      " vs reference " + std::to_string(exact[k]) + " (tolerance " + std::to_string(tol) + ")";
        ++r.pattern_mismatches;
      }
      r.max_abs_error = std::max(r.max_abs_error, e);
      err2 += e * e;
      ref2 += exact[k] * exact[k];
      count[k] = -count[k];  // mark as present in C
    }
    // Reference entries missing from C are fine only where their value may round to zero.
    for (std::int32_t k : cols) {
      if (count[k] > 0) {
        const double tol = (gamma(static_cast<double>(count[k]) + 2, unit_roundoff) + 4 * 0x1p-53) * magnitude[k] +
                         (slack.empty() ? 0.0 : 1.5 * slack[k]);
        if (std::abs(exact[k]) > tol) {
          if (r.message.empty())
            r.message = "row " + std::to_string(i) + ", column " + std::to_string(k) + ": missing from C (reference " +
                        std::to_string(exact[k]) + ")";
          ++r.pattern_mismatches;
        }
        r.max_abs_error = std::max(r.max_abs_error, std::abs(exact[k]));
        err2 += exact[k] * exact[k];
        ref2 += exact[k] * exact[k];
      }
      exact[k] = magnitude[k] = 0, count[k] = 0;
      if (!slack.empty()) slack[k] = 0;
    }
  }
  r.rel_error = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  r.ok = r.pattern_mismatches == 0;
  return r;
}

template std::int64_t spgemm_intermediate_products(const Csr<float>&, const Csr<float>&);
template std::int64_t spgemm_intermediate_products(const Csr<double>&, const Csr<double>&);
template Csr<double> spgemm_reference(const Csr<float>&, const Csr<float>&);
template Csr<double> spgemm_reference(const Csr<double>&, const Csr<double>&);
template SpgemmCheck check_spgemm(const Csr<float>&, const Csr<float>&, const Csr<float>&, double, double);
template SpgemmCheck check_spgemm(const Csr<double>&, const Csr<double>&, const Csr<double>&, double, double);

}  // namespace spkit
