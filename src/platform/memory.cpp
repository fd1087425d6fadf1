#include "platform/memory.hpp"

#include <unistd.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace spkit {

std::uint64_t meminfo_bytes(std::string_view meminfo, std::string_view key) {
  // Line by line, numbers through from_chars: no stream state to lose on a line without a unit
  // ("HugePages_Total:  0") and nothing that depends on the process's C++ locale.
  std::size_t pos = 0;
  while (pos < meminfo.size()) {
    std::size_t eol = meminfo.find('\n', pos);
    if (eol == std::string_view::npos) eol = meminfo.size();
    const std::string_view line = meminfo.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') continue;
    std::size_t i = key.size() + 1;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(line.data() + i, line.data() + line.size(), value);
    if (ec != std::errc()) return 0;
    const std::string_view unit = line.substr(static_cast<std::size_t>(end - line.data()));
    return unit.find("kB") != std::string_view::npos ? value * 1024 : value;
  }
  return 0;
}

namespace {
std::string read_meminfo() {
  std::ifstream in("/proc/meminfo");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::uint64_t sysconf_bytes(int name) {
  const long pages = sysconf(name), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}
}  // namespace

std::uint64_t available_memory_bytes() {
  if (const std::uint64_t v = meminfo_bytes(read_meminfo(), "MemAvailable")) return v;
  if (const std::uint64_t v = sysconf_bytes(_SC_AVPHYS_PAGES)) return v;
  return sysconf_bytes(_SC_PHYS_PAGES);
}

std::uint64_t total_memory_bytes() {
  if (const std::uint64_t v = meminfo_bytes(read_meminfo(), "MemTotal")) return v;
  return sysconf_bytes(_SC_PHYS_PAGES);
}

}  // namespace spkit
