// The symmetrized adjacency the orderings read (src/reorder/pattern.hpp): A + A^T without the diagonal,
// each neighbour once, sorted; a symmetric pattern takes a shortcut (its own rows less the diagonal), so
// both a symmetric and an unsymmetric pattern, with and without diagonal entries, against a set-based
// reference.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "common/test_matrices.hpp"
#include "reorder/pattern.hpp"

namespace spkit::test {
namespace {

void expect_adjacency(const Csr<double>& a, const std::string& what) {
  std::vector<std::set<std::int32_t>> want(static_cast<std::size_t>(a.rows));
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int32_t j = a.col_idx[k];
      if (j == i) continue;
      want[i].insert(j);
      want[j].insert(static_cast<std::int32_t>(i));
    }
  const reorder_detail::Adjacency g = reorder_detail::symmetrized(a.rows, a.row_ptr, a.col_idx);
  ASSERT_EQ(g.n, a.rows) << what;
  std::int64_t edge_ends = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    std::vector<std::int32_t> got;
    g.for_each_neighbour(i, [&](std::int32_t w) { got.push_back(w); });
    ASSERT_EQ(got, std::vector<std::int32_t>(want[i].begin(), want[i].end())) << what << ", vertex " << i;
    ASSERT_EQ(g.degree(i), static_cast<std::int64_t>(want[i].size())) << what << ", vertex " << i;
    edge_ends += static_cast<std::int64_t>(want[i].size());
  }
  EXPECT_EQ(g.edge_ends, edge_ends) << what;
  // In place exactly when A's own rows, less the diagonal, are the adjacency.
  std::set<std::pair<std::int32_t, std::int32_t>> entries;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) entries.insert({static_cast<std::int32_t>(i), a.col_idx[k]});
  bool symmetric = true;
  for (const auto& [i, j] : entries) symmetric = symmetric && entries.count({j, i}) > 0;
  EXPECT_EQ(g.in_place, symmetric) << what;
}

// A + A^T of a random pattern: symmetric, with the diagonal on every third row.
Csr<double> symmetric_pattern(std::int64_t n, unsigned seed) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) len[i] = (i * 7) % 9;
  const Csr<double> a = random_rows(n, n, len, seed);
  Coo<double> coo;
  coo.rows = coo.cols = n;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i % 3 == 0)
      coo.row_idx.push_back(static_cast<std::int32_t>(i)), coo.col_idx.push_back(static_cast<std::int32_t>(i)), coo.values.push_back(1.0);
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const auto ii = static_cast<std::int32_t>(i);
      coo.row_idx.push_back(ii), coo.col_idx.push_back(a.col_idx[k]), coo.values.push_back(1.0);
      coo.row_idx.push_back(a.col_idx[k]), coo.col_idx.push_back(ii), coo.values.push_back(1.0);
    }
  }
  return coo_to_csr(coo);
}

TEST(ReorderPattern, SymmetricShortcutAndGeneralPathMatchTheReference) {
  for (std::int64_t n : {1, 2, 57, 5000}) {  // 5000: past the threads' threshold
    expect_adjacency(symmetric_pattern(n, 11), "symmetric, n " + std::to_string(n));
    std::vector<std::int64_t> len(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) len[i] = (i * 5) % 7;
    expect_adjacency(random_rows(n, n, len, 12), "unsymmetric, n " + std::to_string(n));
  }
}

}  // namespace
}  // namespace spkit::test
