#pragma once
// The two row accumulators of CPU Gustavson SpGEMM (src/spgemm/cpu/csr.cpp). Both offer
//   symbolic_row(a, b, i, products) the exact number of distinct columns of row i of C (two-pass route);
//   accumulate(a, b, i, products, distinct_bound)  row i of C summed into the accumulator; returns its
//                                  distinct columns, an upper bound of what emit writes (products: the
//                                  row's products; distinct_bound: its exact distinct columns when
//                                  known, else the products);
//   emit(out_col, out_val)         the accumulated row, columns ascending, exact zeros dropped; returns
//                                  the count written and leaves the accumulator empty.
// Every entry is summed as 0 + p1 + p2 + ... in A's then B's storage order, in both accumulators, so
// that they agree bit for bit.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "tuning.hpp"

namespace spkit::detail {

// Dense accumulator (a sparse accumulator in Gilbert, Moler and Schreiber's sense): value[k] for every
// column of B, kept at zero between rows, and a presence byte per column. The inner loop has no
// data-dependent branch: every product appends its column to the row's list and advances the list only
// when the column was absent. Bytes rather than bits: a bitmap's read-modify-write of one word per
// product chains consecutive columns through store forwarding (measured: the bitmap version spent most
// of its time there). A row comes out in column order by scanning the presence bytes between its lowest
// and highest column, 64 at a time, when that costs less than sorting the row's column list (dense
// bands: banded, FEM, 27-point), else by that sort (short rows spread over a few bands: road, 5- and
// 7-point stencils, whose scans crossed 12-100 mostly empty blocks for 5-24 entries). Where B's consecutive rows often hold the same
// columns (FEM's dof blocks), up to three entries of A reaching such rows are accumulated together.
template <class T>
class DenseAccumulator {
 public:
  static constexpr const char* kName = "dense accumulator";
  static std::uint64_t scratch_bytes(std::int64_t b_cols) {
    return static_cast<std::uint64_t>(b_cols) * (sizeof(T) + 1) + 64;
  }
  // calloc: the zeroed values come from fresh pages, so a thread pays only for the pages its rows
  // reach, not for a B.cols-long memset. The presence bytes get 64 of slack for the scan's last block.
  explicit DenseAccumulator(std::int64_t b_cols)
      : value_(static_cast<T*>(std::calloc(static_cast<std::size_t>(std::max<std::int64_t>(b_cols, 1)), sizeof(T)))),
        present_(static_cast<std::uint8_t*>(std::calloc(static_cast<std::size_t>(b_cols) + 64, 1))) {
    if (!value_ || !present_) throw TooLarge("SpGEMM dense accumulator", scratch_bytes(b_cols));
  }

  std::int64_t symbolic_row(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t products) {
    if (static_cast<std::int64_t>(cols_.size()) < products) cols_.resize(static_cast<std::size_t>(products));
    std::int32_t* cols = cols_.data();
    std::uint8_t* present = present_.get();
    std::int64_t n = 0;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        cols[n] = k;
        n += present[k] == 0;
        present[k] = 1;
      }
    }
    for (std::int64_t e = 0; e < n; ++e) present[cols[e]] = 0;
    return n;
  }

  std::int64_t accumulate(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t products,
                          std::int64_t /*distinct_bound*/) {
    if (static_cast<std::int64_t>(cols_.size()) < products) cols_.resize(static_cast<std::size_t>(products));
    if (!grouping_known_) grouping_ = rows_repeat(b), grouping_known_ = true;
    std::int32_t* cols = cols_.data();
    std::uint8_t* present = present_.get();
    T* value = value_.get();
    const std::int32_t* b_col = b.col_idx.data();
    const T* b_val = b.values.data();
    std::int64_t n = 0;
    if (!grouping_) {
      for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        const std::int32_t j = a.col_idx[p];
        const T aij = a.values[p];
        for (std::int64_t q = b.row_ptr[j], end = b.row_ptr[j + 1]; q < end; ++q) {
          const std::int32_t k = b_col[q];
          cols[n] = k;
          n += present[k] == 0;
          present[k] = 1;
          value[k] += aij * b_val[q];
        }
      }
      distinct_ = n;
      return n;
    }
    for (std::int64_t p = a.row_ptr[i], end_p = a.row_ptr[i + 1]; p < end_p;) {
      const std::int32_t j = a.col_idx[p];
      const std::int64_t first = b.row_ptr[j], length = b.row_ptr[j + 1] - first;
      // Up to three consecutive entries of A whose rows of B hold the same columns (the dof blocks of
      // FEM): one presence update and one load and store of each value for all of them. Each value
      // still receives its products in A's order, one addition at a time, as the ungrouped loop does.
      std::int64_t next[2] = {0, 0};
      int group = 1;
      while (group < 3 && p + group < end_p && same_columns(b, first, length, a.col_idx[p + group], next[group - 1]))
        ++group;
      if (group == 1) {
        n = scatter(b_col + first, b_val + first, length, a.values[p], cols, n);
        ++p;
        continue;
      }
      const std::int32_t* bc = b_col + first;
      const T* b0 = b_val + first;
      const T* b1 = b_val + next[0];
      const T* b2 = b_val + (group == 3 ? next[1] : next[0]);
      const T a0 = a.values[p], a1 = a.values[p + 1], a2 = group == 3 ? a.values[p + 2] : T(0);
      for (std::int64_t q = 0; q < length; ++q) {
        const std::int32_t k = bc[q];
        cols[n] = k;
        n += present[k] == 0;
        present[k] = 1;
        T v = value[k];
        v += a0 * b0[q];
        v += a1 * b1[q];
        if (group == 3) v += a2 * b2[q];
        value[k] = v;
      }
      p += group;
    }
    distinct_ = n;
    return n;
  }

  std::int64_t emit(std::int32_t* out_col, T* out_val) {
    const std::int64_t n = distinct_;
    distinct_ = 0;
    if (n == 0) return 0;
    std::int32_t* cols = cols_.data();
    std::uint8_t* present = present_.get();
    std::int32_t lo = std::numeric_limits<std::int32_t>::max(), hi = 0;
    for (std::int64_t e = 0; e < n; ++e) lo = std::min(lo, cols[e]), hi = std::max(hi, cols[e]);
    std::int64_t out = 0;
    // Scan when its blocks cost no more than a sort's comparisons (n log2 n): short rows spread over
    // a few bands (road, the 5- and 7-point stencils) sort; dense bands (banded, FEM, 27-point) scan.
    const std::int64_t blocks = (static_cast<std::int64_t>(hi) - lo) / 64 + 1;
    const std::int64_t sort_steps = n * (64 - __builtin_clzll(static_cast<std::uint64_t>(n)));
    if (blocks * tuning::spgemm::kDenseScanBlockCost <= sort_steps) {
      for (std::int64_t base = lo; base <= hi; base += 64) {
        for (std::uint64_t mask = nonzero_bytes(present + base); mask; mask &= mask - 1)
          out = put(static_cast<std::int32_t>(base + __builtin_ctzll(mask)), out_col, out_val, out);
        std::memset(present + base, 0, 64);
      }
    } else {
      std::sort(cols, cols + n);
      for (std::int64_t e = 0; e < n; ++e) {
        out = put(cols[e], out_col, out_val, out);
        present[cols[e]] = 0;
      }
    }
    return out;
  }

 private:
  // Bit b set when byte b of the 64 at p is not zero.
  static std::uint64_t nonzero_bytes(const std::uint8_t* p) {
#if defined(__SSE2__)
    std::uint64_t mask = 0;
    for (int h = 0; h < 4; ++h) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * h));
      const auto zero = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
      mask |= static_cast<std::uint64_t>(~zero & 0xFFFFu) << (16 * h);
    }
    return mask;
#else
    std::uint64_t mask = 0;
    for (int e = 0; e < 64; ++e) mask |= static_cast<std::uint64_t>(p[e] != 0) << e;
    return mask;
#endif
  }
  // Adds aij times one row of B (columns bc, values bv) to the row; appends new columns to cols[n...].
  std::int64_t scatter(const std::int32_t* bc, const T* bv, std::int64_t length, T aij, std::int32_t* cols,
                       std::int64_t n) {
    std::uint8_t* present = present_.get();
    T* value = value_.get();
    for (std::int64_t q = 0; q < length; ++q) {
      const std::int32_t k = bc[q];
      cols[n] = k;
      n += present[k] == 0;
      present[k] = 1;
      value[k] += aij * bv[q];
    }
    return n;
  }
  // Whether row j of B holds the same columns as B's entries [first, first + length); sets row_first to
  // row j's first entry. Rows that differ usually differ in length or first column: a cheap refusal.
  static bool same_columns(const Csr<T>& b, std::int64_t first, std::int64_t length, std::int32_t j,
                           std::int64_t& row_first) {
    row_first = b.row_ptr[j];
    if (b.row_ptr[j + 1] - row_first != length || length == 0) return false;
    const std::int32_t* x = b.col_idx.data() + first;
    const std::int32_t* y = b.col_idx.data() + row_first;
    if (x[0] != y[0] || x[length - 1] != y[length - 1]) return false;
    return std::equal(x, x + length, y);
  }
  // Whether B's consecutive rows hold the same columns often enough to look for groups (checking costs
  // a few loads per entry of A: 5-10 % where no group exists), from up to 256 evenly spaced pairs.
  static bool rows_repeat(const Csr<T>& b) {
    const std::int64_t pairs = b.rows - 1;
    if (pairs < 1) return false;
    const std::int64_t samples = std::min<std::int64_t>(pairs, 256);
    std::int64_t same = 0, unused = 0;
    for (std::int64_t s = 0; s < samples; ++s) {
      const std::int64_t j = pairs * s / samples;
      same += same_columns(b, b.row_ptr[j], b.row_length(j), static_cast<std::int32_t>(j + 1), unused);
    }
    return static_cast<double>(same) >= tuning::spgemm::kDenseGroupMinShare * static_cast<double>(samples);
  }
  // Writes column k at out (kept only when its value is not an exact zero) and resets its value.
  std::int64_t put(std::int32_t k, std::int32_t* out_col, T* out_val, std::int64_t out) {
    const T v = value_[k];
    value_[k] = T(0);
    out_col[out] = k, out_val[out] = v;
    return out + (v != T(0));
  }
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<T[], Free> value_;
  std::unique_ptr<std::uint8_t[], Free> present_;
  std::vector<std::int32_t> cols_;  // the row's columns in first-touch order, room for every product
  std::int64_t distinct_ = 0;
  bool grouping_ = false, grouping_known_ = false;  // decided at the first row, from B
};

// Hash accumulator: linear probing on a power-of-two table of (column, value), at least twice the
// row's distinct columns (its products in the symbolic phase and the one-pass route, the exact count
// in the two-pass numeric phase): small and cache-resident however wide B is.
template <class T>
class HashAccumulator {
 public:
  static constexpr const char* kName = "hash accumulator";
  static std::uint64_t scratch_bytes(std::int64_t) { return 0; }  // grows with the widest row only
  explicit HashAccumulator(std::int64_t b_cols) : b_cols_(b_cols) {}

  std::int64_t symbolic_row(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t products) {
    const std::uint32_t mask = prepare(std::min(products, b_cols_));
    std::int64_t n = 0;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        for (std::uint32_t h = hash(k) & mask;; h = (h + 1) & mask) {
          if (key_[h] == k) break;
          if (key_[h] < 0) {
            key_[h] = k, used_.push_back(h), ++n;
            break;
          }
        }
      }
    }
    for (std::uint32_t h : used_) key_[h] = -1;
    used_.clear();
    return n;
  }

  std::int64_t accumulate(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t /*products*/,
                          std::int64_t distinct_bound) {
    const std::uint32_t mask = prepare(std::min(distinct_bound, b_cols_));
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      const T aij = a.values[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        std::uint32_t h = hash(k) & mask;
        while (key_[h] != k && key_[h] >= 0) h = (h + 1) & mask;
        if (key_[h] < 0) key_[h] = k, value_[h] = T(0), used_.push_back(h);
        value_[h] += aij * b.values[q];
      }
    }
    return static_cast<std::int64_t>(used_.size());
  }

  std::int64_t emit(std::int32_t* out_col, T* out_val) {
    // Sort the occupied slots by column, then emit the non-zero values.
    std::sort(used_.begin(), used_.end(), [&](std::uint32_t x, std::uint32_t y) { return key_[x] < key_[y]; });
    std::int64_t n = 0;
    for (std::uint32_t h : used_) {
      if (value_[h] != T(0)) out_col[n] = key_[h], out_val[n] = value_[h], ++n;
      key_[h] = -1;
    }
    used_.clear();
    return n;
  }

 private:
  // Multiplicative (Fibonacci) hashing: consecutive columns spread over the table.
  static std::uint32_t hash(std::int32_t k) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ull) >> 32);
  }
  // Table of at least 2 * distinct entries, a power of two; returns the mask. Only grows.
  std::uint32_t prepare(std::int64_t distinct) {
    std::size_t size = 16;
    while (size < static_cast<std::size_t>(2 * distinct)) size *= 2;
    if (key_.size() < size) key_.assign(size, -1), value_.resize(size);
    return static_cast<std::uint32_t>(size - 1);
  }
  std::int64_t b_cols_;
  std::vector<std::int32_t> key_;
  std::vector<T> value_;
  std::vector<std::uint32_t> used_;
};

}  // namespace spkit::detail
