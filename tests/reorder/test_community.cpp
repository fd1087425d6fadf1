// The community ordering (spkit/reorder.hpp: community_order, after Rabbit Order): a permutation,
// deterministic, P A P^T holds the entries; on planted cliques numbered at random it numbers most cliques
// consecutively and every one within twice its size, and it brings a randomly numbered mesh's entries near the diagonal; edge cases behave.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/reorder.hpp"

namespace spkit::test {
namespace {

void expect_valid(const Csr<double>& a, const Permutation& p, const std::string& what) {
  ASSERT_EQ(p.size(), a.rows) << what;
  std::vector<char> seen(static_cast<std::size_t>(a.rows), 0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::int32_t old = p.old_of_new[i];
    ASSERT_TRUE(old >= 0 && old < a.rows && !seen[old]) << what << " entry " << i;
    seen[old] = 1;
    ASSERT_EQ(p.new_of_old[old], i) << what;
  }
  const Csr<double> b = permute_symmetric(a, p);
  check_csr(b);
  EXPECT_EQ(b.nnz(), a.nnz()) << what;
}

// `clusters` cliques of `size` vertices, a ring of single edges between consecutive cliques, the
// vertices numbered by a seeded random permutation; cluster_of[v] says which clique v belongs to.
Csr<double> planted_cliques(std::int64_t clusters, std::int64_t size, std::vector<std::int64_t>& cluster_of) {
  const std::int64_t n = clusters * size;
  std::vector<std::int32_t> label(static_cast<std::size_t>(n));
  std::iota(label.begin(), label.end(), 0);
  std::shuffle(label.begin(), label.end(), std::mt19937_64(11));
  std::vector<std::vector<std::int32_t>> cols(static_cast<std::size_t>(n));
  cluster_of.assign(static_cast<std::size_t>(n), 0);
  auto link = [&](std::int64_t u, std::int64_t v) {
    cols[label[u]].push_back(label[v]);
    cols[label[v]].push_back(label[u]);
  };
  for (std::int64_t c = 0; c < clusters; ++c) {
    for (std::int64_t i = 0; i < size; ++i) {
      cluster_of[label[c * size + i]] = c;
      for (std::int64_t j = i + 1; j < size; ++j) link(c * size + i, c * size + j);
    }
    link(c * size, ((c + 1) % clusters) * size + 1);  // the bridge to the next clique
  }
  for (std::int64_t v = 0; v < n; ++v) {
    cols[v].push_back(static_cast<std::int32_t>(v));  // a diagonal, as a matrix has
    std::sort(cols[v].begin(), cols[v].end());
  }
  return random_csr(n, n, 3, cols);
}

TEST(CommunityOrder, NumbersPlantedCliquesConsecutively) {
  const std::int64_t clusters = 40, size = 9;
  std::vector<std::int64_t> cluster_of;
  const Csr<double> a = planted_cliques(clusters, size, cluster_of);
  const Permutation p = community_order(a);
  expect_valid(a, p, "planted cliques");
  // Each clique occupies one run of `size` new numbers.
  int consecutive = 0;
  for (std::int64_t c = 0; c < clusters; ++c) {
    std::int64_t lo = a.rows, hi = -1;
    for (std::int64_t v = 0; v < a.rows; ++v)
      if (cluster_of[v] == c) lo = std::min<std::int64_t>(lo, p.new_of_old[v]), hi = std::max<std::int64_t>(hi, p.new_of_old[v]);
    consecutive += hi - lo + 1 == size;
    // A clique whose bridge pulled a neighbouring clique into its community holds that one inside it.
    EXPECT_LE(hi - lo + 1, 2 * size) << "clique " << c;
  }
  EXPECT_GE(consecutive * 4, clusters * 3) << consecutive << " of " << clusters << " cliques numbered in one run";
  const Locality before = locality(a), after = locality(permute_symmetric(a, p));
  EXPECT_LT(after.mean_distance * 10, before.mean_distance) << to_string(before) << " -> " << to_string(after);
  EXPECT_EQ(p.old_of_new, community_order(a).old_of_new) << "not deterministic";
}

TEST(CommunityOrder, BringsARandomlyNumberedMeshNearTheDiagonal) {
  GenOptions g;
  g.family = "fem_mesh";
  g.n = 12;
  g.dims = 3;
  g.ordering = "random";
  const Csr<double> a = generate(g);
  const Permutation p = compute_ordering(a, Ordering::community);
  expect_valid(a, p, "fem_mesh random");
  const Locality before = locality(a), after = locality(permute_symmetric(a, p));
  EXPECT_LT(after.mean_distance * 3, before.mean_distance) << to_string(before) << " -> " << to_string(after);
  EXPECT_EQ(p.old_of_new, community_order(a).old_of_new) << "not deterministic";
}

TEST(CommunityOrder, GraphsAndEdgeCases) {
  for (const char* family : {"powerlaw", "rmat"}) {
    GenOptions g;
    g.family = family;
    g.n = 3001;
    const Csr<double> a = generate(g);
    const Permutation p = community_order(a);
    expect_valid(a, p, family);
    EXPECT_EQ(p.old_of_new, community_order(a).old_of_new) << family << " not deterministic";
  }
  for (const NamedMatrix& m : edge_case_matrices()) {
    if (m.a.rows != m.a.cols) {
      EXPECT_THROW(community_order(m.a), NotApplicable) << m.name;
      continue;
    }
    expect_valid(m.a, community_order(m.a), m.name);
  }
  // Isolated vertices, an unsymmetric pattern, 1x1.
  const Csr<double> loose = random_csr(11, 11, 5, {{5}, {}, {7}, {3}, {}, {9}, {}, {2, 8}, {}, {0}, {}});
  expect_valid(loose, community_order(loose), "disconnected, unsymmetric");
  EXPECT_TRUE(community_order(random_csr(1, 1, 2, {{0}})).is_identity());
  EXPECT_EQ(parse_ordering("community"), Ordering::community);
  EXPECT_EQ(to_string(Ordering::community), "community");
}

}  // namespace
}  // namespace spkit::test
