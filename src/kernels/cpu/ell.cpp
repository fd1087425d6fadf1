// CPU ELLPACK kernels (seeds 001/002): row order over a row-major ELL, column order over a column-major
// ELL (the comparison of seed 001), and OpenMP schedule(static) over rows.
#include <omp.h>

#include <string>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/ell.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

// Fraction of copy bandwidth cpu.ell.omp reaches over its own bytes: about 0.6x of cpu.hll.omp.guided
// per byte in the interleaved 1-thread runs of docs/perf/selector.md (row-major ELL gathers row by row).
constexpr double kEllOmpEfficiency = 0.55;

template <class T>
std::uint64_t ell_moved(const Ell<T>& e) {
  return e.memory_bytes() + static_cast<std::uint64_t>(e.rows + e.cols) * sizeof(T);
}
template <class T>
std::string ell_detail(const Ell<T>& e) {
  const double slots = static_cast<double>(e.rows) * static_cast<double>(e.width);
  return "ELL width " + std::to_string(e.width) + ", padding " + cpu::percent(slots - e.nnz, slots);
}

// Row-major ELL, for each row the inner product over its width (contiguous, vectorised gather).
template <class T>
void ell_rows(const Ell<T>& e, std::int64_t r0, std::int64_t r1, const T* __restrict x, T* __restrict y) {
  const std::int64_t w = e.width;
  const std::int32_t* __restrict col = e.col_idx.data();
  const T* __restrict val = e.values.data();
  for (std::int64_t i = r0; i < r1; ++i) y[i] = cpu::row_dot(val, col, i * w, i * w + w, x);
}

template <class T>
class EllSerialRowOrder : public CpuSpmvPlan<T> {
 public:
  EllSerialRowOrder(const Csr<T>& a, const PlanOptions& o)
      : e_(csr_to_ell(a, Layout::row_major, FormatLimits{o.memory_budget_bytes})) {}
  void run(const T* x, T* y) override { ell_rows(e_, 0, e_.rows, x, y); }
  std::uint64_t bytes_moved() const override { return ell_moved(e_); }
  std::string detail() const override { return ell_detail(e_) + ", row-major"; }

 private:
  Ell<T> e_;
};

// Column-major ELL walked column by column: y[i] += A(i, k) x over all rows for each k, so the inner
// loop runs over consecutive rows (unit-stride values and indices, vectorised across rows).
template <class T>
class EllSerialColOrder : public CpuSpmvPlan<T> {
 public:
  EllSerialColOrder(const Csr<T>& a, const PlanOptions& o)
      : e_(csr_to_ell(a, Layout::col_major, FormatLimits{o.memory_budget_bytes})) {}
  void run(const T* __restrict x, T* __restrict y) override {
    const std::int64_t rows = e_.rows, w = e_.width;
    const std::int32_t* __restrict col = e_.col_idx.data();
    const T* __restrict val = e_.values.data();
    for (std::int64_t i = 0; i < rows; ++i) y[i] = T(0);
    for (std::int64_t k = 0; k < w; ++k) {
      const std::int32_t* __restrict ck = col + k * rows;
      const T* __restrict vk = val + k * rows;
#pragma omp simd
      for (std::int64_t i = 0; i < rows; ++i) y[i] += vk[i] * x[ck[i]];
    }
  }
  std::uint64_t bytes_moved() const override {
    // y is read and written once per column in this loop order; count the format's bytes honestly
    // (x once, y once) as for every kernel: the extra y traffic is the point of the comparison.
    return ell_moved(e_);
  }
  std::string detail() const override { return ell_detail(e_) + ", column-major"; }

 private:
  Ell<T> e_;
};

template <class T>
class EllOmp : public CpuSpmvPlan<T> {
 public:
  EllOmp(const Csr<T>& a, const PlanOptions& o)
      : e_(csr_to_ell(a, Layout::row_major, FormatLimits{o.memory_budget_bytes})), threads_(cpu::plan_threads(o.threads)) {}
  void run(const T* x, T* y) override {
    const std::int64_t rows = e_.rows, w = e_.width;
    const std::int32_t* __restrict col = e_.col_idx.data();
    const T* __restrict val = e_.values.data();
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) y[i] = cpu::row_dot(val, col, i * w, i * w + w, x);
  }
  std::uint64_t bytes_moved() const override { return ell_moved(e_); }
  std::string detail() const override { return ell_detail(e_) + ", row-major"; }

 private:
  Ell<T> e_;
  int threads_;
};

// Cost model of cpu.ell.omp (row-major ELL, 32-bit columns): efficiency from the runs in
// docs/perf/selector.md; padding above one slot per entry is pointless.
CostEstimate ell_omp_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  if (s.ell_padding_ratio > 1.0)
    return cost::not_applicable("ELL padding " + cost::percent(s.ell_padding_ratio) + " of the non-zeros");
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_ell, p) + cost::vector_bytes(s, p);
  e.efficiency = cost::with_gathers(kEllOmpEfficiency, e.bytes, s, Backend::cpu);
  e.launch_us = 2 + 0.5 * o.threads;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_ell, p);
  e.note = "width " + std::to_string(s.ell_width) + ", padding " + cost::percent(s.ell_padding_ratio);
  return e;
}

}  // namespace

void register_cpu_ell_kernels(Registry& reg) {
  add_kernel<EllSerialRowOrder>(reg, "cpu.ell.serial.row_order", Format::ell, Backend::cpu, false,
                                "serial ELLPACK, row-major, row by row (seeds 001/002)");
  add_kernel<EllSerialColOrder>(reg, "cpu.ell.serial.col_order", Format::ell, Backend::cpu, false,
                                "serial ELLPACK, column-major, column by column over all rows (seed 001)");
  add_kernel<EllOmp>(reg, "cpu.ell.omp", Format::ell, Backend::cpu, true,
                     "OpenMP ELLPACK, row-major, schedule(static) over rows (seed 002)", false, ell_omp_cost);
}

}  // namespace spkit
