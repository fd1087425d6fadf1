#pragma once
// The row-bucket sort behind COO -> CSR (src/formats/csr.cpp) and behind the Matrix Market reader's
// bucketed route (src/io/mm_bucketed_route.cpp), which places entries into the buckets while parsing.
// Pass A distributes entries into buckets of 2^shift consecutive rows (stably); pass B sorts each bucket
// by row, each row by column, and sums duplicates in input order.
#include <cstdint>
#include <vector>

#include "spkit/formats/coo.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit::formats_detail {

// Bucket b holds rows [b << shift, (b + 1) << shift); a packed entry is the key
// (row - (b << shift)) << col_bits | column and its value.
struct BucketLayout {
  int shift = 0, col_bits = 0;
  std::int64_t buckets = 0;
};
// The conversion's layout for a rows x cols matrix; false when a key would not fit 32 bits.
bool packed_bucket_layout(std::int64_t rows, std::int64_t cols, BucketLayout& out);

// Both passes over COO entries in any order (64-bit offsets; the same result for any thread count).
// With `consumable` (coo itself, no longer read), its column and value arrays take the output.
template <class T>
Csr<T> bucket_sort_to_csr(const Coo<T>& coo, bool sum_duplicates, int threads, Coo<T>* consumable);

// Pass B over row buckets a parser placed in csr's own arrays: csr.col_idx[bucket_start[b],
// bucket_start[b + 1]) holds bucket b's keys ((row - (b << shift)) << col_bits | column, as 32-bit
// patterns) in input order and csr.values their values. Sets row_ptr; columns end sorted, duplicates
// summed in input order, as coo_to_csr gives from the same entries in that order.
void sort_buckets_in_place(Csr<double>& csr, const BucketLayout& layout, const std::vector<std::int64_t>& bucket_start,
                           int threads);

}  // namespace spkit::formats_detail
