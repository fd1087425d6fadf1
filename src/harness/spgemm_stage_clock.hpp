#pragma once
// The harness's SpgemmStageRecorder: keeps each stage's time and the product time of every timed kernel
// call, and gives the medians. The clocks themselves are the derived classes: the host one
// (spgemm_timing.cpp) and the CUDA one (spgemm_timing.cu).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spkit/harness/spgemm_timing.hpp"
#include "spkit/config.hpp"
#include "spkit/kernel.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::harness_detail {
using harness::SpgemmStage;

class SpgemmStageClock : public SpgemmStageRecorder {
 public:
  // Before each kernel call; keep: a timed (not warm-up) call.
  void begin_call(bool keep);
  // After the call returned. Throws Error when its stages differ from the other timed calls' (stages
  // outside the product time may be missing from some calls: a discarded C is not downloaded).
  void end_call();
  std::vector<SpgemmStage> median_stages() const;
  const std::vector<double>& totals() const { return totals_; }

 protected:
  virtual void reset() = 0;  // a new call begins: forget any open stage
  // A stage of the current call has been measured (in pipeline order).
  void measured(const std::string& name, bool in_total, double ms) { call_stages_.push_back({name, ms, in_total}); }
  // Time that counts towards the current call's product time.
  void add_to_total(double ms) { call_total_ += ms; }

 private:
  bool keep_ = false, have_first_ = false;
  std::vector<SpgemmStage> call_stages_;
  double call_total_ = 0;
  std::vector<SpgemmStage> first_;              // the stages of the first timed call
  std::vector<std::vector<double>> samples_;    // [stage][timed call]
  std::vector<double> totals_;
};

// A steady clock for kernels whose stages all run on the host; throws Error on a device stage.
std::unique_ptr<SpgemmStageClock> make_host_stage_clock();
#ifdef SPKIT_HAVE_CUDA
// Host stages by a steady clock, device stages by CUDA events on `stream`.
std::unique_ptr<SpgemmStageClock> make_cuda_stage_clock(Stream stream);
// Bytes in use in the device's SpGEMM pool (every CUDA SpGEMM kernel allocates from it) after the device
// is idle, with its high-water mark reset there; and that mark after a product: -1 when it cannot be read.
std::int64_t device_pool_used_reset_peak(int device);
std::int64_t device_pool_peak(int device);
#endif
// The process's resident bytes with the high-water mark reset there (Linux: VmRSS, and 5 written to
// /proc/self/clear_refs); and that mark (VmHWM) after a product: -1 where either cannot be done.
std::int64_t resident_reset_peak();
std::int64_t resident_peak();

}  // namespace spkit::harness_detail
