#pragma once
// Milliseconds as the selection's reason lines print them: "312 ms", "2.18 ms", "192.3 us".
#include <cstdio>
#include <string>

namespace spkit::select_detail {

inline std::string fmt_ms(double ms) {
  char buf[32];
  if (ms >= 100) std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  else if (ms >= 1) std::snprintf(buf, sizeof buf, "%.2f ms", ms);
  else std::snprintf(buf, sizeof buf, "%.1f us", ms * 1e3);
  return buf;
}

}  // namespace spkit::select_detail
