#pragma once
// The kernels' side of SpgemmStageRecorder: each call is a no-op when the caller passed no recorder,
// so a kernel reads as its pipeline with one line per stage boundary.
#include "spkit/spgemm.hpp"

namespace spkit::detail {

class StageMarks {
 public:
  explicit StageMarks(const SpgemmOptions& opts) : recorder_(opts.recorder) {}
  void host(const char* name, bool in_total = true) const { begin(name, in_total, StageSite::host); }
  void device(const char* name) const { begin(name, true, StageSite::device); }
  void end() const {
    if (recorder_) recorder_->end_stages();
  }

 private:
  void begin(const char* name, bool in_total, StageSite site) const {
    if (recorder_) recorder_->begin_stage(name, in_total, site);
  }
  SpgemmStageRecorder* recorder_;
};

}  // namespace spkit::detail
