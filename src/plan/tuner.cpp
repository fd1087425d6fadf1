// The measuring selection (src/plan/tuner.hpp).
#include "plan/tuner.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <limits>

#include "spkit/config.hpp"
#include "plan/permuted_spmv.hpp"
#include "spkit/error.hpp"
#include "tuning.hpp"
#ifdef SPKIT_HAVE_CUDA
#include "plan/plan_device.hpp"
#endif

namespace spkit::plan_detail {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// x and y where the candidates read and write them: host vectors, or device arrays for CUDA plans.
template <class T>
struct Vectors {
  std::vector<T> hx, hy;
#ifdef SPKIT_HAVE_CUDA
  plan_device::DeviceArray dx, dy;
#endif
  const T* x = nullptr;
  T* y = nullptr;
  Stream stream;
  bool cuda = false;

  Vectors(Backend backend, int device, std::int64_t rows, std::int64_t cols)
      : hx(static_cast<std::size_t>(cols)), hy(static_cast<std::size_t>(rows), T(0)) {
    for (std::size_t i = 0; i < hx.size(); ++i) hx[i] = T(1) / T(1 + i % 7);
    x = hx.data(), y = hy.data();
    if (backend != Backend::cuda) return;
#ifdef SPKIT_HAVE_CUDA
    cuda = true;
    plan_device::select_device(device);
    dx = plan_device::DeviceArray(hx.size() * sizeof(T), "tuning x");
    dy = plan_device::DeviceArray(hy.size() * sizeof(T), "tuning y");
    plan_device::upload(dx.as<T>(), hx.data(), hx.size() * sizeof(T), stream);
    x = dx.as<T>(), y = dy.as<T>();
#else
    (void)device;
    throw DeviceError("tune", "this build of spkit has no CUDA support");
#endif
  }
  void wait() {
#ifdef SPKIT_HAVE_CUDA
    if (cuda) plan_device::synchronize(stream);
#endif
  }
};

// How many products a candidate is timed on: one warm-up, then `batches` batches of `per_batch`.
struct Runs {
  int batches = tuning::kTuneBatches;
  int per_batch = tuning::kTuneProductsPerBatch;
  int total() const { return 1 + batches * per_batch; }
};

// Products per batch for a product of `product_ms`: a batch of about tuning::kTuneBatchTargetMs.
int products_per_batch(double product_ms, int at_most) {
  if (!(product_ms > 0)) return at_most;
  const double fit = std::floor(tuning::kTuneBatchTargetMs / product_ms);
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(at_most)));
}

// Best batch mean of one plan, in ms per product; stops early (after the first batch) past `deadline`.
// With `size_by_warm_up` (CPU plans) the batches are sized by the warm-up product's time, an over-estimate
// (it runs cold); not on the GPU, whose first launch of a kernel may take milliseconds of loading, which
// would leave its sub-millisecond products timed one at a time, launch latency and all.
template <class T>
double time_plan(SpmvPlan<T>& plan, Vectors<T>& v, Runs runs, Clock::time_point deadline, bool size_by_warm_up) {
  const auto warm = Clock::now();
  plan.run(T(1), v.x, T(0), v.y, v.stream);  // warm-up: caches, lazy initialisation, clocks
  v.wait();
  if (size_by_warm_up) runs.per_batch = products_per_batch(ms_since(warm), runs.per_batch);
  double best = std::numeric_limits<double>::infinity();
  for (int b = 0; b < runs.batches; ++b) {
    const auto t0 = Clock::now();
    for (int r = 0; r < runs.per_batch; ++r) plan.run(T(1), v.x, T(0), v.y, v.stream);
    v.wait();
    best = std::min(best, ms_since(t0) / runs.per_batch);
    if (Clock::now() >= deadline) break;
  }
  return best;
}

}  // namespace

template <class T>
TuneOutcome<T> tune(std::vector<TuneCandidate<T>>& candidates, Backend backend, int device, std::int64_t rows,
                    std::int64_t cols, double budget_ms) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(budget_ms));
  TuneOutcome<T> out;
  Vectors<T> v(backend, device, rows, cols);
  double best_ms = std::numeric_limits<double>::infinity();
  // The cost model's product times scaled by what the first candidate timed measured against its
  // prediction: the model's absolute times are those of a reference machine (a 16-core host at one
  // thread ran 2.4-4.2x faster than predicted on 8M non-zeros, 2026-11-28), and only its ranking is used.
  double scale = 1.0;
  bool calibrated = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    TuneCandidate<T>& c = candidates[i];
    MeasuredCandidate m{c.kernel, c.ordering, c.predicted_ms, 0, ""};
    const double left = budget_ms - ms_since(start);
    // Slow products (a large matrix on one thread: 20-40 ms each) get fewer timed runs before the
    // candidate is dropped: a single product tells a 1.5x difference apart, a skipped candidate nothing.
    Runs runs;
    const double product_ms = c.predicted_ms * scale;
    if (calibrated && backend == Backend::cpu) runs.per_batch = products_per_batch(product_ms, runs.per_batch);
    auto needs = [&] { return c.predicted_convert_ms + runs.total() * product_ms; };
    while (needs() > left && (runs.batches > 1 || runs.per_batch > 1)) {
      if (runs.per_batch > 1) runs.per_batch = std::max(1, runs.per_batch / 2);
      else --runs.batches;
    }
    // The model's pick (and, if it refused, the next) is always timed: the plan needs one kernel anyway.
    if (out.best && needs() > left) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "not timed: needs ~%.3g ms, %.3g ms of the budget left", needs(), std::max(0.0, left));
      m.note = buf;
      out.measured.push_back(std::move(m));
      continue;
    }
    try {
      std::unique_ptr<SpmvPlan<T>> plan = c.build();
      m.measured_ms = time_plan(c.time_in_plan_numbering ? kernel_in_plan_numbering(*plan) : *plan, v, runs, deadline,
                                backend == Backend::cpu);
      if (!calibrated && c.predicted_ms > 0 && m.measured_ms > 0 && m.measured_ms < std::numeric_limits<double>::infinity()) {
        scale = std::clamp(m.measured_ms / c.predicted_ms, tuning::kTuneScaleMin, tuning::kTuneScaleMax);
        calibrated = true;
      }
      if (m.measured_ms < best_ms) {
        best_ms = m.measured_ms;
        out.best = std::move(plan);  // the previous best is freed here
        out.best_index = i;
      }
    } catch (const NotApplicable& e) {
      m.note = std::string("refused: ") + e.what();
    } catch (const TooLarge& e) {
      m.note = std::string("refused: ") + e.what();
    }
    out.measured.push_back(std::move(m));
  }
  out.ms = ms_since(start);
  return out;
}

template TuneOutcome<float> tune(std::vector<TuneCandidate<float>>&, Backend, int, std::int64_t, std::int64_t, double);
template TuneOutcome<double> tune(std::vector<TuneCandidate<double>>&, Backend, int, std::int64_t, std::int64_t,
                                  double);

}  // namespace spkit::plan_detail
