// The auto-selector: every registry kernel of the requested backend that has a cost model is costed
// from the matrix's statistics (no kernel runs), and the one with the lowest
//   conversion time + expected products x predicted time of one product
// is picked. Kernel names appear nowhere here: adding a kernel with a cost model is all it takes.
//
// Predicted time of one product = bytes / (efficiency x copy bandwidth) + launch, all three from the
// kernel's CostModel (its own format's bytes; the efficiency it reaches on such a matrix, x gathers of
// scattered columns included, see cost::with_gathers in src/kernels/cost_model.hpp; fixed costs).
//  * copy bandwidth: GPU: the device's theoretical bandwidth (memory clock x bus width) scaled by the
//    copy/peak ratio measured on the H100, or the H100's copy figure when no device is known. CPU: a
//    fixed per-thread figure up to a cap, so that the choice is deterministic and costs no measurement.
//  * conversion: convert_bytes at a fixed rate per backend, measured once from plan times.
// The figures and where they were measured: src/tuning.hpp, "Auto-selection"; docs/perf/selector.md.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "spkit/config.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/select.hpp"
#include "select/format_ms.hpp"
#include "tuning.hpp"
#ifdef SPKIT_HAVE_CUDA
#include "select/gpu_peak_bandwidth.hpp"
#endif

namespace spkit {
namespace {

using tuning::kCpuConvertGBs;
using tuning::kCudaConvertGBs;

struct Bandwidth {
  double gbs = 0;
  std::string source;
};

Bandwidth cpu_bandwidth(int threads) {
  const double gbs = std::min(tuning::kCpuCopyGBsMax, tuning::kCpuCopyGBsPerThread * std::max(1, threads));
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.0f GB/s CPU copy (default for %d threads)", gbs, threads);
  return {gbs, buf};
}

// Read once per device and process (the attribute queries are cheap, but need an initialised runtime).
Bandwidth gpu_bandwidth(int device) {
  static std::mutex mutex;
  static std::vector<Bandwidth> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (device >= 0 && static_cast<std::size_t>(device) < cache.size() && cache[device].gbs > 0) return cache[device];
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.0f GB/s GPU copy (the H100's measurement; no device to scale it by)",
                tuning::kGpuDefaultCopyGBs);
  Bandwidth b{tuning::kGpuDefaultCopyGBs, buf};
#ifdef SPKIT_HAVE_CUDA
  if (device >= 0 && device < gpu_count()) {
    const double peak = select_detail::gpu_peak_memory_gbs(device);
    if (peak > 0) {
      std::snprintf(buf, sizeof buf, "%.0f GB/s GPU copy (%.0f GB/s peak of device %d x %.3f, as measured on the H100)",
                    peak * tuning::kGpuCopyOfPeak, peak, device, tuning::kGpuCopyOfPeak);
      b = {peak * tuning::kGpuCopyOfPeak, buf};
    }
  }
#endif
  if (device >= 0) {
    if (cache.size() <= static_cast<std::size_t>(device)) cache.resize(static_cast<std::size_t>(device) + 1);
    cache[device] = b;
  }
  return b;
}

using select_detail::fmt_ms;

struct Scored {
  KernelEstimate estimate;
  double total_ms = 0;
};

}  // namespace

Selection select_kernel(const MatrixStats& stats, const PlanSettings& settings, Precision precision) {
  if (settings.expected_products < 1) throw Error("select_kernel: expected_products must be >= 1");
  if (settings.threads < 0) throw Error("select_kernel: threads must be >= 0 (0: all the process may use)");
  const int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();
  const bool gpu = settings.backend == Backend::cuda;
  const Bandwidth bw = gpu ? gpu_bandwidth(settings.device) : cpu_bandwidth(threads);
  const double convert_gbs = gpu ? kCudaConvertGBs : kCpuConvertGBs;
  const double isolated = static_cast<double>(stats.bm_block_histogram[1]);  // for the reason line

  Selection sel;
  sel.options.threads = threads;
  sel.options.device = settings.device;
  sel.options.hack_size = stats.hack_size;
  sel.copy_gbs = bw.gbs;

  std::vector<Scored> ok, refused;
  int without_model = 0;
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != settings.backend || k.comparison) continue;
    if (!k.cost) {
      ++without_model;
      continue;
    }
    Scored s;
    s.estimate.kernel = k.name;
    CostEstimate e;
    try {
      e = k.cost(stats, precision, sel.options);
    } catch (const std::exception& ex) {
      e = CostEstimate{};
      e.note = std::string("cost model failed: ") + ex.what();
    }
    if (!e.applicable || !(e.efficiency > 0)) {
      s.estimate.note = "ruled out: " + (e.note.empty() ? std::string("not applicable") : e.note);
      refused.push_back(std::move(s));
      continue;
    }
    s.estimate.applicable = true;
    s.estimate.spmv_ms = static_cast<double>(e.bytes) / (e.efficiency * bw.gbs * 1e9) * 1e3 + e.launch_us * 1e-3;
    s.estimate.convert_ms = static_cast<double>(e.convert_bytes) / (convert_gbs * 1e9) * 1e3;
    s.total_ms = s.estimate.convert_ms + static_cast<double>(settings.expected_products) * s.estimate.spmv_ms;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.1f MB at %.0f%% of copy, conversion %s%s%s",
                  static_cast<double>(e.bytes) / 1e6, e.efficiency * 100, fmt_ms(s.estimate.convert_ms).c_str(),
                  e.note.empty() ? "" : "; ", e.note.c_str());
    s.estimate.note = buf;
    ok.push_back(std::move(s));
  }
  if (ok.empty()) {
    std::string why;
    for (const Scored& s : refused) why += "; " + s.estimate.kernel + ": " + s.estimate.note;
    throw NotApplicable("no " + std::string(to_string(settings.backend)) + " kernel with a cost model applies to this matrix" +
                        (refused.empty() ? std::string(" (none registered in this build)") : why));
  }
  // Lowest total first; ties by lower conversion, then by name, so the order never depends on the
  // registry's order.
  std::sort(ok.begin(), ok.end(), [](const Scored& a, const Scored& b) {
    if (a.total_ms != b.total_ms) return a.total_ms < b.total_ms;
    if (a.estimate.convert_ms != b.estimate.convert_ms) return a.estimate.convert_ms < b.estimate.convert_ms;
    return a.estimate.kernel < b.estimate.kernel;
  });
  std::sort(refused.begin(), refused.end(),
            [](const Scored& a, const Scored& b) { return a.estimate.kernel < b.estimate.kernel; });

  const KernelEstimate& best = ok.front().estimate;
  sel.kernel = best.kernel;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: predicted %s per product + %s conversion over %lld products", best.kernel.c_str(),
                fmt_ms(best.spmv_ms).c_str(), fmt_ms(best.convert_ms).c_str(),
                static_cast<long long>(settings.expected_products));
  sel.reason = buf;
  if (ok.size() > 1) {
    const Scored& second = ok[1];
    std::snprintf(buf, sizeof buf, "; next %s (%s + %s)", second.estimate.kernel.c_str(),
                  fmt_ms(second.estimate.spmv_ms).c_str(), fmt_ms(second.estimate.convert_ms).c_str());
    sel.reason += buf;
  }
  std::snprintf(buf, sizeof buf,
                "; rows %.1f +- %.1f non-zeros (max %lld), ELL padding %.0f%%, %.0f%% isolated non-zeros; %s; "
                "%zu kernels costed, %zu ruled out",
                stats.row_nnz_mean, stats.row_nnz_std, static_cast<long long>(stats.row_nnz_max),
                stats.ell_padding_ratio * 100, stats.nnz ? 100.0 * isolated / static_cast<double>(stats.nnz) : 0.0,
                bw.source.c_str(), ok.size(), refused.size());
  sel.reason += buf;
  if (without_model) sel.reason += " (" + std::to_string(without_model) + " without a cost model not considered)";
  for (Scored& s : ok) sel.candidates.push_back(std::move(s.estimate));
  for (Scored& s : refused) sel.candidates.push_back(std::move(s.estimate));
  return sel;
}

template <class T>
Selection select_kernel(const Csr<T>& a, const PlanSettings& settings) {
  if constexpr (sizeof(T) == 8) return select_kernel(compute_stats(a), settings, Precision::f64);
  else return select_kernel(compute_stats(csr_cast<double>(a)), settings, Precision::f32);
}

template Selection select_kernel(const Csr<float>&, const PlanSettings&);
template Selection select_kernel(const Csr<double>&, const PlanSettings&);

}  // namespace spkit
