// time_spmv for CUDA plans: x uploaded once, y poisoned, warm-up, then each timed product between two
// events on the harness's stream, L2 optionally evicted (untimed) before it, y downloaded at the end.
#include "harness/cuda_timing.hpp"

#include <algorithm>

#include "kernels/cuda/cuda_common.cuh"

namespace spkit::harness::cuda_timing {

namespace {

using spkit::cuda::DeviceBuffer;

struct Event {
  cudaEvent_t e = nullptr;
  Event() { SPKIT_CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() { if (e) cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// A blocking stream (not cudaStreamNonBlocking) on purpose: kernels still on the transitional run(x, y)
// launch on the legacy default stream, which a blocking stream orders against, so the events bracket
// their work too.
struct OwnStream {
  cudaStream_t s = nullptr;
  OwnStream() { SPKIT_CUDA_CHECK(cudaStreamCreate(&s)); }
  ~OwnStream() { if (s) cudaStreamDestroy(s); }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
};

// Evicts L2 by writing a buffer twice its size, on `stream` (before the start event: untimed).
void flush_l2(DeviceBuffer<unsigned char>& buffer, const spkit::cuda::DeviceProps& p, cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(std::max<std::int64_t>(p.l2_bytes, 1 << 20)) * 2;
  if (buffer.size() < bytes) buffer = DeviceBuffer<unsigned char>(bytes, "L2 flush buffer");
  SPKIT_CUDA_CHECK(cudaMemsetAsync(buffer.get(), static_cast<int>(buffer.size() & 0x7f), buffer.size(), stream));
}

}  // namespace

template <class T>
std::vector<double> time_cuda_spmv(SpmvPlan<T>& plan, std::int64_t rows, std::int64_t cols, const T* host_x,
                                   T* host_y, const TimingOptions& opts) {
  spkit::cuda::set_device(opts.device);
  const auto& props = spkit::cuda::device_props(opts.device);
  DeviceBuffer<T> dx(static_cast<std::size_t>(cols), "x");
  DeviceBuffer<T> dy(static_cast<std::size_t>(rows), "y");
  dx.upload(host_x, static_cast<std::size_t>(cols));
  // Poison y (all-ones bytes are NaN in float and double) so an unwritten row cannot pass.
  if (rows > 0) SPKIT_CUDA_CHECK(cudaMemset(dy.get(), 0xff, dy.bytes()));
  OwnStream stream;
  const Stream handle{stream.s};
  DeviceBuffer<unsigned char> flush_buffer;  // 2x L2, allocated on the first flush
  for (int i = 0; i < opts.warmup; ++i) plan.run(T(1), dx.get(), T(0), dy.get(), handle);
  SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream.s));

  const int reps = std::max(opts.reps, 1);
  const int batch = opts.flush_cache ? 1 : std::max(opts.batch, 1);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(reps));
  Event start, stop;
  for (int r = 0; r < reps; ++r) {
    if (opts.flush_cache) flush_l2(flush_buffer, props, stream.s);
    SPKIT_CUDA_CHECK(cudaEventRecord(start.e, stream.s));
    for (int b = 0; b < batch; ++b) plan.run(T(1), dx.get(), T(0), dy.get(), handle);
    SPKIT_CUDA_CHECK(cudaEventRecord(stop.e, stream.s));
    SPKIT_CUDA_CHECK(cudaEventSynchronize(stop.e));
    float elapsed = 0;
    SPKIT_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.e, stop.e));
    ms.push_back(static_cast<double>(elapsed) / batch);
  }
  // Faults inside a kernel surface here, before y is trusted.
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  dy.download(host_y, static_cast<std::size_t>(rows));
  return ms;
}

template std::vector<double> time_cuda_spmv(SpmvPlan<float>&, std::int64_t, std::int64_t, const float*, float*,
                                            const TimingOptions&);
template std::vector<double> time_cuda_spmv(SpmvPlan<double>&, std::int64_t, std::int64_t, const double*, double*,
                                            const TimingOptions&);

}  // namespace spkit::harness::cuda_timing
