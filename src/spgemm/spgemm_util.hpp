#pragma once
// Private helpers shared by the CPU SpGEMM kernels: the shape check, the OpenMP team size of a call,
// the stage boundaries (stage_marks.hpp) and the memory check done before C (or a scratch array) is
// allocated.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/convert_util.hpp"
#include "platform/memory.hpp"
#include "spkit/error.hpp"
#include "spgemm/stage_marks.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::detail {

// Throws spkit::Error when a.cols != b.rows (defined in reference.cpp, the one wording of it).
template <class T>
void check_spgemm_shapes(const Csr<T>& a, const Csr<T>& b);

// Sets OpenMP's default team size for the scope of a kernel call, so that every parallel region it
// reaches (its own, and those of csr_to_bmsparse, bmsparse_to_csr, the prefix sums) uses the
// kernel's thread count rather than all cores; restores the previous value on exit.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(std::max(1, threads)); }
  ~ScopedOmpThreads() { omp_set_num_threads(previous_); }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int previous_;
};

// Throws TooLarge naming `bytes` when `what` would need more than `share` of the memory available now
// (scratch takes at most half, so that A, B and C keep the rest).
inline void check_spgemm_memory(const std::string& what, std::uint64_t bytes, double share = 1.0) {
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(available_memory_bytes()) * share);
  check_budget(what, bytes, FormatLimits{std::max<std::uint64_t>(budget, 1)});
}

// Drops the exact zeros of C (cancellation), as Gustavson's kernels do.
template <class T>
void drop_exact_zeros(Csr<T>& c, int threads) {
  std::vector<std::int64_t> kept(static_cast<std::size_t>(c.rows) + 1, 0);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < c.rows; ++i) {
    std::int64_t n = 0;
    for (std::int64_t p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p) n += c.values[p] != T(0);
    kept[i + 1] = n;
  }
  for (std::int64_t i = 0; i < c.rows; ++i) kept[i + 1] += kept[i];
  std::vector<std::int32_t> col(static_cast<std::size_t>(kept.back()));
  std::vector<T> val(static_cast<std::size_t>(kept.back()));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < c.rows; ++i) {
    std::int64_t w = kept[i];
    for (std::int64_t p = c.row_ptr[i]; p < c.row_ptr[i + 1]; ++p)
      if (c.values[p] != T(0)) col[w] = c.col_idx[p], val[w] = c.values[p], ++w;
  }
  c.col_idx = std::move(col);
  c.values = std::move(val);
  c.row_ptr = std::move(kept);
}

// Whether every row of a is made of aligned full b x b blocks (rows and columns in whole blocks; the b rows of a
// block row equally long, each run of b columns starting at a multiple of b). O(nnz), OpenMP over block rows.
template <class T>
bool made_of_full_blocks(const Csr<T>& a, int b) {
  if (a.rows == 0 || a.rows % b != 0 || a.cols % b != 0) return false;
  int bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static)
  for (std::int64_t r = 0; r < a.rows; r += b) {
    if (bad) continue;
    const std::int64_t p0 = a.row_ptr[r], len = a.row_ptr[r + 1] - p0;
    bool good = len % b == 0;
    for (int i = 1; good && i < b; ++i) good = a.row_ptr[r + i + 1] - a.row_ptr[r + i] == len;
    for (std::int64_t t = 0; good && t < len; t += b) {
      const std::int32_t c0 = a.col_idx[p0 + t];
      good = c0 % b == 0;
      for (int i = 0; good && i < b; ++i)
        for (int j = 0; good && j < b; ++j) good = a.col_idx[p0 + i * len + t + j] == c0 + j;
    }
    bad |= good ? 0 : 1;
  }
  return bad == 0;
}

// The largest b in {4, 3, 2} for which a is made of full b x b blocks (vector-valued finite-element matrices
// numbered node by node); 0 when none.
template <class T>
int full_block_size(const Csr<T>& a) {
  for (int b : {4, 3, 2})
    if (made_of_full_blocks(a, b)) return b;
  return 0;
}

}  // namespace spkit::detail
