#pragma once
// This machine's memory, as the kernel reports it (/proc/meminfo): what conversions, generators and
// benchmarks may use without swapping.
#include <cstdint>
#include <string_view>

namespace spkit {

// MemAvailable from /proc/meminfo (else sysconf's available, else total physical pages).
std::uint64_t available_memory_bytes();
// MemTotal from /proc/meminfo (else sysconf's physical pages).
std::uint64_t total_memory_bytes();
// The bytes of one "Key:  value [kB]" line of /proc/meminfo text; 0 when the key is missing or malformed.
std::uint64_t meminfo_bytes(std::string_view meminfo, std::string_view key);

}  // namespace spkit
