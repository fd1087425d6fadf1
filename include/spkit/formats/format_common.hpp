#pragma once
#include <cstdint>
#include <string_view>

namespace spkit {

// Where the elements of a padded block sit: row-major (element k of row i at i*width + k) or
// column-major (at k*rows + i, coalesced when one GPU thread handles one row).
enum class Layout { row_major, col_major };

// Limits a conversion must respect. A conversion whose result would exceed the budget throws
// spkit::TooLarge naming the bytes it would need, before allocating anything.
struct FormatLimits {
  std::uint64_t memory_budget_bytes = 0;  // 0: the memory available on this machine now
};

// MemAvailable from /proc/meminfo (else sysconf's available, else total physical pages).
std::uint64_t available_memory_bytes();
// MemTotal from /proc/meminfo (else sysconf's physical pages).
std::uint64_t total_memory_bytes();
// The bytes of one "Key:  value [kB]" line of /proc/meminfo text; 0 when the key is missing or malformed.
std::uint64_t meminfo_bytes(std::string_view meminfo, std::string_view key);
// Resolves 0 to available_memory_bytes().
std::uint64_t effective_budget(const FormatLimits& limits);

}  // namespace spkit
