#include "spkit/harness/bandwidth.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "platform/memory.hpp"

namespace spkit::harness {

namespace {

std::uint64_t parse_cache_size(const std::string& text) {  // sysfs: "480M", "2048K"
  if (text.empty()) return 0;
  std::uint64_t v = std::stoull(text);
  const char unit = text.find_first_not_of("0123456789") != std::string::npos
                        ? text[text.find_first_not_of("0123456789")] : ' ';
  if (unit == 'K') v <<= 10;
  if (unit == 'M') v <<= 20;
  if (unit == 'G') v <<= 30;
  return v;
}

StreamFigure figure(std::vector<double> seconds, double bytes) {
  std::sort(seconds.begin(), seconds.end());
  StreamFigure f;
  if (seconds.empty()) return f;
  f.best_gbs = bytes / seconds.front() * 1e-9;
  const std::size_t h = seconds.size() / 2;
  const double med = seconds.size() % 2 ? seconds[h] : 0.5 * (seconds[h - 1] + seconds[h]);
  f.median_gbs = bytes / med * 1e-9;
  return f;
}

}  // namespace

std::uint64_t last_level_cache_bytes() {
  std::uint64_t best = 0;
  int best_level = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_in(dir + "level"), size_in(dir + "size"), type_in(dir + "type");
    if (!level_in || !size_in) break;
    int level = 0;
    std::string size, type;
    level_in >> level;
    size_in >> size;
    type_in >> type;
    if (type == "Instruction") continue;
    if (level >= best_level) best_level = level, best = parse_cache_size(size);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) best = static_cast<std::uint64_t>(l3);
  }
#endif
  return best;
}

CpuBandwidth measure_cpu_bandwidth(const CpuBandwidthOptions& opts) {
  if (opts.reps < 1) throw Error("bandwidth: reps must be at least 1");
  if (opts.threads < 0) throw Error("bandwidth: threads must be at least 1 (or 0 for all)");
  CpuBandwidth out;
  out.llc_bytes = last_level_cache_bytes();
  out.threads = opts.threads > 0 ? opts.threads : omp_get_max_threads();
  std::uint64_t bytes = opts.array_bytes;
  if (bytes == 0) {
    bytes = std::max<std::uint64_t>(4 * out.llc_bytes, std::uint64_t(1) << 30);
    const std::uint64_t avail = available_memory_bytes();
    if (avail > 0) bytes = std::min(bytes, avail / 8);  // three arrays, with room to spare
  }
  const std::int64_t n = static_cast<std::int64_t>(bytes / sizeof(double));
  if (n < 1024) throw Error("bandwidth: arrays of " + std::to_string(bytes) + " bytes are too small to measure");
  out.array_bytes = static_cast<std::uint64_t>(n) * sizeof(double);

  // Uninitialised on purpose: the first touch below, by the same static schedule as the kernels,
  // places each page on the NUMA node of the thread that streams it.
  std::unique_ptr<double[]> a(new double[static_cast<std::size_t>(n)]);
  std::unique_ptr<double[]> b(new double[static_cast<std::size_t>(n)]);
  std::unique_ptr<double[]> c(new double[static_cast<std::size_t>(n)]);
  double* pa = a.get();
  double* pb = b.get();
  double* pc = c.get();
  const int th = out.threads;
#pragma omp parallel for schedule(static) num_threads(th)
  for (std::int64_t i = 0; i < n; ++i) {
    pa[i] = 1.0;
    pb[i] = 2.0;
    pc[i] = 0.5;
  }

  const double scalar = 3.0;
  volatile double sink = 0;
  std::vector<double> t_copy, t_triad, t_read;
  for (int rep = 0; rep <= opts.reps; ++rep) {  // rep 0 is the untimed warm-up
    double t0 = omp_get_wtime();
#pragma omp parallel for simd schedule(static) num_threads(th)
    for (std::int64_t i = 0; i < n; ++i) pb[i] = pa[i];
    double t1 = omp_get_wtime();
#pragma omp parallel for simd schedule(static) num_threads(th)
    for (std::int64_t i = 0; i < n; ++i) pa[i] = pb[i] + scalar * pc[i];
    double t2 = omp_get_wtime();
    double sum = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : sum) num_threads(th)
    for (std::int64_t i = 0; i < n; ++i) sum += pa[i];
    double t3 = omp_get_wtime();
    sink = sink + sum;
    if (rep == 0) continue;
    t_copy.push_back(t1 - t0);
    t_triad.push_back(t2 - t1);
    t_read.push_back(t3 - t2);
  }
  (void)sink;
  const double elem = static_cast<double>(n) * sizeof(double);
  out.copy = figure(t_copy, 2 * elem);
  out.triad = figure(t_triad, 3 * elem);
  out.read = figure(t_read, elem);
  return out;
}

}  // namespace spkit::harness
