// The circuit family: a circuit-simulation-like pattern with the diagonal, mostly near-diagonal
// couplings, a few dense rows and a few dense columns.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gen/families.hpp"
#include "gen/option_checks.hpp"
#include "gen/rng.hpp"
#include "gen/row_generator.hpp"
#include "gen/sampling.hpp"

namespace spkit::gen_detail {
namespace {

// ---- circuit: diagonal, mostly near-diagonal couplings, a few dense rows and columns --------------
class CircuitGenerator : public RowGenerator {
 public:
  CircuitGenerator(std::int64_t n, int per_row, std::uint64_t seed) : n_(n), per_row_(per_row), seed_(seed) {
    std::int64_t dense = std::clamp<std::int64_t>(n / 100, 1, 4);
    dense_len_ = std::min(n, std::max<std::int64_t>(per_row, n / 2));
    StreamRng rng(seed, 0, kCircuitSalt);
    dense_rows_.resize(dense);
    dense_cols_.resize(dense);
    std::vector<std::int32_t> pick(dense);
    selection_sample(rng, dense, n, pick.data());
    dense_rows_.assign(pick.begin(), pick.end());
    selection_sample(rng, dense, n, pick.data());
    dense_cols_.assign(pick.begin(), pick.end());
  }
  std::int64_t rows() const override { return n_; }
  std::int64_t cols() const override { return n_; }
  double expected_nnz() const override {
    return static_cast<double>(n_) * per_row_ + static_cast<double>(dense_rows_.size()) * static_cast<double>(dense_len_);
  }
  std::int64_t row_length(std::int64_t row) const override {
    if (is_dense_row(row)) return dense_len_;
    StreamRng rng(seed_, static_cast<std::uint64_t>(row), kRowSalt);
    return 1 + draw_extra(rng);
  }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    StreamRng rng(seed_, static_cast<std::uint64_t>(row), kRowSalt);
    std::int64_t extra;
    if (is_dense_row(row)) {
      extra = dense_len_ - 1;
      // Uniform over the n-1 other columns, then shifted past the diagonal.
      selection_sample(rng, extra, n_ - 1, cols);
    } else {
      extra = draw_extra(rng);
      if (2 * extra > n_ - 1) {
        selection_sample(rng, extra, n_ - 1, cols);
      } else {
        rejection_sample(extra, cols, [&] { return draw_other_column(rng, row); });
        for (std::int64_t k = 0; k < extra; ++k)  // map to the n-1 "other" columns' numbering
          if (cols[k] > row) --cols[k];
      }
    }
    // Columns are in [0, n-1) over the others; shift past the diagonal and insert it.
    std::int64_t pos = std::lower_bound(cols, cols + extra, static_cast<std::int32_t>(row)) - cols;
    for (std::int64_t k = extra; k > pos; --k) cols[k] = cols[k - 1] + 1;
    cols[pos] = static_cast<std::int32_t>(row);
    double off_sum = 0;
    for (std::int64_t k = 0; k <= extra; ++k) {
      if (k == pos) continue;
      values[k] = rng.value();
      off_sum += std::abs(values[k]);
    }
    values[pos] = 1.0 + 0.5 * off_sum;  // mostly diagonal: large, but not always dominant
  }

 private:
  bool is_dense_row(std::int64_t row) const {
    return std::binary_search(dense_rows_.begin(), dense_rows_.end(), static_cast<std::int32_t>(row));
  }
  std::int64_t draw_extra(StreamRng& rng) const {
    std::int64_t extra = rng.below(2 * static_cast<std::int64_t>(per_row_ - 1) + 1);  // mean per_row - 1
    return std::min(extra, n_ - 1);
  }
  // A column other than `row`: 70% within 16 of the diagonal, 20% uniform, 10% a dense column.
  std::int64_t draw_other_column(StreamRng& rng, std::int64_t row) const {
    for (;;) {
      double u = rng.uniform();
      std::int64_t c;
      if (u < 0.7)
        c = row + rng.below(33) - 16;
      else if (u < 0.9)
        c = rng.below(n_);
      else
        c = dense_cols_[rng.below(static_cast<std::int64_t>(dense_cols_.size()))];
      if (c >= 0 && c < n_ && c != row) return c;
    }
  }
  std::int64_t n_;
  int per_row_;
  std::uint64_t seed_;
  std::int64_t dense_len_;
  std::vector<std::int32_t> dense_rows_, dense_cols_;
};

}  // namespace

std::unique_ptr<RowGenerator> make_circuit(const GenOptions& o) {
  const std::string& f = o.family;
  checked_dim(f, o.n, 1);
  if (o.per_row < 1) bad_option(f, "--per-row must be at least 1 (got " + std::to_string(o.per_row) + ")");
  return std::make_unique<CircuitGenerator>(o.n, o.per_row, o.seed);
}

}  // namespace spkit::gen_detail
