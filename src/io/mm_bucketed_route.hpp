#pragma once
// The Matrix Market reader's route to CSR: a general coordinate file in random order is parsed straight
// into the row buckets of the COO -> CSR sort (src/formats/row_buckets.hpp); every other file goes the
// COO route and coo_to_csr.
#include <cstdint>
#include <string>
#include <string_view>

#include "io/mm_body.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit::io_detail {

// The body of `plan` (plan_body, no pass run yet) as CSR: symmetric expanded, duplicates summed in file
// order, columns sorted.
Csr<double> parse_body_csr(BodyPlan& plan, std::string_view text, const std::string& src, const ReadOptions& opts);

// What the bucketed route (load_matrix, parse_matrix_market_csr on a general file in random order) did
// since the process started, for tests: parses that took it, and parses that left it for the COO route
// after pass 2 placed other entries than pass 1 counted (a bug if ever non-zero: the two passes must tell
// lines apart the same way).
struct BucketRouteCounts {
  std::int64_t taken = 0, fell_back = 0;
};
BucketRouteCounts bucket_route_counts();

}  // namespace spkit::io_detail
