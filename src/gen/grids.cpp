// The families on a regular grid: the 5-, 7- and 27-point stencils (lap2d, lap3d), the 7-point node
// graph with dense dof x dof blocks (fem), and the full band (banded).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gen/families.hpp"
#include "gen/option_checks.hpp"
#include "gen/row_generator.hpp"

namespace spkit::gen_detail {
namespace {

// ---- stencils on a grid (lap2d, lap3d, fem) -------------------------------------------------------
class StencilGenerator : public RowGenerator {
 public:
  StencilGenerator(std::int64_t n, int dims, int points, int dof, std::uint64_t seed)
      : n_(n), dims_(dims), dof_(dof), seed_(seed) {
    nodes_ = 1;
    for (int d = 0; d < dims; ++d) nodes_ *= n;
    // Offsets (dz, dy, dx) in lexicographic order, which is increasing node-id order.
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dims < 3 && dz != 0) continue;
          int manhattan = std::abs(dz) + std::abs(dy) + std::abs(dx);
          bool keep = points == 27 ? true : manhattan <= 1;  // 5 / 7 points: the axis neighbours
          if (keep) offsets_.push_back({dz, dy, dx});
        }
  }
  std::int64_t rows() const override { return nodes_ * dof_; }
  std::int64_t cols() const override { return rows(); }
  double expected_nnz() const override {
    return static_cast<double>(rows()) * static_cast<double>(offsets_.size()) * dof_;
  }
  std::int64_t row_length(std::int64_t row) const override {
    std::int64_t count = 0;
    for_each_neighbour(row / dof_, [&](std::int64_t) { ++count; });
    return count * dof_;
  }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    std::int64_t k = 0;
    for_each_neighbour(row / dof_, [&](std::int64_t q) {
      for (int b = 0; b < dof_; ++b) cols[k++] = static_cast<std::int32_t>(q * dof_ + b);
    });
    fill_symmetric_values(seed_, row, cols, values, k);
  }

 private:
  template <class F>
  void for_each_neighbour(std::int64_t node, F&& f) const {
    std::int64_t x = node % n_, y = (node / n_) % n_, z = dims_ == 3 ? node / (n_ * n_) : 0;
    for (const auto& o : offsets_) {
      std::int64_t qz = z + o[0], qy = y + o[1], qx = x + o[2];
      if (qx < 0 || qx >= n_ || qy < 0 || qy >= n_ || qz < 0 || (dims_ == 3 ? qz >= n_ : qz != 0)) continue;
      f((qz * n_ + qy) * n_ + qx);
    }
  }
  std::int64_t n_, nodes_;
  int dims_, dof_;
  std::uint64_t seed_;
  std::vector<std::array<int, 3>> offsets_;
};

// ---- banded: full band of half bandwidth b --------------------------------------------------------
class BandedGenerator : public RowGenerator {
 public:
  BandedGenerator(std::int64_t n, std::int64_t b, std::uint64_t seed) : n_(n), b_(std::min(b, n)), seed_(seed) {}
  std::int64_t rows() const override { return n_; }
  std::int64_t cols() const override { return n_; }
  double expected_nnz() const override { return static_cast<double>(n_) * static_cast<double>(2 * b_ + 1); }
  std::int64_t row_length(std::int64_t row) const override {
    return std::min(n_ - 1, row + b_) - std::max<std::int64_t>(0, row - b_) + 1;
  }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    std::int64_t k = 0;
    for (std::int64_t c = std::max<std::int64_t>(0, row - b_); c <= std::min(n_ - 1, row + b_); ++c)
      cols[k++] = static_cast<std::int32_t>(c);
    fill_symmetric_values(seed_, row, cols, values, k);
  }

 private:
  std::int64_t n_, b_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<RowGenerator> make_lap2d(const GenOptions& o) {
  const std::string& f = o.family;
  checked_dim(f, o.n, 2);
  return std::make_unique<StencilGenerator>(o.n, 2, 5, 1, o.seed);
}

std::unique_ptr<RowGenerator> make_lap3d(const GenOptions& o) {
  const std::string& f = o.family;
  if (o.points != 7 && o.points != 27)
    bad_option(f, "--points must be 7 or 27 (got " + std::to_string(o.points) + ")");
  checked_dim(f, o.n, 3);
  return std::make_unique<StencilGenerator>(o.n, 3, o.points, 1, o.seed);
}

std::unique_ptr<RowGenerator> make_fem(const GenOptions& o) {
  const std::string& f = o.family;
  if (o.dof < 1 || o.dof > 64) bad_option(f, "--dof must be between 1 and 64 (got " + std::to_string(o.dof) + ")");
  checked_dim(f, o.n, 3, o.dof);
  return std::make_unique<StencilGenerator>(o.n, 3, 7, o.dof, o.seed);
}

std::unique_ptr<RowGenerator> make_banded(const GenOptions& o) {
  const std::string& f = o.family;
  checked_dim(f, o.n, 1);
  if (o.bandwidth < 0) bad_option(f, "--bandwidth must be >= 0 (got " + std::to_string(o.bandwidth) + ")");
  return std::make_unique<BandedGenerator>(o.n, o.bandwidth, o.seed);
}

}  // namespace spkit::gen_detail
