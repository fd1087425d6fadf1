#pragma once
// One Plan checked against the serial double reference for every alpha/beta case, twice with a fresh x
// (beta = 0 on a NaN y: it must not be read). Shared by the Plan tests.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/axpby_check.hpp"
#include "common/test_matrices.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {

struct Coeffs {
  double alpha, beta;
};
inline const std::vector<Coeffs> kCoeffs = {{1, 0}, {2.5, 0}, {-1, 1}, {0.5, -2}, {1, 1}, {0, 3}};

template <class T>
void check_plan(Plan<T>& plan, const Csr<T>& a, const std::string& what) {
  for (const Coeffs& c : kCoeffs) {
    for (int rep = 0; rep < 2; ++rep) {  // one plan, applied again with a new x
      const std::uint64_t seed = fresh_seed();
      const auto xd = random_vector(a.cols, seed);
      const auto yd = random_vector(a.rows, seed + 1);
      std::vector<T> x(xd.begin(), xd.end());
      std::vector<T> y0(yd.begin(), yd.end());
      // beta == 0: y must not be read, so it starts as NaN.
      if (c.beta == 0) y0.assign(y0.size(), std::numeric_limits<T>::quiet_NaN());
      std::vector<T> y = y0;
      plan.apply(x.data(), y.data(), T(c.alpha), T(c.beta));
      expect_axpby_product(a, x, y0, T(c.alpha), T(c.beta), y,
                           what + " alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta) +
                               " seed " + std::to_string(seed));
    }
  }
}

}  // namespace spkit::test
