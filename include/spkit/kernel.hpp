#pragma once
// The SpMV kernel contract and its registry. A kernel separates planning (conversion, partitioning,
// upload, workspace: its constructor) from running (run: the product and nothing else), so a plan is
// made once and run many times, and whoever measures it (the harness, src/harness) times run() alone.
// Everything that lists or runs kernels (spkit kernels, spkit spmv, spkit bench, the tests, the
// auto-selector) iterates registry(); there is no second list anywhere.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/precision.hpp"
#include "spkit/registry.hpp"

namespace spkit {

enum class Format { coo, csr, ell, hll, hyb, bmsparse, sell, bsr, rsb, dia };
enum class Backend { cpu, cuda };

std::string_view to_string(Format f);
std::string_view to_string(Backend b);

// A CUDA stream as an opaque handle (a cudaStream_t), so that public headers need no CUDA. The null
// handle is the legacy default stream.
struct Stream {
  void* handle = nullptr;
};

// What a plan is made with. Fields a kernel doesn't use are ignored.
struct PlanOptions {
  int threads = 1;                     // OpenMP threads for parallel CPU kernels (fixed at plan time)
  int hack_size = 32;                  // HLL hack size
  std::uint64_t memory_budget_bytes = 0;  // 0: available memory; formats over it throw TooLarge
  int device = 0;                      // CUDA device ordinal
};

// One SpMV prepared for one matrix (format converted, work partitioned, arrays uploaded).
template <class T>
class SpmvPlan {
 public:
  virtual ~SpmvPlan() = default;
  // y = alpha*A*x + beta*y. x (cols elements) and y (rows) live in the kernel's memory space: host memory
  // for CPU kernels, device memory for CUDA kernels. With beta == 0, y is only written, never read (it may
  // hold NaN). CUDA kernels enqueue their work on `stream` and return without synchronizing; CPU kernels
  // run on the threads fixed at plan time (PlanOptions::threads), return when y is written and ignore
  // `stream`.
  virtual void run(T alpha, const T* x, T beta, T* y, Stream stream) = 0;
  virtual Backend backend() const = 0;
  // Bytes this format must move per product (matrix arrays read once, x read once, y written once),
  // counted honestly: padding included, repeated x gathers not.
  virtual std::uint64_t bytes_moved() const = 0;
  // Free-form remark for tables ("ELL width 27", "hack size 32"), may be empty.
  virtual std::string detail() const { return {}; }
  // The part of the plan time a vendor library spends preprocessing on its own (mkl_sparse_optimize),
  // reported in its own column; 0 when there is none.
  virtual double optimize_ms() const { return 0; }
};

// Base of host kernels.
template <class T>
class CpuSpmvPlan : public SpmvPlan<T> {
 public:
  Backend backend() const final { return Backend::cpu; }
};

template <class T>
using PlanFactory = std::function<std::unique_ptr<SpmvPlan<T>>(const Csr<T>& a, const PlanOptions& opts)>;

struct MatrixStats;  // spkit/stats.hpp

// What the auto-selector (spkit/select.hpp: select_kernel) knows of a kernel on a matrix without running
// it: the bytes one product moves in this kernel's own format, and the fraction of the device's
// measured copy bandwidth this kernel reaches on such a matrix (from measurements: docs/perf/).
// Predicted time = bytes / (efficiency * copy bandwidth) + launch_us. Kernels with no cost model are
// never picked by "auto" (baselines, kernels kept for comparison).
struct CostEstimate {
  bool applicable = false;        // false: the kernel refuses or is pointless on this matrix
  std::uint64_t bytes = 0;        // bytes one product moves (format arrays, x, y), honestly counted
  double efficiency = 1.0;        // expected fraction of copy bandwidth (0..~1.05)
  double launch_us = 5.0;         // fixed cost per product (launches, reductions), microseconds
  std::uint64_t convert_bytes = 0;  // bytes touched to build the format (0: no conversion)
  std::string note;               // why not applicable, or what the estimate assumed
};
using CostModel = std::function<CostEstimate(const MatrixStats& stats, Precision precision, const PlanOptions& opts)>;

struct KernelInfo {
  std::string name;         // stable, dotted: backend.format.variant (e.g. cpu.csr.omp.nnz_balanced)
  Format format = Format::csr;
  Backend backend = Backend::cpu;
  bool parallel = false;    // uses PlanOptions::threads (swept by the benchmark)
  bool comparison = false;  // a vendor/third-party baseline (ref.*, cuda.cusparse.*), benchmark-only
  std::string description;  // one line: what it does, naming the algorithm or paper it follows
  PlanFactory<float> make_f32;
  PlanFactory<double> make_f64;
  CostModel cost;           // optional: lets --kernel auto consider this kernel (see CostEstimate)

  template <class T>
  const PlanFactory<T>& factory() const {
    if constexpr (sizeof(T) == 4) return make_f32; else return make_f64;
  }
};

using Registry = RegistryOf<KernelInfo>;

// The process-wide registry, filled on first use by src/kernels/registry.cpp.
const Registry& registry();

// Registers a kernel whose plan is a class template `Plan<T>` constructible as Plan<T>(csr, options):
// fills info's two factories and adds it. Usage (named fields, no bare flags):
//   KernelInfo k;
//   k.name = "cuda.csr.vector";
//   k.format = Format::csr;
//   k.backend = Backend::cuda;
//   k.description = "warp per row, shuffle reduction (Bell & Garland's CSR-vector)";
//   k.cost = csr_vector_cost;
//   add_kernel<CsrVectorPlan>(reg, std::move(k));
template <template <class> class Plan>
void add_kernel(Registry& reg, KernelInfo info) {
  info.make_f32 = [](const Csr<float>& a, const PlanOptions& o) -> std::unique_ptr<SpmvPlan<float>> {
    return std::make_unique<Plan<float>>(a, o);
  };
  info.make_f64 = [](const Csr<double>& a, const PlanOptions& o) -> std::unique_ptr<SpmvPlan<double>> {
    return std::make_unique<Plan<double>>(a, o);
  };
  reg.add(std::move(info));
}

}  // namespace spkit
