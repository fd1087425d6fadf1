#pragma once
#include <cstdint>

namespace spkit {

// Where the elements of a padded block sit: row-major (element k of row i at i*width + k) or
// column-major (at k*rows + i, coalesced when one GPU thread handles one row).
enum class Layout { row_major, col_major };

// Limits a conversion must respect. A conversion whose result would exceed the budget throws
// spkit::TooLarge naming the bytes it would need, before allocating anything.
struct FormatLimits {
  std::uint64_t memory_budget_bytes = 0;  // 0: the memory available on this machine now
};

// Resolves 0 to the memory available on this machine now (/proc/meminfo's MemAvailable).
std::uint64_t effective_budget(const FormatLimits& limits);

}  // namespace spkit
