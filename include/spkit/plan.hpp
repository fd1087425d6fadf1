#pragma once
// The plan-once library API: build a Plan once from a CSR matrix (format, kernel and device buffers
// chosen by the auto-selector or named), then run y = alpha*A*x + beta*y as many times as needed, on
// host or device pointers, in float or double.
//
//   spkit::Csr<double> a = spkit::load_matrix("A.mtx");
//   spkit::PlanSettings settings;
//   settings.backend = spkit::Backend::cuda;   // kernel "auto" (the default) or a registry name
//   settings.expected_products = 500;
//   spkit::Plan<double> plan(a, settings);
//   plan.apply(x, y);                    // y = A x       (x, y host or device pointers)
//   plan.apply(x, y, 2.0, 1.0);          // y = 2 A x + y
//
// The selector (select_kernel) reads cheap statistics of the matrix (spkit/stats.hpp) and the number of
// products the caller expects, so that a conversion that costs more than it saves is not chosen.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

namespace spkit {

struct SelectOptions {
  Backend backend = Backend::cpu;
  Precision precision = Precision::f64;
  int threads = 0;                       // CPU threads (0: all the process may use)
  int device = 0;                        // CUDA device ordinal
  std::int64_t expected_products = 100;  // how many products the caller will run with this plan
};

struct KernelEstimate {
  std::string kernel;
  bool applicable = false;  // false: its cost model refuses the matrix (note says why); never picked
  double spmv_ms = 0;     // predicted time of one product
  double convert_ms = 0;  // predicted plan (conversion, upload) time
  std::string note;       // why it was ruled out or how it was costed
};

struct Selection {
  std::string kernel;                    // the registry name picked
  PlanOptions options;                   // its parameters (threads, hack size, ...)
  std::string reason;                    // one line a user can read: which statistics decided
  std::vector<KernelEstimate> candidates;  // every candidate considered, best first
};

// Picks format, kernel and parameters from the matrix's statistics without running any kernel.
Selection select_kernel(const MatrixStats& stats, const SelectOptions& opts);
template <class T>
Selection select_kernel(const Csr<T>& a, const SelectOptions& opts);

struct PlanSettings {
  std::string kernel = "auto";           // "auto" or a registry name for `backend`
  Backend backend = Backend::cpu;
  int threads = 0;                       // CPU threads (0: all the process may use)
  int device = 0;
  std::int64_t expected_products = 100;  // passed to the selector
};

template <class T>
class Plan {
 public:
  // Converts, partitions and uploads once. Throws spkit::Error (NotApplicable, TooLarge, DeviceError)
  // with a message a user can act on.
  Plan(const Csr<T>& a, const PlanSettings& settings = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // y = alpha*A*x + beta*y. x has cols() and y rows() elements. For a CUDA plan, x and y may be host
  // or device pointers (both of one kind); for a CPU plan they must be host pointers. With beta == 0,
  // y is not read (it may hold NaN).
  void apply(const T* x, T* y, T alpha = T(1), T beta = T(0));

  std::int64_t rows() const;
  std::int64_t cols() const;
  const std::string& kernel() const;       // the registry name running
  Backend backend() const;
  const Selection& selection() const;      // why this kernel (for "auto"; the named kernel otherwise)
  double plan_ms() const;                  // wall time of the constructor
  std::uint64_t bytes_moved() const;       // per product, as the kernel counts them

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spkit
