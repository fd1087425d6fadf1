// Reverse Cuthill-McKee with George and Liu's pseudo-peripheral start node (spkit/reorder.hpp), and the
// symmetrized adjacency both orderings read.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "reorder/pattern.hpp"
#include "spkit/error.hpp"
#include "spkit/reorder.hpp"

namespace spkit {
namespace reorder_detail {

void require_square(std::int64_t rows, std::int64_t cols, const std::string& what) {
  if (rows != cols)
    throw NotApplicable(what + " needs a square matrix (a symmetric permutation P A P^T); this one is " +
                        std::to_string(rows) + " x " + std::to_string(cols));
  if (rows > INT32_MAX)
    throw Error(what + ": " + std::to_string(rows) + " rows exceed 32-bit vertex numbers");
}

namespace {

// Whether every off-diagonal entry (i, j) has its mirror (j, i); fills each vertex's degree without the
// diagonal. Only the entries above the diagonal are looked up, by a binary search in row j (rows are
// sorted: the CSR contract): when each has its mirror below and there are as many entries below as
// above, those mirrors are all the entries below. The rows looked up lie anywhere, so their starts are
// prefetched a few entries ahead. Read-only on the pattern, shared by the threads.
bool pattern_is_symmetric(std::int64_t n, const std::vector<std::int64_t>& row_ptr,
                          const std::vector<std::int32_t>& col_idx, std::vector<std::int32_t>& degrees) {
  degrees.resize(static_cast<std::size_t>(n));
  const std::int64_t* ptr = row_ptr.data();
  const std::int32_t* col = col_idx.data();
  const std::int64_t nnz = ptr[n];
  bool mirrored = true;
  std::int64_t above = 0, below = 0;
#pragma omp parallel for schedule(static, 1024) reduction(&& : mirrored) reduction(+ : above, below) if (n >= 4096)
  for (std::int64_t i = 0; i < n; ++i) {
    std::int32_t degree = 0;
    for (std::int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
      if (k + 16 < nnz) __builtin_prefetch(ptr + col[k + 16]);
      if (k + 8 < nnz && col[k + 8] > i) __builtin_prefetch(col + ptr[col[k + 8]]);
      const std::int32_t j = col[k];
      if (j == i) continue;
      ++degree;
      if (j < i) {
        ++below;
        continue;
      }
      ++above;
      if (mirrored) mirrored = std::binary_search(col + ptr[j], col + ptr[j + 1], static_cast<std::int32_t>(i));
    }
    degrees[i] = degree;
  }
  return mirrored && above == below;
}

}  // namespace

Adjacency symmetrized(std::int64_t n, const std::vector<std::int64_t>& row_ptr, const std::vector<std::int32_t>& col_idx) {
  Adjacency g;
  g.n = n;
  // A symmetric pattern (meshes, stencils) is its own adjacency less the diagonal: read in place, no
  // scatter, no sort, no copy (16M entries: 0.57 s for the general path below on the dev box, 0.09 s).
  if (pattern_is_symmetric(n, row_ptr, col_idx, g.degrees)) {
    g.offsets = row_ptr.data();
    g.neighbours = col_idx.data();
    g.in_place = true;
    for (const std::int32_t d : g.degrees) g.edge_ends += d;
    return g;
  }
  // Otherwise each vertex's list is the union of its row and its column less the diagonal: A^T by a
  // counting sort in which each thread owns a range of A's columns (it reads all of A and keeps the
  // entries of its range: no atomics, and A^T's rows come out sorted as A is read in row order), then each
  // row of A merged with the same row of A^T, sorted and unique. Rows of A are sorted (the CSR contract).
  // The same lists on any thread count. (8M entries of a random graph: 0.44 s serially with a scatter and a
  // sort per list, dev box.)
  const int threads = n >= 4096 ? omp_get_max_threads() : 1;
  std::vector<std::int64_t> t_ptr(static_cast<std::size_t>(n) + 1, 0);
  std::vector<std::int32_t> t_col;
#pragma omp parallel num_threads(threads)
  {
    const int me = omp_get_thread_num(), team = omp_get_num_threads();
    const std::int64_t c0 = n * me / team, c1 = n * (me + 1) / team;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const std::int64_t j = col_idx[k];
        if (j >= c0 && j < c1 && j != i) ++t_ptr[j + 1];
      }
#pragma omp barrier
#pragma omp single
    {
      for (std::int64_t i = 0; i < n; ++i) t_ptr[i + 1] += t_ptr[i];
      t_col.resize(static_cast<std::size_t>(t_ptr[n]));
    }  // (implied barrier)
    std::vector<std::int64_t> cursor(t_ptr.begin() + c0, t_ptr.begin() + c1);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const std::int64_t j = col_idx[k];
        if (j >= c0 && j < c1 && j != i) t_col[cursor[j - c0]++] = static_cast<std::int32_t>(i);
      }
  }
  // merge(i, out): row i of A and of A^T, without i and without repeats, written to out (if given);
  // returns how many.
  auto merge = [&](std::int64_t i, std::int32_t* out) {
    std::int64_t a = row_ptr[i], a_end = row_ptr[i + 1], t = t_ptr[i], t_end = t_ptr[i + 1], count = 0;
    std::int64_t last = -1;
    while (a < a_end || t < t_end) {
      std::int64_t v;
      if (t == t_end || (a < a_end && col_idx[a] <= t_col[t])) v = col_idx[a++];
      else v = t_col[t++];
      if (v == i || v == last) continue;
      if (out) out[count] = static_cast<std::int32_t>(v);
      ++count;
      last = v;
    }
    return count;
  };
  g.own_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  g.degrees.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static, 4096) num_threads(threads)
  for (std::int64_t i = 0; i < n; ++i) g.degrees[i] = static_cast<std::int32_t>(merge(i, nullptr));
  for (std::int64_t i = 0; i < n; ++i) g.own_offsets[i + 1] = g.own_offsets[i] + g.degrees[i];
  g.own_neighbours.resize(static_cast<std::size_t>(g.own_offsets[n]));
#pragma omp parallel for schedule(static, 4096) num_threads(threads)
  for (std::int64_t i = 0; i < n; ++i) merge(i, g.own_neighbours.data() + g.own_offsets[i]);
  g.offsets = g.own_offsets.data();
  g.neighbours = g.own_neighbours.data();
  g.edge_ends = g.own_offsets[n];
  return g;
}

namespace {

// One bit per vertex: whether a search has reached it. 375K vertices take 47 KB, which stays in cache
// where an int per vertex (1.5 MB) did not. set_first may be called by several threads at once.
class VertexBits {
 public:
  explicit VertexBits(std::int64_t n) : words_(static_cast<std::size_t>((n + 63) / 64), 0) {}
  bool test(std::int32_t v) const { return (words_[v >> 6] >> (v & 63)) & 1u; }
  void set(std::int32_t v) { words_[v >> 6] |= bit(v); }
  void clear(std::int32_t v) { words_[v >> 6] &= ~bit(v); }
  // Sets v's bit; true if this call set it (atomic: threads racing for v, one wins).
  bool set_first(std::int32_t v) {
    std::uint64_t* w = &words_[v >> 6];
    if (__atomic_load_n(w, __ATOMIC_RELAXED) & bit(v)) return false;
    return !(__atomic_fetch_or(w, bit(v), __ATOMIC_RELAXED) & bit(v));
  }

 private:
  static std::uint64_t bit(std::int32_t v) { return std::uint64_t{1} << (v & 63); }
  std::vector<std::uint64_t> words_;
};

// A search walks vertices whose neighbour lists lie anywhere (a badly numbered mesh is what RCM is for):
// each list's start is a cache miss. So the offsets of the vertex kPrefetchFar places ahead in the
// queue, and the list of the one kPrefetchNear ahead, are fetched early (16M entries, 1 thread on the dev
// box: a search 55 -> 28 ms). always_inline: GCC 12 finds a plain inline helper "pure" (a prefetch has
// no effect it models), and drops the call whose result is unused, prefetches and all.
constexpr std::size_t kPrefetchFar = 16, kPrefetchNear = 8;
__attribute__((always_inline)) inline void prefetch_ahead(const Adjacency& g, const std::vector<std::int32_t>& queue, std::size_t q, std::size_t end) {
  if (q + kPrefetchFar < end) __builtin_prefetch(g.offsets + queue[q + kPrefetchFar]);
  if (q + kPrefetchNear < end) __builtin_prefetch(g.neighbours + g.offsets[queue[q + kPrefetchNear]]);
}

// Below this many vertices a level is expanded by one thread.
constexpr std::size_t kParallelLevel = 2048;

// The breadth-first level structure from `root` over its component: its depth (root's eccentricity) and
// its deepest level, a set that does not depend on the threads. `queue` is scratch; `seen` is clear on
// entry and on return (only the component's bits are touched, so repeated searches cost O(component)).
struct Levels {
  std::int64_t depth = 0;
  std::vector<std::int32_t> last;
};

Levels level_structure(const Adjacency& g, std::int32_t root, VertexBits& seen, std::vector<std::int32_t>& queue) {
  queue.assign(1, root);
  seen.set(root);
  std::size_t begin = 0, end = 1;
  std::int64_t depth = 0;
  const int threads = omp_get_max_threads();
  std::vector<std::vector<std::int32_t>> found;  // each thread's finds; allocated at the first wide level only
  for (;;) {
    if (end - begin < kParallelLevel || threads == 1) {
      for (std::size_t q = begin; q < end; ++q) {
        prefetch_ahead(g, queue, q, end);
        const std::int32_t v = queue[q];
        for (std::int64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
          const std::int32_t w = g.neighbours[k];
          if (!seen.test(w)) seen.set(w), queue.push_back(w);
        }
      }
    } else {
      found.resize(static_cast<std::size_t>(threads));  // (road networks have 100,000s of tiny components)
#pragma omp parallel num_threads(threads)
      {
        std::vector<std::int32_t>& mine = found[static_cast<std::size_t>(omp_get_thread_num())];
        mine.clear();
#pragma omp for schedule(dynamic, 256)
        for (std::size_t q = begin; q < end; ++q) {
          prefetch_ahead(g, queue, q, end);
          const std::int32_t v = queue[q];
          for (std::int64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k)
            if (seen.set_first(g.neighbours[k])) mine.push_back(g.neighbours[k]);
        }
      }
      for (const auto& mine : found) queue.insert(queue.end(), mine.begin(), mine.end());
    }
    if (queue.size() == end) break;
    begin = end;
    end = queue.size();
    ++depth;
  }
  for (const std::int32_t v : queue) seen.clear(v);
  return {depth, std::vector<std::int32_t>(queue.begin() + static_cast<std::ptrdiff_t>(begin), queue.end())};
}

// George and Liu (1979): from a start node, repeatedly root a level structure at a minimum-degree node of
// the deepest level (ties to the lower index) while that deepens the structure. A few rounds suffice in
// practice; the cap bounds pathological cases.
std::int32_t pseudo_peripheral(const Adjacency& g, std::int32_t start, VertexBits& seen, std::vector<std::int32_t>& queue) {
  constexpr int kMaxRounds = 16;
  std::int32_t root = start;
  Levels l = level_structure(g, root, seen, queue);
  for (int round = 0; round < kMaxRounds; ++round) {
    std::int32_t best = l.last.front();
    for (const std::int32_t v : l.last)
      if (g.degree(v) < g.degree(best) || (g.degree(v) == g.degree(best) && v < best)) best = v;
    Levels next = level_structure(g, best, seen, queue);
    if (next.depth <= l.depth) break;
    root = best;
    l = std::move(next);
  }
  return root;
}

}  // namespace
}  // namespace reorder_detail

template <class T>
Permutation reverse_cuthill_mckee(const Csr<T>& a) {
  using namespace reorder_detail;
  require_square(a.rows, a.cols, "reverse Cuthill-McKee");
  const std::int64_t n = a.rows;
  const Adjacency g = symmetrized(n, a.row_ptr, a.col_idx);
  VertexBits seen(n), numbered(n);
  std::vector<std::int32_t> queue;
  std::vector<std::int32_t> order;  // Cuthill-McKee order (old indices), reversed at the end
  order.reserve(static_cast<std::size_t>(n));
  std::vector<std::int32_t> fresh;  // a vertex's unnumbered neighbours, sorted by degree
  auto by_degree = [&](std::int32_t u, std::int32_t v) {
    return g.degree(u) != g.degree(v) ? g.degree(u) < g.degree(v) : u < v;
  };
  for (std::int64_t s = 0; s < n; ++s) {
    if (numbered.test(static_cast<std::int32_t>(s))) continue;
    const std::int32_t root = pseudo_peripheral(g, static_cast<std::int32_t>(s), seen, queue);
    std::size_t head = order.size();
    order.push_back(root);
    numbered.set(root);
    for (; head < order.size(); ++head) {
      prefetch_ahead(g, order, head, order.size());
      const std::int32_t v = order[head];
      fresh.clear();
      for (std::int64_t k = g.offsets[v]; k < g.offsets[v + 1]; ++k) {
        const std::int32_t w = g.neighbours[k];
        if (!numbered.test(w)) numbered.set(w), fresh.push_back(w);
      }
      std::sort(fresh.begin(), fresh.end(), by_degree);
      order.insert(order.end(), fresh.begin(), fresh.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return Permutation::from_old_of_new(std::move(order));
}

template <class T>
bool has_symmetric_pattern(const Csr<T>& a) {
  if (a.rows != a.cols) return false;
  std::vector<std::int32_t> degrees;
  return reorder_detail::pattern_is_symmetric(a.rows, a.row_ptr, a.col_idx, degrees);
}

template bool has_symmetric_pattern(const Csr<float>&);
template bool has_symmetric_pattern(const Csr<double>&);
template Permutation reverse_cuthill_mckee(const Csr<float>&);
template Permutation reverse_cuthill_mckee(const Csr<double>&);

}  // namespace spkit
