// time_spmv: a steady clock around each product on the CPU; CUDA plans go to cuda_timing.cu.
#include "spkit/harness/timing.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "tuning.hpp"
#if SPKIT_HAVE_CUDA
#include "harness/cuda_timing.hpp"
#endif

namespace spkit::harness {

template <class T>
std::vector<double> time_spmv(SpmvPlan<T>& plan, std::int64_t rows, std::int64_t cols, const T* host_x, T* host_y,
                              const TimingOptions& opts) {
  if (plan.backend() == Backend::cuda) {
#if SPKIT_HAVE_CUDA
    return cuda_timing::time_cuda_spmv(plan, rows, cols, host_x, host_y, opts);
#else
    (void)rows, (void)cols;
    throw DeviceError("time_spmv", "a CUDA plan, but this spkit was built without CUDA");
#endif
  }
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < opts.warmup; ++i) plan.run(T(1), host_x, T(0), host_y, Stream{});
  const int reps = std::max(opts.reps, 1);
  const int batch = std::max(opts.batch, 1);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const auto t0 = clock::now();
    for (int b = 0; b < batch; ++b) plan.run(T(1), host_x, T(0), host_y, Stream{});
    const auto t1 = clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / batch);
  }
  return ms;
}

template std::vector<double> time_spmv(SpmvPlan<float>&, std::int64_t, std::int64_t, const float*, float*,
                                       const TimingOptions&);
template std::vector<double> time_spmv(SpmvPlan<double>&, std::int64_t, std::int64_t, const double*, double*,
                                       const TimingOptions&);

std::vector<std::size_t> narrowest_first(const std::vector<int>& threads) {
  std::vector<std::size_t> order(threads.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return threads[a] < threads[b]; });
  return order;
}

void settle_threads(int threads) {
  static std::atomic<int> last{0};
  if (threads < last.exchange(threads)) std::this_thread::sleep_for(std::chrono::milliseconds(tuning::kThreadSettleMs));
}

}  // namespace spkit::harness
