#pragma once
// The auto-selector: picks format, kernel and parameters for a matrix from its statistics
// (spkit/stats.hpp) and the number of products the caller expects, without running any kernel, so that
// a conversion that costs more than it saves is not chosen. spkit/plan.hpp builds a Plan from its pick.
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/precision.hpp"
#include "spkit/stats.hpp"

namespace spkit {

// What a caller asks of a Plan (spkit/plan.hpp). The selector reads backend, threads, device and
// expected_products; `kernel`, `ordering` and the tuning fields are the Plan's business.
struct PlanSettings {
  std::string kernel = "auto";           // "auto" or a registry name for `backend`
  Backend backend = Backend::cpu;
  int threads = 0;                       // CPU threads (0: all the process may use)
  int device = 0;                        // CUDA device ordinal
  std::int64_t expected_products = 100;  // how many products the caller will run with this plan
  // How many transposed products (Plan::apply_transpose) the caller will run: 0 (none: apply_transpose
  // throws), a few (a scatter over A's rows, no second copy of the matrix; on the GPU with atomic adds)
  // or enough to pay for building A^T and planning the kernel on it (CPU 8, GPU 2000 or more:
  // src/plan/transpose_plan.hpp).
  std::int64_t expected_transpose_products = 0;
  // Symmetric renumbering P A P^T kept inside the plan (spkit/reorder.hpp); apply still takes x and
  // returns y in the caller's numbering. "none", "rcm", "hubsort", "community", or "auto" (rcm or
  // hubsort, never community): a reordering is considered when enough products are expected to pay for
  // it and the matrix is badly numbered, and kept when the cost model (or, when tuning measures, the
  // clock) says it wins. Square matrices only (a named ordering of a rectangular one throws
  // NotApplicable; "auto" keeps none and says why). A named kernel runs on P A P^T only when the
  // ordering is named too ("auto" means none for it).
  std::string ordering = "auto";
  // How kernel "auto" decides: "model" (the cost model alone, nothing runs), "measure" (the model's top
  // candidates, with and without the ordering, are built and timed on the matrix for a few products;
  // the fastest is kept), or "auto" (measure when at least tuning::kTuneMinProducts products are
  // expected, the model otherwise).
  std::string tuning = "auto";
  // Bound on the wall time measuring may take (building and timing the candidates); 0: the default,
  // a fraction of the predicted time of all expected products, capped (src/tuning.hpp).
  double tuning_budget_ms = 0;
  // The caller keeps its vectors in the plan's numbering (Plan::apply_in_plan_numbering, as a solver
  // does): "auto" then ranks orderings by the kernel on P A P^T alone, without the per-product gather and
  // scatter that apply pays. apply still works as always.
  bool vectors_in_plan_numbering = false;
};

struct KernelEstimate {
  std::string kernel;
  bool applicable = false;  // false: its cost model refuses the matrix (note says why); never picked
  double spmv_ms = 0;       // predicted time of one product
  double convert_ms = 0;    // predicted plan (conversion, upload) time
  std::string note;         // why it was ruled out or how it was costed
};

// One (kernel, ordering) candidate that kernel "auto" timed while tuning.
struct MeasuredCandidate {
  std::string kernel;
  std::string ordering;       // "none", "rcm", "hubsort"
  double predicted_ms = 0;    // the cost model's time of one product (gather and scatter included)
  double measured_ms = 0;     // median of the timed products (0: not measured, note says why)
  std::string note;
};

struct Selection {
  std::string kernel;                      // the registry name picked
  PlanOptions options;                     // its parameters (threads, hack size, ...)
  std::string reason;                      // one line a user can read: which statistics decided
  std::vector<KernelEstimate> candidates;  // every candidate considered, best first
  double copy_gbs = 0;                     // the copy bandwidth the predictions divide by
  // Filled by Plan<T> (spkit/plan.hpp) for kernel "auto"; select_kernel leaves the defaults.
  std::string ordering = "none";           // the renumbering the plan keeps
  std::string ordering_reason;             // why that one (or why none)
  double reorder_ms = 0;                   // computing orderings and P A P^T (the kept one or not)
  std::string tuning = "model";            // "model" or "measure": how the pick was made
  double tuning_ms = 0;                    // wall time spent measuring (0 in model mode)
  double tuning_budget_ms = 0;             // the bound it ran under
  // The candidates timed, in the cost model's order (measured[0] is the model's first pick), so a bench
  // can count how often the model's pick was the measured best.
  std::vector<MeasuredCandidate> measured;
};

// Picks the kernel of settings.backend with the lowest conversion time + expected_products x predicted
// time of one product in `precision`. Throws spkit::Error on bad settings, NotApplicable when no kernel
// with a cost model applies.
Selection select_kernel(const MatrixStats& stats, const PlanSettings& settings, Precision precision);
// The same from the matrix itself (statistics computed here), in the matrix's precision.
template <class T>
Selection select_kernel(const Csr<T>& a, const PlanSettings& settings);

}  // namespace spkit
