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
// Families with the structure of real matrices (src/gen/random_graphs.cpp, geometric.cpp, meshes.cpp,
// roads.cpp):
//   rmat        n x n, Graph500 Kronecker/R-MAT graph: n * edge_factor edges drawn by recursive
//               quadrant choice (a, b, c, d = 1-a-b-c) on 2^ceil(log2 n) vertices, vertex labels
//               scrambled (no locality), duplicate edges merged: skewed degrees, empty rows. General.
//   geometric   n x n, random geometric graph: n uniform points in the unit square (dims 2) or cube
//               (dims 3), an edge between points closer than r, r chosen for `per_row` neighbours on
//               average; points numbered along a Morton curve of their cells (ordering sfc) or randomly.
//   fem_mesh    unstructured P1 or P2 (`element_order`) triangle (dims 2) or tetrahedral (dims 3) mesh
//               of a jittered n^dims lattice: every square/cube is triangulated by pulling from its
//               vertex of smallest random label (conforming, degrees vary: 4-8 in 2D, ~14 on average in
//               3D), P2 adds a node per edge; `dof` (1-3) unknowns per node (dense dof x dof blocks);
//               nodes numbered along a Morton curve of their jittered positions (sfc) or randomly.
//   road_planar n^2 x n^2, planar road network: the 2D mesh above keeps an edge when each end ranks it
//               among its 4 shortest (mutual nearest neighbours): degree <= 4, mostly 2-3, not a grid;
//               numbered in BFS order from a random node (bfs) or randomly.
// Values: the symmetric families (lap2d, lap3d, fem, road, banded, geometric, fem_mesh, road_planar) have symmetric off-diagonal
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
  std::string family;       // lap2d lap3d fem random powerlaw road circuit banded rmat geometric fem_mesh road_planar
  std::int64_t n = 0;       // grid side (lap2d, lap3d, fem, road, fem_mesh, road_planar) or rows (the others)
  std::int64_t cols = 0;    // random: columns (0 = square)
  int points = 7;           // lap3d: 7 or 27
  int dof = 3;              // fem, fem_mesh: dense dof x dof blocks
  int per_row = 8;          // random: k per row; powerlaw: mean row length; circuit: mean; geometric: mean neighbours
  int bandwidth = 5;        // banded: half bandwidth
  double zipf_s = 1.0;      // powerlaw exponent
  int dims = 0;             // geometric, fem_mesh: 2 or 3 (0: the family's default, geometric 2, fem_mesh 3)
  int element_order = 1;    // fem_mesh: 1 (P1) or 2 (P2)
  std::string ordering;     // geometric, fem_mesh: sfc or random (default sfc); road_planar: bfs or random (bfs)
  int edge_factor = 16;     // rmat: edges drawn per vertex (Graph500's 16), before duplicates merge
  double rmat_a = 0.57, rmat_b = 0.19, rmat_c = 0.19;  // rmat quadrant probabilities (Graph500's), d = 1-a-b-c
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
