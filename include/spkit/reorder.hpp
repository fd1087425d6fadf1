#pragma once
// Symmetric reorderings of a square sparse matrix: a permutation P computed from the pattern, and
// B = P A P^T (row and column i of B are row and column old_of_new[i] of A). Renumbering a mesh or road
// network by reverse Cuthill-McKee brings each row's columns near the diagonal, so the x a product
// gathers sits in a few cache lines; a hub ordering numbers a graph's most referenced columns together.
// Plan<T> (spkit/plan.hpp) applies one inside the plan; these functions are also usable on their own.
//
//   spkit::Permutation p = spkit::reverse_cuthill_mckee(a);
//   spkit::Csr<double> b = spkit::permute_symmetric(a, p);   // y_b = B (P x)  <=>  y = P^T y_b
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit {

// A permutation of 0..n-1 both ways: new_of_old[old] = new and old_of_new[new] = old. 32-bit, as
// spkit's column indices are (n <= 2^31 - 1, checked).
struct Permutation {
  std::vector<std::int32_t> new_of_old;
  std::vector<std::int32_t> old_of_new;

  std::int64_t size() const { return static_cast<std::int64_t>(old_of_new.size()); }
  bool is_identity() const;
  static Permutation identity(std::int64_t n);
  // Checks that `old_of_new` holds each of 0..n-1 exactly once (spkit::Error otherwise) and fills the
  // inverse.
  static Permutation from_old_of_new(std::vector<std::int32_t> old_of_new);
};

// The symmetric orderings spkit computes. `none` is the identity.
enum class Ordering {
  none,
  rcm,      // reverse Cuthill-McKee with George and Liu's pseudo-peripheral start per component
  hubsort,  // hub sorting (Zhang et al., "Making caches work for graph analytics", 2017)
  community,  // communities by modularity, numbered consecutively (after Arai et al.'s Rabbit Order, 2016)
};
std::string_view to_string(Ordering o);
// "none", "rcm", "hubsort", "community" (spkit::Error naming the valid ones otherwise).
Ordering parse_ordering(std::string_view name);

// Reverse Cuthill-McKee (Cuthill & McKee 1969, reversed as George 1971 proposed) on the symmetrized
// pattern of A (A + A^T, diagonal ignored): each connected component is numbered breadth-first from a
// pseudo-peripheral node found by George and Liu's iteration (1979), neighbours in increasing degree
// (ties by index), and the whole order reversed. Deterministic, O(nnz) memory. Square A only
// (NotApplicable otherwise).
template <class T>
Permutation reverse_cuthill_mckee(const Csr<T>& a);

// Whether A's pattern is symmetric: square, and every stored (i, j) off the diagonal has (j, i) stored too
// (the values are not compared). Parallel (OpenMP), O(nnz log(row length)), no allocation beyond O(rows).
template <class T>
bool has_symmetric_pattern(const Csr<T>& a);

// Hub sorting (Zhang, Kiriansky, Mendis, Amarasinghe, Zaharia & Shun 2017, "frequency-based
// clustering"): the columns referenced more often than average (hubs) are numbered first, in decreasing
// reference count (ties by index); the others keep their relative order. Cheap (O(nnz + h log h)) and
// deterministic; it packs a skewed graph's hot part of x into few cache lines without disturbing the
// rest. Square A only (NotApplicable otherwise).
template <class T>
Permutation hub_sort(const Csr<T>& a);

// A community ordering after Rabbit Order (Arai, Shiokawa, Yamamuro, Onizuka & Iwamura, IPDPS 2016),
// sequential: on the symmetrized pattern (unit edge weights), vertices in increasing degree (ties by
// index) each join the neighbouring community whose merge gains the most modularity (Newman's Q), if
// any gains; then a depth-first walk over the merge tree numbers every community, and every community
// inside it, consecutively. For graphs (power-law, social, web) whose rows reference clustered columns
// that neither a bandwidth ordering nor hub sorting gathers. Deterministic; O(nnz) memory, about
// O(nnz log n) time. Square A only (NotApplicable otherwise).
template <class T>
Permutation community_order(const Csr<T>& a);

// The ordering of A by `o` (identity for none).
template <class T>
Permutation compute_ordering(const Csr<T>& a, Ordering o);

// B = P A P^T: B(new_of_old[i], new_of_old[j]) = A(i, j), columns sorted within each row. Parallel
// (OpenMP). Square A with p.size() == rows (spkit::Error otherwise).
template <class T>
Csr<T> permute_symmetric(const Csr<T>& a, const Permutation& p);

// How far the stored entries sit from the diagonal: a cheap measure of how well a matrix is numbered.
struct Locality {
  std::int64_t bandwidth = 0;   // max |col - row|
  double mean_distance = 0;     // mean |col - row| over the stored entries
  double mean_row_span = 0;     // mean (last col - first col + 1) over the non-empty rows
  // mean_distance / cols: ~1/3 for a randomly numbered matrix, near 0 for a banded one.
  double relative_distance = 0;
};
template <class T>
Locality locality(const Csr<T>& a);
// The same of P A P^T, computed from A and p without forming it (square A, p of its size; spkit::Error
// otherwise).
template <class T>
Locality locality(const Csr<T>& a, const Permutation& p);
// "bandwidth 12, mean |i-j| 3.4 (0.1% of n), mean row span 9.0"
std::string to_string(const Locality& l);

}  // namespace spkit
