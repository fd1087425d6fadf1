#pragma once
// The value type of a product, named once: what the CLI's --precision and Python's precision= accept
// and how results print it.
#include <string_view>
#include <vector>

namespace spkit {

enum class Precision { f32, f64 };

template <class T>
constexpr Precision precision_of() { return sizeof(T) == 4 ? Precision::f32 : Precision::f64; }

// "float" / "double": the spelling of results (tables, CSV, JSON).
std::string_view to_string(Precision p);
// One precision: float, f32, fp32, single, or double, f64, fp64 (any case). Throws spkit::Error naming the
// accepted spellings.
Precision parse_precision(std::string_view text);
// A comma-separated list of precisions, or "both" / "all" (double, then float). Throws spkit::Error on an
// empty list or an unknown name.
std::vector<Precision> parse_precisions(std::string_view text);

}  // namespace spkit
