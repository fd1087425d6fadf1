#include "spkit/precision.hpp"

#include <cctype>
#include <string>

#include "spkit/error.hpp"

namespace spkit {

std::string_view to_string(Precision p) { return p == Precision::f32 ? "float" : "double"; }

Precision parse_precision(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "float" || s == "f32" || s == "fp32" || s == "single") return Precision::f32;
  if (s == "double" || s == "f64" || s == "fp64") return Precision::f64;
  throw Error("unknown precision '" + std::string(text) + "' (use float, double or both; also f32/fp32/single, f64/fp64)");
}

std::vector<Precision> parse_precisions(std::string_view text) {
  if (text == "both" || text == "all") return {Precision::f64, Precision::f32};
  std::vector<Precision> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    if (!item.empty()) {
      const Precision p = parse_precision(item);
      bool seen = false;
      for (Precision q : out) seen = seen || q == p;
      if (!seen) out.push_back(p);
    }
    start = end + 1;
  }
  if (out.empty()) throw Error("the precision list is empty (use float, double or both)");
  return out;
}

}  // namespace spkit
