// time_spgemm and the host stage clock: see spkit/harness/spgemm_timing.hpp.
#include "spkit/harness/spgemm_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "harness/spgemm_stage_clock.hpp"
#include "median.hpp"
#include "spkit/error.hpp"
#include "spkit/precision.hpp"

namespace spkit::harness_detail {

void SpgemmStageClock::begin_call(bool keep) {
  keep_ = keep;
  call_stages_.clear();
  call_total_ = 0;
  reset();
}

void SpgemmStageClock::end_call() {
  if (!keep_) return;
  if (!have_first_) {
    have_first_ = true;
    first_ = call_stages_;
    samples_.resize(first_.size());
  }
  // Calls run the same stages, except stages outside the product time that only some calls run (the
  // last call downloads C, the others leave it on the device: SpgemmOptions::discard_result); such a
  // stage keeps the samples of the calls that ran it.
  const auto mismatch = [] { return Error("SpGEMM kernel reported different stages in two calls on the same product"); };
  const auto skippable = [&](std::size_t from, std::size_t to) {
    for (std::size_t f = from; f < to; ++f)
      if (first_[f].in_total) return false;
    return true;
  };
  std::size_t s = 0;
  for (const SpgemmStage& st : call_stages_) {
    std::size_t f = s;
    while (f < first_.size() && !(first_[f].name == st.name && first_[f].in_total == st.in_total)) ++f;
    if (f < first_.size() && skippable(s, f)) {
      samples_[f].push_back(st.ms);
      s = f + 1;
    } else if (!st.in_total) {
      first_.insert(first_.begin() + static_cast<std::ptrdiff_t>(s), st);
      samples_.insert(samples_.begin() + static_cast<std::ptrdiff_t>(s), std::vector<double>{st.ms});
      ++s;
    } else {
      throw mismatch();
    }
  }
  if (!skippable(s, first_.size())) throw mismatch();
  totals_.push_back(call_total_);
}

std::vector<SpgemmStage> SpgemmStageClock::median_stages() const {
  std::vector<SpgemmStage> out = first_;
  for (std::size_t s = 0; s < out.size(); ++s) out[s].ms = detail::median(samples_[s]);
  return out;
}

namespace {

class HostStageClock final : public SpgemmStageClock {
 public:
  void begin_stage(const char* name, bool in_total, StageSite site) override {
    if (site == StageSite::device)
      throw Error(std::string("SpGEMM stage \"") + name +
                  "\" runs on a device, but the kernel is timed by a host clock");
    const auto now = std::chrono::steady_clock::now();
    close(now);
    open_ = Open{name, in_total, now};
  }
  void end_stages() override {
    close(std::chrono::steady_clock::now());
    open_.reset();
  }

 private:
  struct Open {
    std::string name;
    bool in_total;
    std::chrono::steady_clock::time_point start;
  };
  void reset() override { open_.reset(); }
  void close(std::chrono::steady_clock::time_point now) {
    if (!open_) return;
    const double ms = std::chrono::duration<double, std::milli>(now - open_->start).count();
    measured(open_->name, open_->in_total, ms);
    if (open_->in_total) add_to_total(ms);
  }
  std::optional<Open> open_;
};

}  // namespace

std::unique_ptr<SpgemmStageClock> make_host_stage_clock() { return std::make_unique<HostStageClock>(); }

namespace {
// A "Key:   123 kB" line of /proc/self/status, in bytes; -1 when absent.
std::int64_t status_bytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line))
    if (line.compare(0, prefix.size(), prefix) == 0) return std::atoll(line.c_str() + prefix.size()) * 1024;
  return -1;
}
}  // namespace

std::int64_t resident_reset_peak() {
  {
    std::ofstream clear("/proc/self/clear_refs");
    if (!(clear << "5" << std::flush)) return -1;
  }
  return status_bytes("VmRSS");
}

std::int64_t resident_peak() { return status_bytes("VmHWM"); }

}  // namespace spkit::harness_detail

namespace spkit::harness {
namespace {

// reset: memory in use on a kernel's backend, its high-water mark reset there; else that mark (-1: unknown).
std::int64_t memory_probe(Backend backend, int device, bool reset) {
#ifdef SPKIT_HAVE_CUDA
  if (backend == Backend::cuda)
    return reset ? harness_detail::device_pool_used_reset_peak(device) : harness_detail::device_pool_peak(device);
#endif
  (void)backend, (void)device;
  return reset ? harness_detail::resident_reset_peak() : harness_detail::resident_peak();
}

}  // namespace

template <class T>
SpgemmTiming<T> time_spgemm(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b, SpgemmOptions opts,
                            const SpgemmTimingOptions& timing) {
  const SpgemmFn<T>& fn = k.fn<T>();
  if (!fn) throw NotApplicable(k.name + " has no " + std::string(to_string(precision_of<T>())) + " form");
#ifdef SPKIT_HAVE_CUDA
  std::unique_ptr<harness_detail::SpgemmStageClock> clock = k.backend == Backend::cuda
                                                              ? harness_detail::make_cuda_stage_clock(opts.stream)
                                                              : harness_detail::make_host_stage_clock();
#else
  std::unique_ptr<harness_detail::SpgemmStageClock> clock = harness_detail::make_host_stage_clock();
#endif
  opts.recorder = clock.get();
  const int warmup = std::max(0, timing.warmup), runs = warmup + std::max(1, timing.reps);
  SpgemmTiming<T> t;
  for (int run = 0; run < runs; ++run) {
    opts.keep_device_pool = run + 1 < runs;
    // Only the last call's C is returned (and checked): CUDA kernels may leave the others' on the device.
    opts.discard_result = k.backend == Backend::cuda && run + 1 < runs;
    t.result = SpgemmResult<T>();  // the previous C goes before the next product starts
    // The first call's memory peak, outside its timed stages: the device pool's for a CUDA kernel, the
    // process's resident set for a CPU kernel (pages a later call reuses would not show).
    const bool probe = run == 0;
    const std::int64_t before = probe ? memory_probe(k.backend, opts.device, true) : -1;
    clock->begin_call(run >= warmup);
    t.result = fn(a, b, opts);
    clock->end_call();
    if (before >= 0) {
      const std::int64_t peak = memory_probe(k.backend, opts.device, false);
      if (peak >= 0) t.peak_bytes = std::max<std::int64_t>(0, peak - before);
    }
  }
  t.stages = clock->median_stages();
  t.total_ms = clock->totals();
  return t;
}

template SpgemmTiming<float> time_spgemm(const SpgemmKernelInfo&, const Csr<float>&, const Csr<float>&, SpgemmOptions,
                                         const SpgemmTimingOptions&);
template SpgemmTiming<double> time_spgemm(const SpgemmKernelInfo&, const Csr<double>&, const Csr<double>&,
                                          SpgemmOptions, const SpgemmTimingOptions&);

}  // namespace spkit::harness
