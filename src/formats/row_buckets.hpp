#pragma once
// Internal: entries distributed into buckets of consecutive rows, the middle state of COO->CSR
// (src/formats/csr.cpp). The Matrix Market reader fills it straight from the text when a file's
// entries are not in row order (src/io/matrix_market.cpp), so that no COO is built first.
#include <cstdint>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit::detail {

// At most this many buckets: every bucket's write cursor stays in cache while entries are distributed.
constexpr std::int64_t kMaxRowBuckets = 2048;

inline int row_bucket_shift(std::int64_t rows) {
  int shift = 0;
  while ((rows >> shift) > kMaxRowBuckets) ++shift;
  return shift;
}

inline int column_bits(std::int64_t cols) {
  int bits = 0;
  while (bits < 31 && (std::int64_t{1} << bits) < cols) ++bits;
  return bits;
}

// Bucket b holds rows [b << shift, (b + 1) << shift). Its entries, in input order, are
// [bucket_start[b], bucket_start[b + 1]) of `keys` and `values`; a key holds
// (row - (b << shift)) << col_bits | col as unsigned 32-bit bits, so shift + col_bits <= 32.
template <class T>
struct RowBuckets {
  std::int64_t rows = 0, cols = 0;
  int shift = 0, col_bits = 0;
  std::vector<std::int32_t> keys;
  std::vector<T> values;
  std::vector<std::int64_t> bucket_start;  // (rows >> shift) + 2 entries
};

// Sorts every bucket by (row, column) in place, sums duplicates in input order, and returns the CSR,
// which takes over `keys` (as col_idx) and `values`. The result does not depend on the thread count.
template <class T>
Csr<T> csr_from_row_buckets(RowBuckets<T>&& buckets, bool sum_duplicates = true);

}  // namespace spkit::detail
