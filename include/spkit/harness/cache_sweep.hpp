#pragma once
// Where the caches end, measured rather than read: copy bandwidth against the working set (1 MiB ...
// 1 GiB, doubling), as the empirical roofline tools sweep it. Past some size every larger working set
// streams at the memory's speed (the plateau); that size, not the cache size a virtual machine's sysfs
// reports, is where a benchmark matrix becomes "out of cache". The bench sizes its headline matrices
// past it and records the sweep in results.json (machine.cache_sweep).
#include <cstdint>
#include <string>
#include <vector>

namespace spkit::harness {

struct BandwidthPoint {
  std::uint64_t working_set_bytes = 0;  // both copy arrays together
  double gbs = 0;                       // best repetition, bytes read + written per second
};

struct CacheSweep {
  std::vector<BandwidthPoint> points;    // ascending working sets
  double plateau_gbs = 0;                // the lower bandwidth of the two largest working sets
  double tolerance = 0;                  // "within" the plateau: at most (1 + tolerance) x plateau_gbs
  std::uint64_t out_of_cache_bytes = 0;  // the first working set from which all larger ones are within
  bool flattened = false;                // false: still falling at the largest size (out_of_cache_bytes = it)
  int threads = 0;
  double seconds = 0;                    // what the sweep took
  bool measured() const { return out_of_cache_bytes > 0; }
  // A curve flat from its smallest working set shows no cache at all, which no machine has: the
  // measurement was disturbed (a busy machine) and says nothing about where the caches end.
  bool saw_caches() const { return points.size() > 1 && out_of_cache_bytes > points.front().working_set_bytes; }
  // The cache size the sweep implies under the bench's rule that a working set of at least 4x the
  // cache is out of it: out_of_cache_bytes / 4 (0 when not measured).
  std::uint64_t effective_cache_bytes() const { return out_of_cache_bytes / 4; }
  // One line for logs and the report: where the plateau starts and how it was decided.
  std::string summary() const;
};

// The decision alone (deterministic, for tests): sorts the points, takes the lower bandwidth of the two
// largest working sets as the plateau and returns the first working set from which no point exceeds
// (1 + tolerance) x plateau. Fewer than two points: out_of_cache_bytes is the largest (or 0), not
// flattened.
CacheSweep decide_out_of_cache(std::vector<BandwidthPoint> points, double tolerance);

struct CacheSweepOptions {
  std::uint64_t min_bytes = 0;  // 0: tuning's defaults (1 MiB ... 1 GiB)
  std::uint64_t max_bytes = 0;  // capped at 1/8 of the available memory
  // OpenMP threads; 0: one. One thread sees the same knee (the caches it can fill are the machine's
  // last level, plus its own private ones), and a lone thread is the least disturbed by a busy machine:
  // a parallel copy waits at every barrier for its slowest thread (on the 2-core dev box under load,
  // two threads measured 1 GB/s in L3, one thread 30).
  int threads = 0;
  double tolerance = 0;         // 0: tuning's default (15%)
};

// Runs the sweep (a second or two: each size is copied until ~128 MiB have moved, in two passes, best of
// all) and decides. Throws spkit::Error on bad options.
CacheSweep measure_cache_sweep(const CacheSweepOptions& opts = {});

}  // namespace spkit::harness
