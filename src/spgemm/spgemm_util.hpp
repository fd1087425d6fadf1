#pragma once
// Private helpers shared by the SpGEMM kernels: the shape check, the per-stage clock that turns
// `warmup + reps` runs of a pipeline into the median stage times of SpgemmResult, and the memory
// check done before C (or a scratch array) is allocated.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/convert_util.hpp"
#include "median.hpp"
#include "platform/memory.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::detail {

// Throws spkit::Error when a.cols != b.rows (defined in reference.cpp, the one wording of it).
template <class T>
void check_spgemm_shapes(const Csr<T>& a, const Csr<T>& b);

// Sets OpenMP's default team size for the scope of a kernel call, so that every parallel region it
// reaches (its own, and those of csr_to_bmsparse, bmsparse_to_csr, the prefix sums) uses the
// kernel's thread count rather than all cores; restores the previous value on exit.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(std::max(1, threads)); }
  ~ScopedOmpThreads() { omp_set_num_threads(previous_); }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int previous_;
};

// Times the stages of `warmup + reps` runs of one pipeline. Usage:
//   SpgemmStageClock clock(opts);
//   const int convert = clock.stage("convert", false), multiply = clock.stage("multiply");
//   for (int run = 0; run < clock.runs(); ++run) {
//     clock.start(run);  ... clock.lap(convert);  ... clock.lap(multiply);  clock.finish_run();
//   }
//   clock.fill(result);
// lap(s) charges the time since the previous start/lap to stage s; warm-up runs are not recorded.
class SpgemmStageClock {
 public:
  explicit SpgemmStageClock(const SpgemmOptions& opts)
      : warmup_(std::max(0, opts.warmup)), reps_(std::max(1, opts.reps)) {}
  int stage(std::string name, bool in_total = true) {
    stages_.push_back({std::move(name), 0.0, in_total});
    samples_.emplace_back();
    return static_cast<int>(stages_.size()) - 1;
  }
  int runs() const { return warmup_ + reps_; }
  void start(int run) {
    timed_ = run >= warmup_;
    run_total_ = 0;
    mark_ = std::chrono::steady_clock::now();
  }
  void lap(int stage) {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - mark_).count();
    mark_ = now;
    if (!timed_) return;
    samples_[stage].push_back(ms);
    if (stages_[stage].in_total) run_total_ += ms;
  }
  void finish_run() {
    if (timed_) totals_.push_back(run_total_);
  }
  template <class T>
  void fill(SpgemmResult<T>& r) const {
    r.stages = stages_;
    for (std::size_t s = 0; s < stages_.size(); ++s) r.stages[s].ms = detail::median(samples_[s]);
    r.total_ms = totals_;
  }

 private:
  int warmup_, reps_;
  bool timed_ = false;
  double run_total_ = 0;
  std::chrono::steady_clock::time_point mark_;
  std::vector<SpgemmStage> stages_;
  std::vector<std::vector<double>> samples_;
  std::vector<double> totals_;
};

// Throws TooLarge naming `bytes` when `what` would need more than `share` of the memory available now
// (scratch takes at most half, so that A, B and C keep the rest).
inline void check_spgemm_memory(const std::string& what, std::uint64_t bytes, double share = 1.0) {
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(available_memory_bytes()) * share);
  check_budget(what, bytes, FormatLimits{std::max<std::uint64_t>(budget, 1)});
}

}  // namespace spkit::detail
