// The copy-bandwidth sweep over working sets and the out-of-cache decision (cache_sweep.hpp).
#include "spkit/harness/cache_sweep.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "spkit/error.hpp"
#include "platform/memory.hpp"
#include "tuning.hpp"

namespace spkit::harness {

namespace {

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

// Best-of copy bandwidth of b = a over the first `array_bytes` of two arrays (allocated and first-touched
// once, at the largest size, by the same static schedule as the copy).
double copy_gbs(double* a, double* b, std::uint64_t array_bytes, int threads) {
  const auto n = static_cast<std::int64_t>(array_bytes / sizeof(double));
  // Small sets repeat until ~128 MiB have moved (timer resolution, warm caches); large ones twice.
  const std::uint64_t moved = 2 * array_bytes;
  const int reps = static_cast<int>(std::max<std::uint64_t>(2, (std::uint64_t(128) << 20) / moved));
  double best = 0;
  for (int r = 0; r <= reps; ++r) {  // r == 0: the untimed warm-up
    const double t0 = omp_get_wtime();
#pragma omp parallel for simd schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < n; ++i) b[i] = a[i];
    const double s = omp_get_wtime() - t0;
    if (r > 0 && s > 0) best = std::max(best, static_cast<double>(moved) / s * 1e-9);
  }
  // Keep the copies observable, so the loops are not optimised away.
  volatile double sink = b[n / 2];
  (void)sink;
  return best;
}

}  // namespace

std::string CacheSweep::summary() const {
  if (!measured()) return "bandwidth sweep: not measured";
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "bandwidth sweep (copy, %d thread%s, %s-%s): within %.0f%% of the %.1f GB/s plateau from a %s "
                "working set%s",
                threads, threads == 1 ? "" : "s", points.empty() ? "?" : mib(points.front().working_set_bytes).c_str(),
                points.empty() ? "?" : mib(points.back().working_set_bytes).c_str(), 100 * tolerance, plateau_gbs,
                mib(out_of_cache_bytes).c_str(), flattened ? "" : " (the largest: no plateau reached)");
  return buf;
}

CacheSweep decide_out_of_cache(std::vector<BandwidthPoint> points, double tolerance) {
  CacheSweep s;
  s.tolerance = tolerance;
  std::sort(points.begin(), points.end(),
            [](const BandwidthPoint& a, const BandwidthPoint& b) { return a.working_set_bytes < b.working_set_bytes; });
  s.points = points;
  if (points.empty()) return s;
  s.plateau_gbs = points.back().gbs;
  s.out_of_cache_bytes = points.back().working_set_bytes;
  if (points.size() < 2) return s;
  // The lower of the two largest sizes: a disturbed fast reading at the very end cannot lift the ceiling
  // (a disturbed slow one only moves the decision to a larger, safer size).
  s.plateau_gbs = std::min(s.plateau_gbs, points[points.size() - 2].gbs);
  const double ceiling = (1 + tolerance) * s.plateau_gbs;
  // Walk down from the largest size while the points stay under the ceiling; the last one reached is
  // where the plateau starts.
  std::size_t first = points.size() - 1;
  while (first > 0 && points[first - 1].gbs <= ceiling) --first;
  s.out_of_cache_bytes = points[first].working_set_bytes;
  s.flattened = first + 1 < points.size();
  return s;
}

CacheSweep measure_cache_sweep(const CacheSweepOptions& opts) {
  const std::uint64_t min_bytes = opts.min_bytes ? opts.min_bytes : tuning::kSweepMinBytes;
  std::uint64_t max_bytes = opts.max_bytes ? opts.max_bytes : tuning::kSweepMaxBytes;
  const std::uint64_t avail = available_memory_bytes();
  if (avail > 0) max_bytes = std::min(max_bytes, avail / 8);
  if (min_bytes < 4096 || max_bytes < min_bytes)
    throw Error("bandwidth sweep: working sets from " + std::to_string(min_bytes) + " to " +
                std::to_string(max_bytes) + " bytes cannot be measured");
  if (opts.threads < 0) throw Error("bandwidth sweep: threads must be at least 1 (or 0 for all)");
  const int threads = opts.threads > 0 ? opts.threads : 1;
  const double t0 = omp_get_wtime();
  std::vector<BandwidthPoint> points;
  for (std::uint64_t ws = min_bytes; ws <= max_bytes; ws *= 2) points.push_back({ws, 0.0});
  const std::uint64_t largest = points.back().working_set_bytes / 2;
  const auto n = static_cast<std::size_t>(largest / sizeof(double));
  std::unique_ptr<double[]> a(new double[n]);
  std::unique_ptr<double[]> b(new double[n]);
  double* pa = a.get();
  double* pb = b.get();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(n); ++i) pa[i] = 1.0, pb[i] = 0.0;
  // Two passes over the sizes, best of both per size: a burst of other work on the machine spoils one
  // pass at one size, rarely both.
  for (int pass = 0; pass < 2; ++pass)
    for (auto& p : points) p.gbs = std::max(p.gbs, copy_gbs(pa, pb, p.working_set_bytes / 2, threads));
  CacheSweep s = decide_out_of_cache(std::move(points), opts.tolerance > 0 ? opts.tolerance : tuning::kSweepPlateauTolerance);
  s.threads = threads;
  s.seconds = omp_get_wtime() - t0;
  return s;
}

}  // namespace spkit::harness
