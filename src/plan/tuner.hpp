#pragma once
// The measuring half of kernel "auto" (PlanSettings::tuning): build the cost model's top candidates, time
// a few products of each on the real matrix, keep the fastest. Like FFTW's planner, this timing is a
// feature of the product, not benchmark machinery: steady clock, one synchronize per batch, no harness.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "spkit/kernel.hpp"
#include "spkit/select.hpp"

namespace spkit::plan_detail {

template <class T>
struct TuneCandidate {
  std::string kernel;
  std::string ordering;
  double predicted_ms = 0;          // one product, the permutation passes included (unless below)
  double predicted_convert_ms = 0;  // the plan this candidate needs (conversion, upload)
  // Time the kernel on P A P^T alone, without the gather and scatter of each product: the caller keeps
  // its vectors in the plan's numbering (PlanSettings::vectors_in_plan_numbering).
  bool time_in_plan_numbering = false;
  std::function<std::unique_ptr<SpmvPlan<T>>()> build;  // throws NotApplicable / TooLarge when it refuses
};

template <class T>
struct TuneOutcome {
  std::unique_ptr<SpmvPlan<T>> best;  // null when no candidate could be built and timed
  std::size_t best_index = 0;
  std::vector<MeasuredCandidate> measured;  // one per candidate, in the order given
  double ms = 0;                            // wall time of the whole tuning
};

// Times the candidates in order (the first, the model's pick, always; the others while `budget_ms` is
// not spent and their predicted build + timing fits what is left), keeping only the fastest plan alive.
// The model's product times are scaled by the first measured candidate's measured / predicted ratio, and
// a candidate too slow for the full timing (tuning::kTuneBatches x kTuneProductsPerBatch) is timed on
// fewer products, down to one after the warm-up, before it is dropped.
// The budget can be overrun by one batch of the candidate being timed, or by the model's pick alone.
// rows/cols size the vectors; x is finite (1 / (1 + i mod 7)). CUDA plans run on `device`, on the legacy
// default stream, synchronized after each batch.
template <class T>
TuneOutcome<T> tune(std::vector<TuneCandidate<T>>& candidates, Backend backend, int device, std::int64_t rows,
                    std::int64_t cols, double budget_ms);

}  // namespace spkit::plan_detail
