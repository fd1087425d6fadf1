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
// The selector (spkit/select.hpp: select_kernel) reads cheap statistics of the matrix (spkit/stats.hpp)
// and the number of products the caller expects, so that a conversion that costs more than it saves is
// not chosen. Each apply is one kernel run computing alpha*A*x + beta*y directly: no scratch vector, no
// second pass.
#include <cstdint>
#include <memory>
#include <string>

#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/select.hpp"

namespace spkit {

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
  // y is not read (it may hold NaN). Returns when y is written, except for a CUDA plan on device
  // pointers, whose product runs asynchronously on the legacy default stream.
  void apply(const T* x, T* y, T alpha = T(1), T beta = T(0));
  // The same on a CUDA stream (a cudaStream_t in Stream::handle). Device pointers: the product is
  // enqueued on `stream` and apply returns without synchronizing. Host pointers: the copies and the
  // product are enqueued on `stream`, which apply then synchronizes. CPU plans ignore the stream.
  void apply(const T* x, T* y, T alpha, T beta, Stream stream);

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
