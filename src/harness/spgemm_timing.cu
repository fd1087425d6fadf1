// The CUDA stage clock of time_spgemm: host stages by a steady clock, device stages by CUDA events on
// the kernel's stream. A run of device stages starts from an idle device (synchronized first, so its
// first event is stamped when it is recorded) and its stages are contiguous: each boundary is one event,
// stamped when the device reaches it, so allocations and host round trips between launches count. The
// run ends with a wait on its last event, before the next host stage's clock starts. The product time
// of a run of device stages is the time between its first and last events.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "harness/spgemm_stage_clock.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spgemm/cuda/spgemm_cuda_common.cuh"
#include "spkit/device.hpp"

namespace spkit::harness_detail {
namespace {

class CudaStageClock final : public SpgemmStageClock {
 public:
  explicit CudaStageClock(Stream stream) : stream_(cuda::cuda_stream(stream)) {}
  ~CudaStageClock() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  CudaStageClock(const CudaStageClock&) = delete;
  CudaStageClock& operator=(const CudaStageClock&) = delete;

  void begin_stage(const char* name, bool in_total, StageSite site) override {
    std::optional<std::size_t> boundary = close(site);
    if (site == StageSite::device) {
      if (!boundary) {
        SPKIT_CUDA_CHECK(cudaDeviceSynchronize());  // an empty queue: the first event is stamped now
        boundary = record();
      }
      open_ = Open{name, in_total, site, *boundary, {}};
    } else {
      open_ = Open{name, in_total, site, 0, std::chrono::steady_clock::now()};
    }
  }
  void end_stages() override {
    close(StageSite::host);
    open_.reset();
  }

 private:
  struct Open {
    std::string name;
    bool in_total;
    StageSite site;
    std::size_t start_event;                       // device stages
    std::chrono::steady_clock::time_point start;   // host stages
  };
  struct DeviceStage {
    std::string name;
    bool in_total;
    std::size_t start_event, end_event;
  };

  void reset() override {
    open_.reset();
    pending_.clear();
    used_ = 0;
  }

  // Ends the open stage before a stage on `next`; returns the boundary event when a device stage
  // ended there and the next one runs on the device too (it starts at that event).
  std::optional<std::size_t> close(StageSite next) {
    if (!open_) return std::nullopt;
    if (open_->site == StageSite::host) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - open_->start).count();
      measured(open_->name, open_->in_total, ms);
      if (open_->in_total) add_to_total(ms);
      return std::nullopt;
    }
    const std::size_t end = record();
    pending_.push_back({open_->name, open_->in_total, open_->start_event, end});
    if (next == StageSite::device) return end;
    measure_pending();
    return std::nullopt;
  }

  // Waits for the last device stage, then measures the run of device stages that ended with it.
  void measure_pending() {
    SPKIT_CUDA_CHECK(cudaEventSynchronize(events_[pending_.back().end_event]));
    for (std::size_t s = 0; s < pending_.size(); ++s) {
      const DeviceStage& d = pending_[s];
      measured(d.name, d.in_total, elapsed(d.start_event, d.end_event));
      // Consecutive stages in the product time: one interval from the first's start to the last's end.
      if (d.in_total && (s == 0 || !pending_[s - 1].in_total)) {
        std::size_t last = s;
        while (last + 1 < pending_.size() && pending_[last + 1].in_total) ++last;
        add_to_total(elapsed(d.start_event, pending_[last].end_event));
      }
    }
    pending_.clear();
  }

  std::size_t record() {
    if (used_ == events_.size()) {
      cudaEvent_t e = nullptr;
      SPKIT_CUDA_CHECK(cudaEventCreate(&e));
      events_.push_back(e);
    }
    SPKIT_CUDA_CHECK(cudaEventRecord(events_[used_], stream_));
    return used_++;
  }
  double elapsed(std::size_t from, std::size_t to) const {
    float ms = 0;
    SPKIT_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return ms;
  }

  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;  // reused from call to call
  std::size_t used_ = 0;             // events recorded in this call
  std::optional<Open> open_;
  std::vector<DeviceStage> pending_;  // device stages whose end has not been waited for
};

}  // namespace

std::unique_ptr<SpgemmStageClock> make_cuda_stage_clock(Stream stream) {
  return std::make_unique<CudaStageClock>(stream);
}

// Both -1 without a device (a fake CUDA kernel in a test on a machine without one) or when the pool's
// attributes cannot be read (that error cleared, so that no later launch check reports it); a failed
// synchronization is the product's error and throws.
std::int64_t device_pool_used_reset_peak(int device) {
  if (gpu_count() == 0) return -1;
  cuda::set_device(device);
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  const cudaMemPool_t pool = cuda::spgemm_pool(device);
  std::uint64_t used = 0, zero = 0;
  if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess ||
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return static_cast<std::int64_t>(used);
}

std::int64_t device_pool_peak(int device) {
  if (gpu_count() == 0) return -1;
  cuda::set_device(device);
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::uint64_t high = 0;
  if (cudaMemPoolGetAttribute(cuda::spgemm_pool(device), cudaMemPoolAttrUsedMemHigh, &high) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return static_cast<std::int64_t>(high);
}

}  // namespace spkit::harness_detail
