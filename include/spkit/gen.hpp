#pragma once
// Synthetic matrices of the families of SPEC §6, deterministic for a seed, generated in parallel.
//
// Determinism: every row draws from its own counter-based stream (splitmix64 of seed and row), so
// the matrix depends on the options only, never on the thread count or schedule. The CSR is built
// in two parallel passes (row lengths, prefix sum, then fill), so hundreds of millions of
// non-zeros need no more memory than the result.
//
// Families (rows x cols, non-zeros per row):
//   lap2d     n^2 x n^2, 5-point stencil on an n x n grid
//   lap3d     n^3 x n^3, 7- or 27-point stencil (`points`) on an n x n x n grid
//   fem       dof*n^3 square, 7-point node graph with a dense dof x dof block per edge (7*dof per row)
//   random    n x cols (0 = n), `per_row` distinct uniform columns per row
//   powerlaw  n x n, Zipf row lengths (the row of rank r, ranks a seeded permutation of the rows, has
//             about x_min * (n / (r + 1/2))^zipf_s entries, capped) of mean ~`per_row`; columns
//             skewed towards low indices (density ~ c^-1/2); 3% of the rows are empty
//   road      n^2 x n^2, planar grid with edges removed at random, ~2.8 per row incl. the diagonal
//   circuit   n x n, diagonal plus ~`per_row`-1 mostly near-diagonal entries, a few dense rows and
//             a few dense columns
//   banded    n x n, full band of half bandwidth `bandwidth`
// Values: the symmetric families (lap2d, lap3d, fem, road, banded) have symmetric off-diagonal
// values in (-1, -0.5] and a diagonal larger than the row's off-diagonal sum (strictly diagonally
// dominant, hence SPD); the others have random values of magnitude in [0.25, 1) and random sign.
// No stored value is ever exactly zero.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit {

struct GenOptions {
  std::string family;       // lap2d lap3d fem random powerlaw road circuit banded
  std::int64_t n = 0;       // grid side (lap2d, lap3d, fem, road) or rows (random, powerlaw, circuit, banded)
  std::int64_t cols = 0;    // random: columns (0 = square)
  int points = 7;           // lap3d: 7 or 27
  int dof = 3;              // fem: dense dof x dof blocks
  int per_row = 8;          // random: k per row; powerlaw: mean row length; circuit: mean
  int bandwidth = 5;        // banded: half bandwidth
  double zipf_s = 1.0;      // powerlaw exponent
  std::uint64_t seed = 42;
};

// Called now and then during generation with the fraction done (0..1), from one thread.
using GenProgress = std::function<void(double fraction)>;

std::vector<std::string> generator_families();
// Throws spkit::Error on an unknown family or invalid options (names the option), spkit::TooLarge
// when the result would not fit in memory or in 32-bit column indices.
Csr<double> generate(const GenOptions& opts);
Csr<double> generate(const GenOptions& opts, const GenProgress& progress);
// A size n for `family` that gives about `target_nnz` non-zeros (used by the bench suite sizes).
std::int64_t size_for_nnz(const std::string& family, std::int64_t target_nnz, const GenOptions& base = {});
// Rows of the matrix that `opts` describes (without generating it).
std::int64_t generated_rows(const GenOptions& opts);

}  // namespace spkit
