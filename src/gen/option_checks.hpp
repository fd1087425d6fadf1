#pragma once
// The generator's option checks, shared by the families: each throws spkit::Error naming the option
// (or spkit::TooLarge), before anything large is allocated.
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

#include "spkit/gen.hpp"

namespace spkit::gen_detail {

constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();

[[noreturn]] void bad_option(const std::string& family, const std::string& what);
// factor * n^power rows, checked against the 32-bit index limit.
std::int64_t checked_dim(const std::string& family, std::int64_t n, int power, std::int64_t factor = 1);
// Throws when about `rows` rows would not fit in 32-bit column indices.
void check_rows(const std::string& family, double rows);
// Throws spkit::TooLarge when `bytes` exceed the available memory.
void check_memory(const std::string& family, double bytes);
// --dims resolved (0: `fallback`) and checked to be 2 or 3.
int dims_or(const GenOptions& o, int fallback);
// --ordering resolved (empty: `fallback`) and checked to be one of `allowed`.
std::string ordering_or(const GenOptions& o, const char* fallback, std::initializer_list<const char*> allowed);

}  // namespace spkit::gen_detail
