#pragma once
// A Matrix Market body read in parallel: cut into chunks at line boundaries (plan_body), pass 1 gives
// every chunk its first line number and its slots (count_lines), pass 2 parses every chunk into its
// slots, and check_chunks reports the first error in file order. parse_body_coo is the COO route;
// src/io/mm_bucketed_route.cpp is the other one.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/mm_chunk.hpp"
#include "io/mm_header.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit::io_detail {

// The body cut into chunks at line boundaries; pass 1 (count_lines, or the row count of the bucketed
// route) gives each its first line number and its slot range.
struct BodyPlan {
  ParsedHeader ph;
  int threads = 1;
  std::int64_t declared = 0, declared_bound = 0, total_capacity = 0, end_line = 0;
  std::vector<Chunk> chunks;
};

// The header parsed and the body cut into chunks (no pass run yet).
BodyPlan plan_body(std::string_view text, const std::string& src, const ReadOptions& opts);
// After pass 1 (every chunk's newlines): each chunk's first line number and its slot range.
void assign_slots(BodyPlan& plan, std::string_view text);
// Pass 1 on its own: newlines per chunk, then line numbers and slot ranges.
void count_lines(BodyPlan& plan, std::string_view text);
// After pass 2: the first error in file order, else a count that differs from the size line's, throws.
// Returns the entries found.
std::int64_t check_chunks(const BodyPlan& plan, std::string_view text, const std::string& src);
// Pass 2 into COO arrays (after count_lines), then the gaps closed, array files given their indices,
// symmetry expanded when asked.
MmMatrix parse_body_coo(BodyPlan& plan, std::string_view text, const std::string& src, const ReadOptions& opts);

}  // namespace spkit::io_detail
