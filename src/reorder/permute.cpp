// Permutations, hub sorting, P A P^T and the locality statistic (spkit/reorder.hpp).
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "reorder/pattern.hpp"
#include "spkit/error.hpp"
#include "spkit/reorder.hpp"

namespace spkit {

bool Permutation::is_identity() const {
  for (std::size_t i = 0; i < old_of_new.size(); ++i)
    if (old_of_new[i] != static_cast<std::int32_t>(i)) return false;
  return true;
}

Permutation Permutation::identity(std::int64_t n) {
  if (n < 0 || n > INT32_MAX) throw Error("Permutation::identity: size " + std::to_string(n) + " out of 32-bit range");
  Permutation p;
  p.old_of_new.resize(static_cast<std::size_t>(n));
  std::iota(p.old_of_new.begin(), p.old_of_new.end(), 0);
  p.new_of_old = p.old_of_new;
  return p;
}

Permutation Permutation::from_old_of_new(std::vector<std::int32_t> old_of_new) {
  const std::size_t n = old_of_new.size();
  if (n > static_cast<std::size_t>(INT32_MAX)) throw Error("Permutation: size " + std::to_string(n) + " out of 32-bit range");
  Permutation p;
  p.new_of_old.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t old = old_of_new[i];
    if (old < 0 || static_cast<std::size_t>(old) >= n)
      throw Error("Permutation: entry " + std::to_string(i) + " is " + std::to_string(old) + ", outside 0.." +
                  std::to_string(n == 0 ? 0 : n - 1));
    if (p.new_of_old[old] >= 0)
      throw Error("Permutation: " + std::to_string(old) + " appears twice (at " + std::to_string(p.new_of_old[old]) +
                  " and " + std::to_string(i) + ")");
    p.new_of_old[old] = static_cast<std::int32_t>(i);
  }
  p.old_of_new = std::move(old_of_new);
  return p;
}

std::string_view to_string(Ordering o) {
  switch (o) {
    case Ordering::none: return "none";
    case Ordering::rcm: return "rcm";
    case Ordering::hubsort: return "hubsort";
    case Ordering::community: return "community";
  }
  return "?";
}

Ordering parse_ordering(std::string_view name) {
  for (Ordering o : {Ordering::none, Ordering::rcm, Ordering::hubsort, Ordering::community})
    if (name == to_string(o)) return o;
  throw Error("unknown ordering '" + std::string(name) + "'; orderings: none, rcm, hubsort, community");
}

template <class T>
Permutation hub_sort(const Csr<T>& a) {
  reorder_detail::require_square(a.rows, a.cols, "hub sorting");
  const std::int64_t n = a.rows;
  // How often each column is referenced: the x entries a product reads most.
  std::vector<std::int64_t> refs(static_cast<std::size_t>(n), 0);
  for (std::int32_t j : a.col_idx) ++refs[j];
  const double mean = n > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(n) : 0.0;
  std::vector<std::int32_t> hubs, others;
  for (std::int64_t v = 0; v < n; ++v)
    (static_cast<double>(refs[v]) > mean ? hubs : others).push_back(static_cast<std::int32_t>(v));
  std::stable_sort(hubs.begin(), hubs.end(), [&](std::int32_t u, std::int32_t v) { return refs[u] > refs[v]; });
  hubs.insert(hubs.end(), others.begin(), others.end());
  return Permutation::from_old_of_new(std::move(hubs));
}

template <class T>
Permutation compute_ordering(const Csr<T>& a, Ordering o) {
  switch (o) {
    case Ordering::rcm: return reverse_cuthill_mckee(a);
    case Ordering::hubsort: return hub_sort(a);
    case Ordering::community: return community_order(a);
    case Ordering::none: break;
  }
  reorder_detail::require_square(a.rows, a.cols, "a symmetric ordering");
  return Permutation::identity(a.rows);
}

template <class T>
Csr<T> permute_symmetric(const Csr<T>& a, const Permutation& p) {
  reorder_detail::require_square(a.rows, a.cols, "permute_symmetric");
  if (p.size() != a.rows || static_cast<std::int64_t>(p.new_of_old.size()) != a.rows)
    throw Error("permute_symmetric: the permutation has " + std::to_string(p.size()) + " entries, the matrix " +
                std::to_string(a.rows) + " rows");
  const std::int64_t n = a.rows;
  Csr<T> b;
  b.rows = b.cols = n;
  b.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) b.row_ptr[i + 1] = b.row_ptr[i] + a.row_length(p.old_of_new[i]);
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());
#pragma omp parallel
  {
    std::vector<std::pair<std::int32_t, T>> row;  // one row's (new column, value), sorted by column
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t old = p.old_of_new[i];
      row.clear();
      for (std::int64_t k = a.row_ptr[old]; k < a.row_ptr[old + 1]; ++k)
        row.emplace_back(p.new_of_old[a.col_idx[k]], a.values[k]);
      std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      std::int64_t out = b.row_ptr[i];
      for (const auto& [c, v] : row) b.col_idx[out] = c, b.values[out++] = v;
    }
  }
  return b;
}

template <class T>
Locality locality(const Csr<T>& a) {
  Locality l;
  double distance = 0, span = 0;
  std::int64_t nonempty = 0, bandwidth = 0;
#pragma omp parallel for schedule(static) reduction(+ : distance, span, nonempty) reduction(max : bandwidth)
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
    if (begin == end) continue;
    ++nonempty;
    span += static_cast<double>(a.col_idx[end - 1] - a.col_idx[begin] + 1);
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int64_t d = std::llabs(static_cast<long long>(a.col_idx[k]) - i);
      distance += static_cast<double>(d);
      bandwidth = std::max(bandwidth, d);
    }
  }
  l.bandwidth = bandwidth;
  l.mean_distance = a.nnz() > 0 ? distance / static_cast<double>(a.nnz()) : 0.0;
  l.mean_row_span = nonempty > 0 ? span / static_cast<double>(nonempty) : 0.0;
  l.relative_distance = a.cols > 0 ? l.mean_distance / static_cast<double>(a.cols) : 0.0;
  return l;
}

template <class T>
Locality locality(const Csr<T>& a, const Permutation& p) {
  if (p.size() != a.rows || a.rows != a.cols)
    throw Error("locality: a permutation of " + std::to_string(p.size()) + " for a " + std::to_string(a.rows) + " x " +
                std::to_string(a.cols) + " matrix");
  Locality l;
  double distance = 0, span = 0;
  std::int64_t nonempty = 0, bandwidth = 0;
  const std::int32_t* to = p.new_of_old.data();
#pragma omp parallel for schedule(static) reduction(+ : distance, span, nonempty) reduction(max : bandwidth)
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int64_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
    if (begin == end) continue;
    ++nonempty;
    const std::int64_t row = to[i];
    std::int64_t lo = a.cols, hi = -1;
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int64_t c = to[a.col_idx[k]];
      const std::int64_t d = std::llabs(static_cast<long long>(c - row));
      distance += static_cast<double>(d);
      bandwidth = std::max(bandwidth, d);
      lo = std::min(lo, c), hi = std::max(hi, c);
    }
    span += static_cast<double>(hi - lo + 1);
  }
  l.bandwidth = bandwidth;
  l.mean_distance = a.nnz() > 0 ? distance / static_cast<double>(a.nnz()) : 0.0;
  l.mean_row_span = nonempty > 0 ? span / static_cast<double>(nonempty) : 0.0;
  l.relative_distance = a.cols > 0 ? l.mean_distance / static_cast<double>(a.cols) : 0.0;
  return l;
}

std::string to_string(const Locality& l) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "bandwidth %lld, mean |i-j| %.1f (%.2g%% of n), mean row span %.1f",
                static_cast<long long>(l.bandwidth), l.mean_distance, l.relative_distance * 100, l.mean_row_span);
  return buf;
}

template Permutation hub_sort(const Csr<float>&);
template Permutation hub_sort(const Csr<double>&);
template Permutation compute_ordering(const Csr<float>&, Ordering);
template Permutation compute_ordering(const Csr<double>&, Ordering);
template Csr<float> permute_symmetric(const Csr<float>&, const Permutation&);
template Csr<double> permute_symmetric(const Csr<double>&, const Permutation&);
template Locality locality(const Csr<float>&);
template Locality locality(const Csr<double>&);
template Locality locality(const Csr<float>&, const Permutation&);
template Locality locality(const Csr<double>&, const Permutation&);

}  // namespace spkit
