#pragma once
// Phase timings of the COO -> CSR conversion, for a diagnostic build only (shared by src/formats/csr.cpp
// and src/formats/row_buckets.cpp).
#include <chrono>
#include <cstdio>

namespace spkit::formats_detail {

// A diagnostic build (-DSPKIT_CONVERSION_TRACE) prints the time of each phase of the general path to
// stderr, to place the conversion's time on machines without a profiler; compiled out otherwise.
#ifdef SPKIT_CONVERSION_TRACE
constexpr bool kTraceConversion = true;
#else
constexpr bool kTraceConversion = false;
#endif

class PhaseClock {
 public:
  // Milliseconds since the last split or lap (or construction); 0, without reading a clock, in a normal build.
  double split() {
    if constexpr (kTraceConversion) {
      const auto now = std::chrono::steady_clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
      last_ = now;
      return ms;
    }
    return 0;
  }
  // The split printed under `phase`.
  void lap(const char* phase) {
    if constexpr (kTraceConversion) std::fprintf(stderr, "coo_to_csr %-34s %8.2f ms\n", phase, split());
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace spkit::formats_detail
