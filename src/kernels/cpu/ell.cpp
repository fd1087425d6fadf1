// CPU ELLPACK kernels: row order over a row-major ELL, column order over a column-major ELL (the two
// loop orders compared), and OpenMP schedule(static) over rows.
#include <omp.h>

#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/ell.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

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
template <class T, class Out>
void ell_rows(const Ell<T>& e, std::int64_t r0, std::int64_t r1, const T* __restrict x, T* __restrict y, Out out) {
  const std::int64_t w = e.width;
  const std::int32_t* __restrict col = e.col_idx.data();
  const T* __restrict val = e.values.data();
  for (std::int64_t i = r0; i < r1; ++i) out.write(y[i], cpu::row_dot(val, col, i * w, i * w + w, x));
}

template <class T>
class EllSerialRowOrder : public CpuSpmvPlan<T> {
 public:
  EllSerialRowOrder(const Csr<T>& a, const PlanOptions& o)
      : e_(csr_to_ell(a, Layout::row_major, FormatLimits{o.memory_budget_bytes})) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) { ell_rows(e_, 0, e_.rows, x, y, out); });
  }
  std::uint64_t bytes_moved() const override { return ell_moved(e_); }
  std::string detail() const override { return ell_detail(e_) + ", row-major"; }

 private:
  Ell<T> e_;
};

// Column-major ELL walked column by column: sum[i] += A(i, k) x over all rows for each k, so the inner
// loop runs over consecutive rows (unit-stride values and indices, vectorised across rows). The sums
// build up in y itself when beta == 0 (y is only output), else in the plan's own array, so that y keeps
// beta's input until the last column writes it.
template <class T>
class EllSerialColOrder : public CpuSpmvPlan<T> {
 public:
  EllSerialColOrder(const Csr<T>& a, const PlanOptions& o)
      : e_(csr_to_ell(a, Layout::col_major, FormatLimits{o.memory_budget_bytes})) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      if constexpr (decltype(out)::reads_y) {
        if (e_.width > 1 && acc_.size() != static_cast<std::size_t>(e_.rows))
          acc_.resize(static_cast<std::size_t>(e_.rows));
        run_with(x, y, acc_.data(), out);
      } else if constexpr (decltype(out)::kind == cpu::EpilogueKind::scale) {
        run_with(x, y, nullptr, out);
      } else {
        sum_all_columns(x, y);
      }
    });
  }
  std::uint64_t bytes_moved() const override {
    // y is read and written once per column in this loop order; count the format's bytes honestly
    // (x once, y once) as for every kernel: the extra y traffic is the point of the comparison.
    return ell_moved(e_);
  }
  std::string detail() const override { return ell_detail(e_) + ", column-major"; }

 private:
  // y = A x: y cleared, then every column added to it. Kept apart from run_with: the same loops with the
  // last column peeled off (where the epilogue goes) measured 25-30% slower here (lap3d, 1 thread).
  void sum_all_columns(const T* __restrict x, T* __restrict y) {
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
  // The sums of the columns before the last build up in `acc` (null when beta == 0: then in y itself),
  // cleared first and every column added (a first column that assigns measured slower).
  template <class Out>
  void run_with(const T* __restrict x, T* __restrict y, T* __restrict acc, Out out) {
    const std::int64_t rows = e_.rows, w = e_.width;
    const std::int32_t* __restrict col = e_.col_idx.data();
    const T* __restrict val = e_.values.data();
    if (w == 0) {
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], T(0));
      return;
    }
    const std::int32_t* __restrict cl = col + (w - 1) * rows;  // the last column writes y
    const T* __restrict vl = val + (w - 1) * rows;
    if (w == 1) {  // no sums before the last column
#pragma omp simd
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], vl[i] * x[cl[i]]);
      return;
    }
    T* sums = acc ? acc : y;  // may be y: not __restrict
    for (std::int64_t i = 0; i < rows; ++i) sums[i] = T(0);
    for (std::int64_t k = 0; k + 1 < w; ++k) {
      const std::int32_t* __restrict ck = col + k * rows;
      const T* __restrict vk = val + k * rows;
#pragma omp simd
      for (std::int64_t i = 0; i < rows; ++i) sums[i] += vk[i] * x[ck[i]];
    }
    if (acc) {
#pragma omp simd
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], acc[i] + vl[i] * x[cl[i]]);
    } else {
#pragma omp simd
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], y[i] + vl[i] * x[cl[i]]);
    }
  }

  Ell<T> e_;
  std::vector<T> acc_;  // with beta != 0: sums over the columns before the last (made on first need)
};

template <class T>
class EllOmp : public CpuSpmvPlan<T> {
 public:
  EllOmp(const Csr<T>& a, const PlanOptions& o)
      : e_(csr_to_ell(a, Layout::row_major, FormatLimits{o.memory_budget_bytes})), threads_(cpu::plan_threads(o.threads)) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t rows = e_.rows, w = e_.width;
    const std::int32_t* __restrict col = e_.col_idx.data();
    const T* __restrict val = e_.values.data();
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], cpu::row_dot(val, col, i * w, i * w + w, x));
    });
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
  e.efficiency = cost::with_gathers(tuning::kEllOmpEfficiency, e.bytes, s, Backend::cpu);
  e.launch_us = tuning::kCpuForkJoinUs + tuning::kCpuPerThreadUs * o.threads;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_ell, p);
  e.note = "width " + std::to_string(s.ell_width) + ", padding " + cost::percent(s.ell_padding_ratio);
  return e;
}

}  // namespace

void register_cpu_ell_kernels(Registry& reg) {
  {
    KernelInfo k;
    k.name = "cpu.ell.serial.row_order";
    k.format = Format::ell;
    k.backend = Backend::cpu;
    k.description = "serial ELLPACK, row-major, row by row";
    add_kernel<EllSerialRowOrder>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.ell.serial.col_order";
    k.format = Format::ell;
    k.backend = Backend::cpu;
    k.description = "serial ELLPACK, column-major, column by column over all rows";
    add_kernel<EllSerialColOrder>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.ell.omp";
    k.format = Format::ell;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP ELLPACK, row-major, schedule(static) over rows";
    k.cost = ell_omp_cost;
    add_kernel<EllOmp>(reg, std::move(k));
  }
}

}  // namespace spkit
