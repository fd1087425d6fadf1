#pragma once
// Timing of SpGEMM kernels, as `spkit spgemm`, `spkit bench` and the tests report it: warm-up + timed
// calls of a kernel, each computing C once while a stage recorder times its stages (a steady clock for
// host stages; CUDA events on the kernel's stream for device stages, which start from an idle device and
// end when the device reaches them). The product time of a call is the sum of its stages with in_total.
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::harness {

struct SpgemmStage {
  std::string name;      // "T1 count", ..., "T7 compact"; or "symbolic", "numeric"; "convert", "upload"
  double ms = 0;         // median over the timed calls
  bool in_total = true;  // false for preparation (conversion, upload) that the product time excludes
};

struct SpgemmTimingOptions {
  int warmup = 1;  // untimed calls first
  int reps = 5;    // timed calls; stage times are medians over these
};

template <class T>
struct SpgemmTiming {
  SpgemmResult<T> result;           // the last call's C and what the kernel reported
  std::vector<SpgemmStage> stages;  // in pipeline order
  std::vector<double> total_ms;     // each timed call's product time
  // Memory the first call took at its peak beyond what was in use before it: CUDA kernels, the device's
  // SpGEMM pool (A and B uploaded, work arrays, C; not cuSPARSE's own workspace); CPU kernels, the
  // process's resident set (C included; a lower bound where a library reuses memory an earlier product
  // left, as MKL does); -1 where it cannot be read.
  std::int64_t peak_bytes = -1;
};

// Runs k on C = A B warm-up + timed times. The device pool keeps what a product took until the last
// call, so the timed products allocate from it as a user's repeated products do (SpgemmOptions::
// keep_device_pool); CUDA kernels compute every C but the last on the device without downloading it
// (SpgemmOptions::discard_result), so only one C crosses to the host, whose download stages come from
// that call. opts.recorder is replaced by the harness's own. Throws what the kernel throws,
// NotApplicable when k has no form for T, and Error when two calls report different stages.
template <class T>
SpgemmTiming<T> time_spgemm(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b, SpgemmOptions opts,
                            const SpgemmTimingOptions& timing);

}  // namespace spkit::harness
