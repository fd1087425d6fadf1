#pragma once
// A family is a RowGenerator that says how long a row is and fills it; build_csr runs both in two
// parallel passes (row_generator.cpp). The families themselves are declared in families.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/gen.hpp"

namespace spkit::gen_detail {

class RowGenerator {
 public:
  virtual ~RowGenerator() = default;
  virtual std::int64_t rows() const = 0;
  virtual std::int64_t cols() const = 0;
  // About the non-zeros to come: checked against memory before anything large is allocated.
  virtual double expected_nnz() const = 0;
  virtual std::int64_t row_length(std::int64_t row) const = 0;
  // Writes exactly row_length(row) entries, columns strictly increasing.
  virtual void fill_row(std::int64_t row, std::int32_t* cols, double* values) const = 0;
};

// Off-diagonal value of the symmetric families: the same for (i, j) and (j, i), in (-1, -0.5].
double symmetric_value(std::uint64_t seed, std::int64_t i, std::int64_t j);
// Values of a symmetric row whose columns are set: off-diagonals symmetric, the diagonal one more
// than their absolute sum (strict diagonal dominance with a positive diagonal: SPD).
void fill_symmetric_values(std::uint64_t seed, std::int64_t row, const std::int32_t* cols, double* values,
                           std::int64_t len);
// Pass 1 row lengths, prefix sum, pass 2 fill; both in parallel, independent of the thread count.
Csr<double> build_csr(const RowGenerator& gen, const std::string& family, const GenProgress& progress);
// Exclusive prefix sum in place: v[i] becomes the sum of the old v[0..i). Returns the total.
// (The serial scan of the builders that do not go through build_csr: node graphs and R-MAT.)
std::int64_t exclusive_scan(std::vector<std::int64_t>& v);

}  // namespace spkit::gen_detail
