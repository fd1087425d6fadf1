#pragma once
// Host memory bandwidth, STREAM-style, over arrays far larger than the last-level cache: what a
// memory-bound SpMV can hope for. GB/s count bytes read plus bytes written (no write-allocate
// traffic): copy b = a moves 16 B per element, triad a = b + s c 24 B, the read-only sum 8 B.
#include <cstdint>

namespace spkit::harness {

struct CpuBandwidthOptions {
  std::uint64_t array_bytes = 0;  // bytes per array; 0: max(4 x LLC, 1 GiB), capped at 1/8 of free memory
  int threads = 0;                // OpenMP threads; 0: omp_get_max_threads()
  int reps = 10;                  // timed repetitions per kernel (after one untimed warm-up)
};

struct StreamFigure {
  double best_gbs = 0;    // fastest repetition (STREAM's convention)
  double median_gbs = 0;  // median repetition
};

struct CpuBandwidth {
  StreamFigure copy, triad, read;
  std::uint64_t array_bytes = 0;  // per array
  std::uint64_t llc_bytes = 0;    // last-level cache size the default was derived from (0: unknown)
  int threads = 0;
};

// Last-level cache size in bytes as the OS reports it (sysfs / sysconf); 0 when unknown.
std::uint64_t last_level_cache_bytes();

// Runs copy, triad and the read-only sum with OpenMP, arrays first-touched by the threads that use
// them (static schedule), and reports each kernel's bandwidth. Throws spkit::Error on bad options.
CpuBandwidth measure_cpu_bandwidth(const CpuBandwidthOptions& opts = {});

}  // namespace spkit::harness
