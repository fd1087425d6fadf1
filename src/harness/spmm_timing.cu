// time_spmm for CUDA plans: X and Y uploaded once (Y as the caller poisoned or filled it), warm-up, then
// each timed product between two events on the harness's own stream, L2 optionally evicted (untimed)
// before it, Y downloaded at the end, as time_cuda_spmv does for SpMV.
#include <algorithm>

#include "harness/spmm_cuda_timing.hpp"
#include "kernels/cuda/cuda_common.cuh"

namespace spkit::harness::cuda_timing {

namespace {

struct SpmmEvent {
  cudaEvent_t e = nullptr;
  SpmmEvent() { SPKIT_CUDA_CHECK(cudaEventCreate(&e)); }
  ~SpmmEvent() { if (e) cudaEventDestroy(e); }
  SpmmEvent(const SpmmEvent&) = delete;
  SpmmEvent& operator=(const SpmmEvent&) = delete;
};

struct SpmmStream {
  cudaStream_t s = nullptr;
  SpmmStream() { SPKIT_CUDA_CHECK(cudaStreamCreate(&s)); }
  ~SpmmStream() { if (s) cudaStreamDestroy(s); }
  SpmmStream(const SpmmStream&) = delete;
  SpmmStream& operator=(const SpmmStream&) = delete;
};

}  // namespace

template <class T>
std::vector<double> time_cuda_spmm(SpmmPlan<T>& plan, std::int64_t x_elements, std::int64_t y_elements,
                                   const T* host_x, std::int64_t ldx, T* host_y, std::int64_t ldy,
                                   const TimingOptions& opts, T alpha, T beta) {
  using spkit::cuda::DeviceBuffer;
  spkit::cuda::set_device(opts.device);
  const auto& props = spkit::cuda::device_props(opts.device);
  DeviceBuffer<T> dx(static_cast<std::size_t>(x_elements), "SpMM X");
  DeviceBuffer<T> dy(static_cast<std::size_t>(y_elements), "SpMM Y");
  dx.upload(host_x, static_cast<std::size_t>(x_elements));
  dy.upload(host_y, static_cast<std::size_t>(y_elements));
  SpmmStream stream;
  const Stream handle{stream.s};
  DeviceBuffer<unsigned char> flush;
  for (int i = 0; i < opts.warmup; ++i) plan.run(alpha, dx.get(), ldx, beta, dy.get(), ldy, handle);
  SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream.s));
  const int reps = std::max(opts.reps, 1);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(reps));
  SpmmEvent start, stop;
  for (int r = 0; r < reps; ++r) {
    if (opts.flush_cache) {  // evict L2 by writing twice its size, before the start event
      const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(props.l2_bytes, 1 << 20)) * 2;
      if (flush.size() < bytes) flush = DeviceBuffer<unsigned char>(bytes, "L2 flush buffer");
      SPKIT_CUDA_CHECK(cudaMemsetAsync(flush.get(), 0x5a, flush.size(), stream.s));
    }
    SPKIT_CUDA_CHECK(cudaEventRecord(start.e, stream.s));
    plan.run(alpha, dx.get(), ldx, beta, dy.get(), ldy, handle);
    SPKIT_CUDA_CHECK(cudaEventRecord(stop.e, stream.s));
    SPKIT_CUDA_CHECK(cudaEventSynchronize(stop.e));
    float elapsed = 0;
    SPKIT_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.e, stop.e));
    ms.push_back(static_cast<double>(elapsed));
  }
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());  // faults inside a kernel surface here, before Y is trusted
  dy.download(host_y, static_cast<std::size_t>(y_elements));
  return ms;
}

template std::vector<double> time_cuda_spmm(SpmmPlan<float>&, std::int64_t, std::int64_t, const float*, std::int64_t,
                                            float*, std::int64_t, const TimingOptions&, float, float);
template std::vector<double> time_cuda_spmm(SpmmPlan<double>&, std::int64_t, std::int64_t, const double*,
                                            std::int64_t, double*, std::int64_t, const TimingOptions&, double, double);

}  // namespace spkit::harness::cuda_timing
