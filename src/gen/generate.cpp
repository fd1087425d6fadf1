// The synthetic matrix generator (families of SPEC §6). Each family is a RowGenerator that says how
// long a row is and fills it (sorted, distinct columns); build_csr runs both in parallel.
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gen/rng.hpp"
#include "gen/row_generator.hpp"
#include "spkit/error.hpp"
#include "platform/memory.hpp"
#include "spkit/gen.hpp"

namespace spkit {
namespace {

using gen_detail::build_csr;
using gen_detail::fill_symmetric_values;
using gen_detail::hash3;
using gen_detail::RowGenerator;
using gen_detail::IndexPermutation;
using gen_detail::StreamRng;
using gen_detail::unit_from;

constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();

// Salts keep the streams of different purposes apart for the same seed.
enum Salt : std::uint64_t { kRowSalt = 1, kEdgeSalt = 2, kRoadSalt = 3, kCircuitSalt = 4, kRankSalt = 5 };




}  // namespace

namespace gen_detail {

// Off-diagonal value of the symmetric families: the same for (i, j) and (j, i), in (-1, -0.5].
double symmetric_value(std::uint64_t seed, std::int64_t i, std::int64_t j) {
  std::int64_t lo = std::min(i, j), hi = std::max(i, j);
  return -(0.5 + 0.5 * unit_from(hash3(seed ^ kEdgeSalt, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi))));
}

// Fills values of a symmetric row whose columns are set: off-diagonals symmetric, the diagonal one
// more than their absolute sum (strict diagonal dominance with a positive diagonal: SPD).
void fill_symmetric_values(std::uint64_t seed, std::int64_t row, const std::int32_t* cols, double* values,
                           std::int64_t len) {
  double off_sum = 0;
  std::int64_t diag = -1;
  for (std::int64_t k = 0; k < len; ++k) {
    if (cols[k] == row) {
      diag = k;
      continue;
    }
    values[k] = symmetric_value(seed, row, cols[k]);
    off_sum += -values[k];
  }
  if (diag >= 0) values[diag] = off_sum + 1.0;
}

}  // namespace gen_detail

namespace {

// k distinct columns in [0, range), sorted, by Knuth's selection sampling (uniform; O(range)).
void selection_sample(StreamRng& rng, std::int64_t k, std::int64_t range, std::int32_t* out) {
  std::int64_t need = k;
  for (std::int64_t c = 0; c < range && need > 0; ++c)
    if (rng.below(range - c) < need) out[k - need--] = static_cast<std::int32_t>(c);
}

// k distinct columns from `draw` (values in [0, range)), sorted: draw, sort, drop duplicates, top up.
// Used when k is small against the range, so few rounds are needed.
template <class Draw>
void rejection_sample(std::int64_t k, std::int32_t* out, Draw&& draw) {
  std::int64_t have = 0;
  while (have < k) {
    // Only the new draws need sorting; they are merged into the sorted, distinct prefix.
    for (std::int64_t i = have; i < k; ++i) out[i] = static_cast<std::int32_t>(draw());
    std::sort(out + have, out + k);
    std::inplace_merge(out, out + have, out + k);
    have = std::unique(out, out + k) - out;
  }
}

// Multiplies with an overflow check against the 32-bit index limit.
std::int64_t checked_dim(const std::string& family, std::int64_t n, int power, std::int64_t factor = 1) {
  long double v = static_cast<long double>(factor);
  for (int p = 0; p < power; ++p) v *= static_cast<long double>(n);
  if (v > static_cast<long double>(kMaxIndex)) {
    std::ostringstream rows;
    if (v < 1e18L)
      rows << static_cast<long long>(v);
    else
      rows << "about " << std::setprecision(3) << static_cast<double>(v);
    throw Error("gen " + family + ": n = " + std::to_string(n) + " gives " + rows.str() +
                " rows, more than 2^31-1 (the limit of 32-bit column indices); choose a smaller --n");
  }
  std::int64_t r = factor;
  for (int p = 0; p < power; ++p) r *= n;
  return r;
}

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

// ---- road: a planar grid with edges removed --------------------------------------------------------
class RoadGenerator : public RowGenerator {
 public:
  RoadGenerator(std::int64_t n, std::uint64_t seed) : n_(n), seed_(seed) {
    // Each node owns its right and down edge; keeping each with probability p gives
    // nnz = n^2 + 4 p n (n-1), i.e. 2.8 per row for p = 0.45 n / (n-1).
    keep_probability_ = n > 1 ? std::min(1.0, 0.45 * static_cast<double>(n) / static_cast<double>(n - 1)) : 0.0;
  }
  std::int64_t rows() const override { return n_ * n_; }
  std::int64_t cols() const override { return rows(); }
  double expected_nnz() const override { return 2.8 * static_cast<double>(rows()); }
  std::int64_t row_length(std::int64_t row) const override {
    std::int64_t count = 1;
    for_each_neighbour(row, [&](std::int64_t) { ++count; });
    return count;
  }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    std::int64_t k = 0;
    bool diag_done = false;
    for_each_neighbour(row, [&](std::int64_t q) {
      if (!diag_done && q > row) {
        cols[k++] = static_cast<std::int32_t>(row);
        diag_done = true;
      }
      cols[k++] = static_cast<std::int32_t>(q);
    });
    if (!diag_done) cols[k++] = static_cast<std::int32_t>(row);
    fill_symmetric_values(seed_, row, cols, values, k);
  }

 private:
  bool kept(std::int64_t owner, int direction) const {
    return unit_from(hash3(seed_ ^ kRoadSalt, static_cast<std::uint64_t>(owner), static_cast<std::uint64_t>(direction))) <
           keep_probability_;
  }
  // Neighbours in increasing order: up, left, right, down.
  template <class F>
  void for_each_neighbour(std::int64_t u, F&& f) const {
    std::int64_t x = u % n_, y = u / n_;
    if (y > 0 && kept(u - n_, 1)) f(u - n_);
    if (x > 0 && kept(u - 1, 0)) f(u - 1);
    if (x < n_ - 1 && kept(u, 0)) f(u + 1);
    if (y < n_ - 1 && kept(u, 1)) f(u + n_);
  }
  std::int64_t n_;
  std::uint64_t seed_;
  double keep_probability_;
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

// ---- random: k distinct uniform columns per row ---------------------------------------------------
class RandomGenerator : public RowGenerator {
 public:
  RandomGenerator(std::int64_t rows, std::int64_t cols, std::int64_t k, std::uint64_t seed)
      : rows_(rows), cols_(cols), k_(k), seed_(seed) {}
  std::int64_t rows() const override { return rows_; }
  std::int64_t cols() const override { return cols_; }
  double expected_nnz() const override { return static_cast<double>(rows_) * static_cast<double>(k_); }
  std::int64_t row_length(std::int64_t) const override { return k_; }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    StreamRng rng(seed_, static_cast<std::uint64_t>(row), kRowSalt);
    if (2 * k_ > cols_)
      selection_sample(rng, k_, cols_, cols);
    else
      rejection_sample(k_, cols, [&] { return rng.below(cols_); });
    for (std::int64_t i = 0; i < k_; ++i) values[i] = rng.value();
  }

 private:
  std::int64_t rows_, cols_, k_;
  std::uint64_t seed_;
};

// ---- powerlaw: heavy-tailed row lengths, columns skewed towards low indices -----------------------
class PowerlawGenerator : public RowGenerator {
 public:
  PowerlawGenerator(std::int64_t n, int mean, double s, std::uint64_t seed)
      : n_(n), s_(s), mean_(mean), seed_(seed), rank_(static_cast<std::uint64_t>(n), seed ^ kRankSalt) {
    // Zipf's rank-size law: the row of rank r (a seeded permutation of the rows) gets
    // L = min(cap, max(1, floor(x_min * u^-s))) entries, u = (r + 1/2) / n, except the last
    // kEmptyFraction of the ranks, which stay empty (dangling nodes of a web graph). That is the
    // Pareto law P(X >= t) = (x_min / t)^(1/s) sampled at stratified quantiles, so the total is close
    // to its expectation even for small n, and the longest rows land anywhere in the matrix.
    // The cap keeps the longest row realistic (a few thousand times the mean for large n).
    double cap = std::max(4.0 * mean, 4.0 * mean * std::sqrt(static_cast<double>(n)));
    cap_ = std::min<std::int64_t>(n, static_cast<std::int64_t>(cap));
    // E[L] = sum_{k=1..cap} P(L >= k) = p + sum_{k=2..cap} min(p, (x_min/k)^(1/s)), p = 1 - kEmptyFraction,
    // grows with x_min: bisect for E[L] = mean.
    const double p = 1.0 - kEmptyFraction;
    auto expected = [&](double x_min) {
      double sum = p;
      for (std::int64_t k = 2; k <= cap_; ++k) {
        const double term = std::min(p, std::pow(x_min / static_cast<double>(k), 1.0 / s_));
        sum += term;
        if (term < 1e-12) break;
      }
      return sum;
    };
    double lo = 0, hi = 2.0 * mean + 2;
    while (expected(hi) < mean && hi < static_cast<double>(cap_)) hi *= 2;
    for (int it = 0; it < 60; ++it) {
      double mid = 0.5 * (lo + hi);
      (expected(mid) < mean ? lo : hi) = mid;
    }
    x_min_ = 0.5 * (lo + hi);
  }
  std::int64_t rows() const override { return n_; }
  std::int64_t cols() const override { return n_; }
  double expected_nnz() const override { return static_cast<double>(n_) * mean_; }
  std::int64_t row_length(std::int64_t row) const override { return length_of(row); }
  void fill_row(std::int64_t row, std::int32_t* cols, double* values) const override {
    StreamRng rng(seed_, static_cast<std::uint64_t>(row), kRowSalt);
    const std::int64_t len = length_of(row);
    if (4 * len > n_) {
      selection_sample(rng, len, n_, cols);
    } else {
      // Column density proportional to c^(-1/2): low columns are popular (hubs), none is unreachable.
      rejection_sample(len, cols, [&] {
        double u = rng.uniform();
        return std::min<std::int64_t>(n_ - 1, static_cast<std::int64_t>(u * u * static_cast<double>(n_)));
      });
    }
    for (std::int64_t i = 0; i < len; ++i) values[i] = rng.value();
  }

 private:
  std::int64_t length_of(std::int64_t row) const {
    const double u = (static_cast<double>(rank_(static_cast<std::uint64_t>(row))) + 0.5) / static_cast<double>(n_);
    if (u > 1.0 - kEmptyFraction) return 0;
    const double x = x_min_ * std::pow(u, -s_);
    if (!(x < static_cast<double>(cap_))) return cap_;
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(x));
  }
  static constexpr double kEmptyFraction = 0.03;
  std::int64_t n_, cap_ = 0;
  double s_, mean_, x_min_ = 0;
  std::uint64_t seed_;
  IndexPermutation rank_;
};

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

// ---- the parallel two-pass CSR builder ------------------------------------------------------------
Csr<double> gen_detail::build_csr(const RowGenerator& gen, const std::string& family, const GenProgress& progress) {
  Csr<double> a;
  a.rows = gen.rows();
  a.cols = gen.cols();
  const std::int64_t rows = a.rows;
  const std::uint64_t budget = available_memory_bytes();
  // 8 bytes per row pointer, 4 + 8 per non-zero.
  auto check_memory = [&](double nnz) {
    const double need = 8.0 * static_cast<double>(rows + 1) + 12.0 * nnz;
    if (need > static_cast<double>(budget))
      throw TooLarge("gen " + family + ": the matrix (" + std::to_string(rows) + " rows, about " +
                         std::to_string(static_cast<long long>(std::min(nnz, 9e18))) +
                         " non-zeros) does not fit in the available memory",
                     static_cast<std::uint64_t>(std::min(need, 1.8e19)));
  };
  check_memory(gen.expected_nnz());
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);

  constexpr std::int64_t kChunk = 4096;
  const std::int64_t chunks = (rows + kChunk - 1) / kChunk;
  // Pass 1: row lengths.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks; ++c)
    for (std::int64_t i = c * kChunk; i < std::min(rows, (c + 1) * kChunk); ++i) a.row_ptr[i + 1] = gen.row_length(i);

  // Prefix sum: each thread scans its slice, then adds the sums of the slices before it.
  {
    const int threads = omp_get_max_threads();
    std::vector<std::int64_t> slice_sum(static_cast<std::size_t>(threads) + 1, 0);
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::int64_t begin = 1 + rows * t / nt, end = 1 + rows * (t + 1) / nt;
      std::int64_t s = 0;
      for (std::int64_t i = begin; i < end; ++i) s = (a.row_ptr[i] += s);
      slice_sum[t + 1] = s;
#pragma omp barrier
#pragma omp single
      for (int k = 1; k <= nt; ++k) slice_sum[k] += slice_sum[k - 1];
      const std::int64_t offset = slice_sum[t];
      if (offset != 0)
        for (std::int64_t i = begin; i < end; ++i) a.row_ptr[i] += offset;
    }
  }
  const std::int64_t nnz = a.row_ptr[rows];
  check_memory(static_cast<double>(nnz));
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  a.values.resize(static_cast<std::size_t>(nnz));

  // Pass 2: fill. Chunks are handed out in order, so the chunks done tell the progress.
  std::atomic<std::int64_t> next_chunk{0}, done_chunks{0};
  const std::int64_t report_every = std::max<std::int64_t>(1, chunks / 100);
#pragma omp parallel
  {
    const bool reporter = progress && omp_get_thread_num() == 0;
    std::int64_t last_report = 0;
    for (std::int64_t c; (c = next_chunk.fetch_add(1)) < chunks;) {
      for (std::int64_t i = c * kChunk; i < std::min(rows, (c + 1) * kChunk); ++i)
        gen.fill_row(i, a.col_idx.data() + a.row_ptr[i], a.values.data() + a.row_ptr[i]);
      std::int64_t done = done_chunks.fetch_add(1) + 1;
      if (reporter && done - last_report >= report_every) {
        last_report = done;
        progress(static_cast<double>(done) / static_cast<double>(chunks));
      }
    }
  }
  if (progress) progress(1.0);
  return a;
}

namespace {

const std::vector<std::string>& families() {
  static const std::vector<std::string> f = {"lap2d",  "lap3d",   "fem",    "random",    "powerlaw",   "road",
                                             "circuit", "banded", "rmat", "geometric", "fem_mesh", "road_planar"};
  return f;
}

void check_family(const std::string& family) {
  const auto& f = families();
  if (std::find(f.begin(), f.end(), family) != f.end()) return;
  std::string known;
  for (const auto& name : f) known += (known.empty() ? "" : ", ") + name;
  throw Error("unknown generator family '" + family + "' (known: " + known + ")");
}

[[noreturn]] void bad_option(const std::string& family, const std::string& what) {
  throw Error("gen " + family + ": " + what);
}

std::unique_ptr<RowGenerator> make_generator(const GenOptions& o) {
  check_family(o.family);
  const std::string& f = o.family;
  if (o.n < 1) bad_option(f, "--n must be at least 1 (got " + std::to_string(o.n) + ")");
  if (f == "lap2d") {
    checked_dim(f, o.n, 2);
    return std::make_unique<StencilGenerator>(o.n, 2, 5, 1, o.seed);
  }
  if (f == "lap3d") {
    if (o.points != 7 && o.points != 27)
      bad_option(f, "--points must be 7 or 27 (got " + std::to_string(o.points) + ")");
    checked_dim(f, o.n, 3);
    return std::make_unique<StencilGenerator>(o.n, 3, o.points, 1, o.seed);
  }
  if (f == "fem") {
    if (o.dof < 1 || o.dof > 64) bad_option(f, "--dof must be between 1 and 64 (got " + std::to_string(o.dof) + ")");
    checked_dim(f, o.n, 3, o.dof);
    return std::make_unique<StencilGenerator>(o.n, 3, 7, o.dof, o.seed);
  }
  if (f == "road") {
    checked_dim(f, o.n, 2);
    return std::make_unique<RoadGenerator>(o.n, o.seed);
  }
  if (f == "geometric") return gen_detail::make_geometric(o);
  if (f == "fem_mesh") return gen_detail::make_fem_mesh(o);
  if (f == "road_planar") return gen_detail::make_road_planar(o);
  checked_dim(f, o.n, 1);
  if (f == "banded") {
    if (o.bandwidth < 0) bad_option(f, "--bandwidth must be >= 0 (got " + std::to_string(o.bandwidth) + ")");
    return std::make_unique<BandedGenerator>(o.n, o.bandwidth, o.seed);
  }
  if (f == "random") {
    if (o.cols < 0) bad_option(f, "cols must be >= 0 (0: square)");
    std::int64_t cols = o.cols == 0 ? o.n : checked_dim(f, o.cols, 1);
    if (o.per_row < 1 || o.per_row > cols)
      bad_option(f, "--per-row must be between 1 and the column count " + std::to_string(cols) + " (got " +
                        std::to_string(o.per_row) + ")");
    return std::make_unique<RandomGenerator>(o.n, cols, o.per_row, o.seed);
  }
  if (f == "powerlaw") {
    if (o.per_row < 1 || o.per_row > o.n)
      bad_option(f, "--per-row must be between 1 and n = " + std::to_string(o.n) + " (got " +
                        std::to_string(o.per_row) + ")");
    if (!(o.zipf_s > 0 && o.zipf_s <= 10))
      bad_option(f, "the Zipf exponent must be in (0, 10] (got " + std::to_string(o.zipf_s) + ")");
    return std::make_unique<PowerlawGenerator>(o.n, o.per_row, o.zipf_s, o.seed);
  }
  // circuit
  if (o.per_row < 1) bad_option(f, "--per-row must be at least 1 (got " + std::to_string(o.per_row) + ")");
  return std::make_unique<CircuitGenerator>(o.n, o.per_row, o.seed);
}

}  // namespace

std::vector<std::string> generator_families() { return families(); }

Csr<double> generate(const GenOptions& opts) { return generate(opts, GenProgress{}); }

Csr<double> generate(const GenOptions& opts, const GenProgress& progress) {
  // R-MAT draws edges, not rows: its own two-pass build (counting sort of the edges).
  if (opts.family == "rmat") return gen_detail::generate_rmat(opts, progress);
  auto gen = make_generator(opts);
  return build_csr(*gen, opts.family, progress);
}

std::int64_t generated_rows(const GenOptions& opts) {
  if (opts.family == "rmat") {
    gen_detail::check_rmat_options(opts);
    return opts.n;
  }
  return make_generator(opts)->rows();
}

std::int64_t size_for_nnz(const std::string& family, std::int64_t target_nnz, const GenOptions& base) {
  check_family(family);
  const double t = static_cast<double>(std::max<std::int64_t>(target_nnz, 1));
  double n;
  if (family == "lap2d")
    n = std::sqrt(t / 5.0);
  else if (family == "lap3d")
    n = std::cbrt(t / (base.points == 27 ? 27.0 : 7.0));
  else if (family == "fem")
    n = std::cbrt(t / (7.0 * std::max(1, base.dof) * std::max(1, base.dof)));
  else if (family == "road")
    n = std::sqrt(t / 2.8);
  else if (family == "banded")
    n = t / (2.0 * std::max(0, base.bandwidth) + 1.0);
  else if (family == "rmat")
    // R-MAT's duplicate edges merge: about 90% of the drawn edges survive at edge factor 16.
    n = t / (0.9 * std::max(1, base.edge_factor));
  else if (family == "geometric")
    n = t / (std::max(1, base.per_row) + 1.0);  // mean neighbours + the diagonal
  else if (family == "fem_mesh")
    n = gen_detail::fem_mesh_side_for_nnz(base, t);
  else if (family == "road_planar")
    n = std::sqrt(t / 3.35);  // ~2.35 neighbours + the diagonal per node
  else if (family == "circuit")
    n = t / (std::max(1, base.per_row) + 0.5);  // the dense rows add about n/2 in all
  else  // random, powerlaw
    n = t / std::max(1, base.per_row);
  return std::max<std::int64_t>(1, std::llround(n));
}

}  // namespace spkit
