#include "spkit/formats/format_common.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

namespace spkit {

std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::uint64_t effective_budget(const FormatLimits& limits) {
  return limits.memory_budget_bytes ? limits.memory_budget_bytes : available_memory_bytes();
}

}  // namespace spkit
