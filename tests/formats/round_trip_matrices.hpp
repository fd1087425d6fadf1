#pragma once
// Small matrices the format round-trip tests share: a hand-made 3 x 5 matrix and the edge cases with
// stored zeros.
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit::test {

// Hand-made 3 x 5 matrix, rows of length 2, 0, 3, with an explicit zero at (2, 4).
//   [ 1 . 2 . . ]
//   [ . . . . . ]
//   [ . 3 . 4 0 ]
inline Csr<double> small() {
  Csr<double> a;
  a.rows = 3;
  a.cols = 5;
  a.row_ptr = {0, 2, 2, 5};
  a.col_idx = {0, 2, 1, 3, 4};
  a.values = {1, 2, 3, 4, 0};
  return a;
}

// Edge cases plus matrices with explicit zeros, for the round trips.
inline std::vector<NamedMatrix> round_trip_matrices() {
  auto ms = edge_case_matrices();
  ms.push_back({"small_explicit_zero", small()});
  auto z = random_rows(70, 45, std::vector<std::int64_t>(70, 9), 99);
  for (std::size_t k = 0; k < z.values.size(); k += 3) z.values[k] = 0.0;  // stored zeros must survive
  ms.push_back({"explicit_zeros_70x45", std::move(z)});
  ms.push_back({"default_constructed_0x0", [] { Csr<double> d; d.row_ptr = {0}; return d; }()});
  return ms;
}

}  // namespace spkit::test
