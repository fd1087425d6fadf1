// Name matching of the kernel registries (spkit/registry.hpp).
#include "spkit/registry.hpp"

namespace spkit {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative wildcard match with backtracking to the last '*'.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool matches_any(std::string_view patterns, std::string_view name) {
  std::size_t start = 0;
  while (start <= patterns.size()) {
    std::size_t end = patterns.find(',', start);
    if (end == std::string_view::npos) end = patterns.size();
    auto g = patterns.substr(start, end - start);
    if (!g.empty() && (g == "all" || glob_match(g, name))) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace spkit
