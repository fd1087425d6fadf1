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
// expected_products; `kernel` is the Plan's business ("auto" asks the selector).
struct PlanSettings {
  std::string kernel = "auto";           // "auto" or a registry name for `backend`
  Backend backend = Backend::cpu;
  int threads = 0;                       // CPU threads (0: all the process may use)
  int device = 0;                        // CUDA device ordinal
  std::int64_t expected_products = 100;  // how many products the caller will run with this plan
};

struct KernelEstimate {
  std::string kernel;
  bool applicable = false;  // false: its cost model refuses the matrix (note says why); never picked
  double spmv_ms = 0;       // predicted time of one product
  double convert_ms = 0;    // predicted plan (conversion, upload) time
  std::string note;         // why it was ruled out or how it was costed
};

struct Selection {
  std::string kernel;                      // the registry name picked
  PlanOptions options;                     // its parameters (threads, hack size, ...)
  std::string reason;                      // one line a user can read: which statistics decided
  std::vector<KernelEstimate> candidates;  // every candidate considered, best first
};

// Picks the kernel of settings.backend with the lowest conversion time + expected_products x predicted
// time of one product in `precision`. Throws spkit::Error on bad settings, NotApplicable when no kernel
// with a cost model applies.
Selection select_kernel(const MatrixStats& stats, const PlanSettings& settings, Precision precision);
// The same from the matrix itself (statistics computed here), in the matrix's precision.
template <class T>
Selection select_kernel(const Csr<T>& a, const PlanSettings& settings);

}  // namespace spkit
