// The generator's option checks (see option_checks.hpp).
#include "gen/option_checks.hpp"

#include <algorithm>
#include <initializer_list>
#include <iomanip>
#include <sstream>
#include <string>

#include "spkit/error.hpp"
#include "platform/memory.hpp"

namespace spkit::gen_detail {

[[noreturn]] void bad_option(const std::string& family, const std::string& what) {
  throw Error("gen " + family + ": " + what);
}

// Multiplies with an overflow check against the 32-bit index limit.
std::int64_t checked_dim(const std::string& family, std::int64_t n, int power, std::int64_t factor) {
  long double v = static_cast<long double>(factor);
  for (int p = 0; p < power; ++p) v *= static_cast<long double>(n);
  if (v > static_cast<long double>(kMaxIndex)) {
    std::ostringstream rows;
    if (v < 1e18L)
      rows << static_cast<long long>(v);
    else
      rows << "about " << std::setprecision(3) << static_cast<double>(v);
    throw Error("gen " + family + ": n = " + std::to_string(n) + " gives " + rows.str() +
                " rows, more than 2^31-1 (the limit of 32-bit column indices); choose a smaller --n");
  }
  std::int64_t r = factor;
  for (int p = 0; p < power; ++p) r *= n;
  return r;
}

void check_rows(const std::string& family, double rows) {
  if (rows > static_cast<double>(kMaxIndex))
    bad_option(family, "the options give about " + std::to_string(static_cast<long long>(std::min(rows, 9e18))) +
                           " rows, more than 2^31-1 (the limit of 32-bit column indices); choose a smaller --n");
}

void check_memory(const std::string& family, double bytes) {
  const std::uint64_t available = available_memory_bytes();
  if (bytes > static_cast<double>(available))
    throw TooLarge("gen " + family + ": needs about " + std::to_string(static_cast<long long>(std::min(bytes, 9e18)) >> 20) +
                       " MiB, more than the " + std::to_string(available >> 20) + " MiB available",
                   static_cast<std::uint64_t>(std::min(bytes, 1.8e19)));
}

int dims_or(const GenOptions& o, int fallback) {
  const int d = o.dims == 0 ? fallback : o.dims;
  if (d != 2 && d != 3) bad_option(o.family, "--dims must be 2 or 3 (got " + std::to_string(o.dims) + ")");
  return d;
}

std::string ordering_or(const GenOptions& o, const char* fallback, std::initializer_list<const char*> allowed) {
  const std::string ord = o.ordering.empty() ? fallback : o.ordering;
  std::string list;
  for (const char* a : allowed) {
    if (ord == a) return ord;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  bad_option(o.family, "--ordering must be one of " + list + " (got '" + ord + "')");
}

}  // namespace spkit::gen_detail
