// Orderings (spkit/reorder.hpp): RCM and hub sorting return permutations, RCM narrows a randomly
// numbered mesh and road network, P A P^T holds the same entries renumbered, and the edge cases (empty
// rows, disconnected parts, 1x1, an unsymmetric pattern, rectangular shapes) behave.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <map>
#include <utility>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/reorder.hpp"

namespace spkit::test {
namespace {

void expect_permutation(const Permutation& p, std::int64_t n, const std::string& what) {
  ASSERT_EQ(p.size(), n) << what;
  ASSERT_EQ(static_cast<std::int64_t>(p.new_of_old.size()), n) << what;
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t old = p.old_of_new[i];
    ASSERT_TRUE(old >= 0 && old < n) << what << " entry " << i;
    ASSERT_FALSE(seen[old]) << what << ": " << old << " twice";
    seen[old] = 1;
    ASSERT_EQ(p.new_of_old[old], i) << what << ": inverse wrong at " << old;
  }
}

// B = P A P^T holds exactly A's entries, renumbered, columns sorted.
void expect_permuted(const Csr<double>& a, const Permutation& p, const Csr<double>& b, const std::string& what) {
  check_csr(b);
  ASSERT_EQ(b.nnz(), a.nnz()) << what;
  std::map<std::pair<std::int32_t, std::int32_t>, double> entries;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      entries[{p.new_of_old[i], p.new_of_old[a.col_idx[k]]}] = a.values[k];
  for (std::int64_t i = 0; i < b.rows; ++i)
    for (std::int64_t k = b.row_ptr[i]; k < b.row_ptr[i + 1]; ++k) {
      auto it = entries.find({static_cast<std::int32_t>(i), b.col_idx[k]});
      ASSERT_NE(it, entries.end()) << what << ": unexpected entry (" << i << ", " << b.col_idx[k] << ")";
      ASSERT_EQ(it->second, b.values[k]) << what;
    }
}

Csr<double> generated(const std::string& family, std::int64_t n, const std::string& ordering, int dims = 0) {
  GenOptions g;
  g.family = family;
  g.n = n;
  g.ordering = ordering;
  g.dims = dims;
  return generate(g);
}

TEST(Reorder, RcmNarrowsRandomlyNumberedMeshAndRoad) {
  for (const auto& [name, a] : std::vector<std::pair<std::string, Csr<double>>>{
           {"fem_mesh random", generated("fem_mesh", 9, "random", 3)},
           {"road_planar random", generated("road_planar", 37, "random")}}) {
    const Permutation p = reverse_cuthill_mckee(a);
    expect_permutation(p, a.rows, name);
    const Csr<double> b = permute_symmetric(a, p);
    expect_permuted(a, p, b, name);
    const Locality before = locality(a), after = locality(b);
    EXPECT_LT(after.bandwidth * 3, before.bandwidth) << name << ": " << to_string(before) << " -> " << to_string(after);
    EXPECT_LT(after.mean_distance * 4, before.mean_distance) << name;
    EXPECT_GT(before.relative_distance, 0.1) << name << " should start badly numbered";
  }
}

TEST(Reorder, RcmIsDeterministicAndFindsAPeripheralStart) {
  // A path numbered out of order: RCM must number it end to end (bandwidth 1).
  const std::int64_t n = 41;
  std::vector<std::vector<std::int32_t>> cols(n);
  std::vector<std::int32_t> label(n);
  for (std::int64_t i = 0; i < n; ++i) label[i] = static_cast<std::int32_t>((i * 17) % n);  // 17 coprime to 41
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    cols[label[i]].push_back(label[i + 1]);
    cols[label[i + 1]].push_back(label[i]);
  }
  for (auto& c : cols) std::sort(c.begin(), c.end());
  const Csr<double> a = random_csr(n, n, 3, cols);
  const Permutation p = reverse_cuthill_mckee(a);
  EXPECT_EQ(locality(permute_symmetric(a, p)).bandwidth, 1);
  EXPECT_EQ(p.old_of_new, reverse_cuthill_mckee(a).old_of_new);
}

TEST(Reorder, EdgeCases) {
  for (const NamedMatrix& m : edge_case_matrices()) {
    if (m.a.rows != m.a.cols) {
      EXPECT_THROW(reverse_cuthill_mckee(m.a), NotApplicable) << m.name;
      EXPECT_THROW(hub_sort(m.a), NotApplicable) << m.name;
      continue;
    }
    for (Ordering o : {Ordering::none, Ordering::rcm, Ordering::hubsort}) {
      const std::string what = m.name + " " + std::string(to_string(o));
      const Permutation p = compute_ordering(m.a, o);
      expect_permutation(p, m.a.rows, what);
      expect_permuted(m.a, p, permute_symmetric(m.a, p), what);
    }
  }
}

TEST(Reorder, DisconnectedEmptyRowsAndUnsymmetricPattern) {
  // Two components, isolated vertices (empty rows), and entries only above the diagonal.
  const std::vector<std::vector<std::int32_t>> cols = {{5}, {}, {7}, {3}, {}, {9}, {}, {2, 8}, {}, {0}, {}};
  const Csr<double> a = random_csr(11, 11, 5, cols);
  const Permutation p = reverse_cuthill_mckee(a);
  expect_permutation(p, 11, "disconnected");
  expect_permuted(a, p, permute_symmetric(a, p), "disconnected");
  const Csr<double> one = random_csr(1, 1, 2, {{0}});
  EXPECT_TRUE(reverse_cuthill_mckee(one).is_identity());
}

// Reverse Cuthill-McKee written plainly (A + A^T as sorted lists, one int per vertex, one thread), the
// definition spkit/reorder.hpp states: per component, from the first unnumbered vertex, George and Liu's
// rounds (a minimum-degree vertex of the deepest level, ties to the lower index, while the depth grows),
// then breadth-first with neighbours in increasing degree (ties by index), reversed.
std::vector<std::int32_t> plain_rcm(const Csr<double>& a) {
  const std::int64_t n = a.rows;
  std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      if (a.col_idx[k] != i) adj[i].push_back(a.col_idx[k]), adj[a.col_idx[k]].push_back(static_cast<std::int32_t>(i));
  for (auto& l : adj) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  const auto degree = [&](std::int32_t v) { return adj[v].size(); };
  // (depth, deepest level) from root
  const auto levels = [&](std::int32_t root) {
    std::vector<int> level(static_cast<std::size_t>(n), -1);
    std::vector<std::int32_t> queue{root};
    level[root] = 0;
    for (std::size_t h = 0; h < queue.size(); ++h)
      for (std::int32_t w : adj[queue[h]])
        if (level[w] < 0) level[w] = level[queue[h]] + 1, queue.push_back(w);
    const int depth = level[queue.back()];
    std::vector<std::int32_t> last;
    for (std::int32_t v : queue)
      if (level[v] == depth) last.push_back(v);
    return std::make_pair(depth, last);
  };
  std::vector<char> numbered(static_cast<std::size_t>(n), 0);
  std::vector<std::int32_t> order;
  for (std::int64_t s = 0; s < n; ++s) {
    if (numbered[s]) continue;
    std::int32_t root = static_cast<std::int32_t>(s);
    auto l = levels(root);
    for (int round = 0; round < 16; ++round) {
      std::int32_t best = l.second.front();
      for (std::int32_t v : l.second)
        if (degree(v) < degree(best) || (degree(v) == degree(best) && v < best)) best = v;
      auto next = levels(best);
      if (next.first <= l.first) break;
      root = best;
      l = next;
    }
    std::size_t head = order.size();
    order.push_back(root);
    numbered[root] = 1;
    for (; head < order.size(); ++head) {
      std::vector<std::int32_t> fresh;
      for (std::int32_t w : adj[order[head]])
        if (!numbered[w]) numbered[w] = 1, fresh.push_back(w);
      std::sort(fresh.begin(), fresh.end(), [&](std::int32_t u, std::int32_t v) {
        return degree(u) != degree(v) ? degree(u) < degree(v) : u < v;
      });
      order.insert(order.end(), fresh.begin(), fresh.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// The searches run level by level on several threads where a level is wide (2,048 vertices), over a
// symmetric pattern read in place or a symmetrized copy; the permutation must be the plain one's on any
// thread count. The random and power-law graphs have levels of several thousand vertices, both as they are
// (unsymmetric: symmetrized into a copy) and plus their transposes (symmetric: read in place).
TEST(Reorder, RcmMatchesThePlainAlgorithmOnAnyThreadCount) {
  std::vector<std::pair<std::string, Csr<double>>> cases = {
      {"fem_mesh random", generated("fem_mesh", 12, "random", 3)},
      {"road_planar random", generated("road_planar", 150, "random")},
      {"powerlaw (unsymmetric)", generated("powerlaw", 20000, "")},
      {"random (unsymmetric)", generated("random", 20000, "")}};
  for (std::size_t c = 2; c < 4; ++c) {  // A + A^T
    const Csr<double>& a = cases[c].second;
    Coo<double> coo;
    coo.rows = coo.cols = a.rows;
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        for (const auto& [r, col] : {std::make_pair(i, std::int64_t{a.col_idx[k]}), std::make_pair(std::int64_t{a.col_idx[k]}, i)}) {
          coo.row_idx.push_back(static_cast<std::int32_t>(r));
          coo.col_idx.push_back(static_cast<std::int32_t>(col));
          coo.values.push_back(1.0);
        }
    cases.emplace_back(cases[c].first + " + transpose", coo_to_csr(coo));
  }
  const std::vector<std::vector<std::int32_t>> cols = {{5}, {}, {7}, {3}, {}, {9}, {}, {2, 8}, {}, {0}, {}};
  cases.emplace_back("disconnected", random_csr(11, 11, 5, cols));
  const int threads_before = omp_get_max_threads();
  for (const auto& [name, a] : cases) {
    const std::vector<std::int32_t> want = plain_rcm(a);
    for (int threads : {1, 2, 5}) {
      omp_set_num_threads(threads);
      EXPECT_EQ(reverse_cuthill_mckee(a).old_of_new, want) << name << ", " << threads << " threads";
    }
  }
  omp_set_num_threads(threads_before);
}

TEST(Reorder, HubSortPutsTheMostReferencedColumnsFirst) {
  GenOptions g;
  g.family = "powerlaw";
  g.n = 3001;
  const Csr<double> a = generate(g);
  const Permutation p = hub_sort(a);
  expect_permutation(p, a.rows, "powerlaw");
  std::vector<std::int64_t> refs(static_cast<std::size_t>(a.cols), 0);
  for (std::int32_t j : a.col_idx) ++refs[j];
  const std::int64_t top = *std::max_element(refs.begin(), refs.end());
  EXPECT_EQ(refs[p.old_of_new[0]], top);
  for (std::int64_t i = 1; i < 10; ++i) EXPECT_GE(refs[p.old_of_new[i - 1]], refs[p.old_of_new[i]]);
  expect_permuted(a, p, permute_symmetric(a, p), "powerlaw");
}

// Only entries above the diagonal are looked up, the rest are counted: an extra entry below, a mirror
// missing, or the same counts with the wrong partners must all read as unsymmetric.
TEST(Reorder, SymmetricPatternCheck) {
  EXPECT_TRUE(has_symmetric_pattern(random_csr(4, 4, 1, {{0, 2}, {3}, {0}, {1, 3}})));
  EXPECT_FALSE(has_symmetric_pattern(random_csr(4, 4, 1, {{0, 2}, {3}, {0, 1}, {1, 3}}))) << "(2, 1) unmirrored";
  EXPECT_FALSE(has_symmetric_pattern(random_csr(3, 3, 1, {{1}, {}, {0}}))) << "one above, one below, not mirrors";
  EXPECT_FALSE(has_symmetric_pattern(random_csr(3, 3, 1, {{1}, {2}, {}}))) << "only above the diagonal";
  EXPECT_TRUE(has_symmetric_pattern(random_csr(3, 3, 1, {{0}, {}, {2}}))) << "diagonal only";
  EXPECT_FALSE(has_symmetric_pattern(random_csr(2, 3, 1, {{0}, {1}}))) << "rectangular";
  EXPECT_TRUE(has_symmetric_pattern(generated("fem_mesh", 6, "random", 3)));
}

// locality(A, p) is locality(P A P^T) without forming it.
TEST(Reorder, LocalityOfAPermutationWithoutPermuting) {
  for (const auto& a : {generated("fem_mesh", 8, "random", 3), generated("road_planar", 40, "random"),
                        random_csr(11, 11, 5, {{5}, {}, {7}, {3}, {}, {9}, {}, {2, 8}, {}, {0}, {}})}) {
    for (const Permutation& p : {reverse_cuthill_mckee(a), Permutation::identity(a.rows), hub_sort(a)}) {
      const Locality want = locality(permute_symmetric(a, p)), got = locality(a, p);
      EXPECT_EQ(got.bandwidth, want.bandwidth);
      EXPECT_NEAR(got.mean_distance, want.mean_distance, 1e-9 * (1 + want.mean_distance));
      EXPECT_NEAR(got.mean_row_span, want.mean_row_span, 1e-9 * (1 + want.mean_row_span));
      EXPECT_NEAR(got.relative_distance, want.relative_distance, 1e-12);
    }
  }
  EXPECT_THROW(locality(generated("road_planar", 10, "random"), Permutation::identity(3)), Error);
}

TEST(Reorder, BadInputsAreRefused) {
  EXPECT_THROW(Permutation::from_old_of_new({0, 0, 1}), Error);
  EXPECT_THROW(Permutation::from_old_of_new({0, 3, 1}), Error);
  EXPECT_THROW(parse_ordering("metis"), Error);
  EXPECT_EQ(parse_ordering("rcm"), Ordering::rcm);
  const Csr<double> a = random_csr(3, 3, 1, {{0}, {1}, {2}});
  EXPECT_THROW(permute_symmetric(a, Permutation::identity(2)), Error);
}

}  // namespace
}  // namespace spkit::test
