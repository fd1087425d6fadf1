// The random families: k uniform columns per row (random), Zipf row lengths with columns skewed
// towards low indices (powerlaw), and the Graph500 Kronecker / R-MAT graph (rmat).
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

}  // namespace

std::unique_ptr<RowGenerator> make_random(const GenOptions& o) {
  const std::string& f = o.family;
  checked_dim(f, o.n, 1);
  if (o.cols < 0) bad_option(f, "cols must be >= 0 (0: square)");
  std::int64_t cols = o.cols == 0 ? o.n : checked_dim(f, o.cols, 1);
  if (o.per_row < 1 || o.per_row > cols)
    bad_option(f, "--per-row must be between 1 and the column count " + std::to_string(cols) + " (got " +
                      std::to_string(o.per_row) + ")");
  return std::make_unique<RandomGenerator>(o.n, cols, o.per_row, o.seed);
}

std::unique_ptr<RowGenerator> make_powerlaw(const GenOptions& o) {
  const std::string& f = o.family;
  checked_dim(f, o.n, 1);
  if (o.per_row < 1 || o.per_row > o.n)
    bad_option(f, "--per-row must be between 1 and n = " + std::to_string(o.n) + " (got " +
                      std::to_string(o.per_row) + ")");
  if (!(o.zipf_s > 0 && o.zipf_s <= 10))
    bad_option(f, "the Zipf exponent must be in (0, 10] (got " + std::to_string(o.zipf_s) + ")");
  return std::make_unique<PowerlawGenerator>(o.n, o.per_row, o.zipf_s, o.seed);
}

// ---- rmat: Graph500 Kronecker / R-MAT --------------------------------------------------------------
void check_rmat_options(const GenOptions& o) {
  const std::string f = o.family;
  if (o.n < 1) bad_option(f, "--n must be at least 1 (got " + std::to_string(o.n) + ")");
  check_rows(f, static_cast<double>(o.n));
  if (o.edge_factor < 1 || o.edge_factor > 1024)
    bad_option(f, "--edge-factor must be between 1 and 1024 (got " + std::to_string(o.edge_factor) + ")");
  const double d = 1.0 - o.rmat_a - o.rmat_b - o.rmat_c;
  if (!(o.rmat_a > 0 && o.rmat_b >= 0 && o.rmat_c >= 0 && d >= -1e-12))
    bad_option(f, "--rmat-a, --rmat-b, --rmat-c must be probabilities with a > 0 and a + b + c <= 1");
  check_memory(f, static_cast<double>(o.n) * o.edge_factor * 24.0);
}

Csr<double> generate_rmat(const GenOptions& o, const GenProgress& progress) {
  check_rmat_options(o);
  const std::int64_t n = o.n, edges = n * o.edge_factor;
  int scale = 0;
  while ((std::int64_t{1} << scale) < n) ++scale;
  // Quadrant thresholds on 32-bit uniforms: two levels per 64-bit draw, compared without branches.
  auto threshold = [](double p) {
    return static_cast<std::uint64_t>(std::min(1.0, std::max(0.0, p)) * 4294967296.0);
  };
  const std::uint64_t a = threshold(o.rmat_a), ab = threshold(o.rmat_a + o.rmat_b),
                      abc = threshold(o.rmat_a + o.rmat_b + o.rmat_c);
  // Graph500 scrambles the vertex labels, so that high degree does not mean low id.
  const IndexPermutation label(static_cast<std::uint64_t>(n), o.seed ^ kRmatLabelSalt);
  auto draw = [&](std::int64_t e, std::int32_t& from, std::int32_t& to) {
    StreamRng rng(o.seed, static_cast<std::uint64_t>(e), kRmatSalt);
    std::uint64_t u, v;
    do {  // an edge off the n x n corner of the 2^scale square is drawn again from the same stream
      u = v = 0;
      std::uint64_t bits = 0;
      for (int level = 0; level < scale; ++level) {
        if ((level & 1) == 0) bits = rng.next();
        const std::uint64_t r = (level & 1) ? bits >> 32 : bits & 0xFFFFFFFFu;
        const std::uint64_t bu = r >= ab, bv = (static_cast<std::uint64_t>(r >= a) & static_cast<std::uint64_t>(r < ab)) |
                                               static_cast<std::uint64_t>(r >= abc);
        u = (u << 1) | bu;
        v = (v << 1) | bv;
      }
    } while (u >= static_cast<std::uint64_t>(n) || v >= static_cast<std::uint64_t>(n));
    from = static_cast<std::int32_t>(label(u));
    to = static_cast<std::int32_t>(label(v));
  };
  // Pass 1: draw every edge, count per row. Pass 2: counting sort into rows, then sort and merge
  // duplicates per row. Both independent of the schedule (a row's final content is a sorted set).
  std::vector<std::int32_t> from(static_cast<std::size_t>(edges)), to(static_cast<std::size_t>(edges));
  std::vector<std::int64_t> start(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(static, 65536)
  for (std::int64_t e = 0; e < edges; ++e) {
    draw(e, from[e], to[e]);
#pragma omp atomic
    ++start[from[e]];
  }
  if (progress) progress(0.4);
  exclusive_scan(start);
  start[n] = edges;
  std::vector<std::int32_t> bucket(static_cast<std::size_t>(edges));
  {
    std::vector<std::int64_t> cursor(start.begin(), start.end() - 1);
#pragma omp parallel for schedule(static, 65536)
    for (std::int64_t e = 0; e < edges; ++e) {
      std::int64_t slot;
#pragma omp atomic capture
      slot = cursor[from[e]]++;
      bucket[slot] = to[e];
    }
  }
  std::vector<std::int32_t>().swap(from);
  std::vector<std::int32_t>().swap(to);
  Csr<double> out;
  out.rows = out.cols = n;
  out.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t u = 0; u < n; ++u) {
    auto first = bucket.begin() + start[u], last = bucket.begin() + start[u + 1];
    std::sort(first, last);
    out.row_ptr[u] = std::unique(first, last) - first;
  }
  if (progress) progress(0.8);
  out.row_ptr[n] = 0;
  const std::int64_t nnz = exclusive_scan(out.row_ptr);
  out.row_ptr[n] = nnz;
  out.col_idx.resize(static_cast<std::size_t>(nnz));
  out.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(dynamic, 4096)
  for (std::int64_t u = 0; u < n; ++u) {
    std::int64_t k = out.row_ptr[u];
    for (std::int64_t e = start[u]; k < out.row_ptr[u + 1]; ++e, ++k) {
      const std::int32_t v = bucket[e];
      out.col_idx[k] = v;
      // A value of magnitude in [0.25, 1) and random sign, a function of the edge only.
      const std::uint64_t h = hash3(o.seed ^ kRmatValueSalt, static_cast<std::uint64_t>(u), static_cast<std::uint64_t>(v));
      const double magnitude = 0.25 + 0.75 * unit_from(h);
      out.values[k] = (h & 1u) ? -magnitude : magnitude;
    }
  }
  if (progress) progress(1.0);
  return out;
}

}  // namespace spkit::gen_detail
