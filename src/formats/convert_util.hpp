#pragma once
// Private helpers shared by the CSR <-> padded-format conversions: overflow-safe byte arithmetic,
// the memory-budget check (done before anything is allocated) and a parallel prefix sum.
#include <omp.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/formats/format_common.hpp"

namespace spkit::detail {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// a * b and a + b in 64 bits, saturating instead of wrapping (a saturated size is always "too large").
inline std::uint64_t mul_sat(std::uint64_t a, std::uint64_t b) {
  unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return p > kSaturated ? kSaturated : static_cast<std::uint64_t>(p);
}
inline std::uint64_t add_sat(std::uint64_t a, std::uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }

// Throws TooLarge naming the bytes `what` would need when that exceeds the budget.
inline void check_budget(const std::string& what, std::uint64_t bytes, const FormatLimits& limits) {
  const std::uint64_t budget = effective_budget(limits);
  if (bytes > budget)
    throw TooLarge(what + " exceeds the memory budget of " + std::to_string(budget) + " bytes", bytes);
  // std::vector sizes are size_t: make sure nothing downstream can wrap.
  if (bytes > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max()))
    throw TooLarge(what + " is larger than this machine can address", bytes);
}

// In-place exclusive prefix sum of v (v[i] becomes the sum of v[0..i-1]); returns the total.
// Two passes over per-thread blocks, so it runs in parallel for large arrays.
template <class I>
I exclusive_scan_inplace(std::vector<I>& v) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  if (n < (1 << 16)) {
    I run = 0;
    for (auto& e : v) { I t = e; e = run; run += t; }
    return run;
  }
  std::vector<I> block_sum(static_cast<std::size_t>(omp_get_max_threads()) + 1, 0);
  int team = 1;
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), p = omp_get_num_threads();
    const std::int64_t b = n * t / p, e = n * (t + 1) / p;
    I s = 0;
    for (std::int64_t i = b; i < e; ++i) s += v[i];
    block_sum[t + 1] = s;
#pragma omp barrier
#pragma omp single
    {
      team = p;
      for (int k = 0; k < p; ++k) block_sum[k + 1] += block_sum[k];
    }
    I run = block_sum[t];
    for (std::int64_t i = b; i < e; ++i) { I tmp = v[i]; v[i] = run; run += tmp; }
  }
  return block_sum[static_cast<std::size_t>(team)];
}

// Row count of a CSR that may be default-constructed (empty row_ptr).
template <class Csr>
std::int64_t safe_rows(const Csr& a) { return a.row_ptr.empty() ? 0 : a.rows; }

// The CSR skeleton of a padded format's way back: dimensions, row_ptr from the stored row lengths,
// col_idx/values sized for the true non-zeros (the caller copies them out of its layout).
template <class T>
Csr<T> csr_from_row_lengths(std::int64_t rows, std::int64_t cols, const std::vector<std::int32_t>& row_length) {
  Csr<T> csr;
  csr.rows = rows;
  csr.cols = cols;
  csr.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (std::int64_t i = 0; i < rows; ++i) csr.row_ptr[i] = row_length[i];
  const std::int64_t nnz = exclusive_scan_inplace(csr.row_ptr);
  csr.col_idx.resize(static_cast<std::size_t>(nnz));
  csr.values.resize(static_cast<std::size_t>(nnz));
  return csr;
}

}  // namespace spkit::detail
