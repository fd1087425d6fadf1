// CPU HLL kernels (Monakov et al.'s sliced / hacked ELLPACK): serial row-major and column-major within a
// hack, OpenMP schedule(guided) over hacks.
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/hll.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

template <class T>
std::string hll_detail(const Hll<T>& h) {
  const double slots = static_cast<double>(h.col_idx.size());
  return "hack size " + std::to_string(h.hack_size) + ", padding " + cpu::percent(slots - h.nnz, slots) +
         (h.layout == Layout::row_major ? ", row-major" : ", column-major");
}
template <class T>
std::uint64_t hll_moved(const Hll<T>& h) {
  return h.memory_bytes() + static_cast<std::uint64_t>(h.rows + h.cols) * sizeof(T);
}

// One hack, row-major: each row's inner product over the hack width.
template <class T, class Out>
void hack_row_major(const Hll<T>& h, std::int64_t hk, const T* __restrict x, T* __restrict y, Out out) {
  const std::int64_t r0 = hk * h.hack_size, hr = std::min<std::int64_t>(h.hack_size, h.rows - r0);
  const std::int64_t w = h.hack_width[hk], base = h.hack_offset[hk];
  const std::int32_t* col = h.col_idx.data() + base;
  const T* val = h.values.data() + base;
  for (std::int64_t r = 0; r < hr; ++r) out.write(y[r0 + r], cpu::row_dot(val, col, r * w, r * w + w, x));
}

// One hack, column-major: accumulate the hack's rows together, column by column (vectorised across
// rows), in a local buffer so y is written once.
template <class T, class Out>
void hack_col_major(const Hll<T>& h, std::int64_t hk, const T* __restrict x, T* __restrict y, T* __restrict acc,
                    Out out) {
  const std::int64_t r0 = hk * h.hack_size, hr = std::min<std::int64_t>(h.hack_size, h.rows - r0);
  const std::int64_t w = h.hack_width[hk], base = h.hack_offset[hk];
  const std::int32_t* __restrict col = h.col_idx.data() + base;
  const T* __restrict val = h.values.data() + base;
  for (std::int64_t r = 0; r < hr; ++r) acc[r] = T(0);
  for (std::int64_t k = 0; k < w; ++k) {
#pragma omp simd
    for (std::int64_t r = 0; r < hr; ++r) acc[r] += val[k * hr + r] * x[col[k * hr + r]];
  }
  for (std::int64_t r = 0; r < hr; ++r) out.write(y[r0 + r], acc[r]);
}

template <class T>
class HllSerialRowMajor : public CpuSpmvPlan<T> {
 public:
  HllSerialRowMajor(const Csr<T>& a, const PlanOptions& o)
      : h_(csr_to_hll(a, o.hack_size, Layout::row_major, FormatLimits{o.memory_budget_bytes})) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      for (std::int64_t hk = 0; hk < h_.hacks(); ++hk) hack_row_major(h_, hk, x, y, out);
    });
  }
  std::uint64_t bytes_moved() const override { return hll_moved(h_); }
  std::string detail() const override { return hll_detail(h_); }

 private:
  Hll<T> h_;
};

template <class T>
class HllSerialColMajor : public CpuSpmvPlan<T> {
 public:
  HllSerialColMajor(const Csr<T>& a, const PlanOptions& o)
      : h_(csr_to_hll(a, o.hack_size, Layout::col_major, FormatLimits{o.memory_budget_bytes})),
        acc_(static_cast<std::size_t>(h_.hack_size)) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      for (std::int64_t hk = 0; hk < h_.hacks(); ++hk) hack_col_major(h_, hk, x, y, acc_.data(), out);
    });
  }
  std::uint64_t bytes_moved() const override { return hll_moved(h_); }
  std::string detail() const override { return hll_detail(h_); }

 private:
  Hll<T> h_;
  std::vector<T> acc_;
};

template <class T>
class HllOmpGuided : public CpuSpmvPlan<T> {
 public:
  HllOmpGuided(const Csr<T>& a, const PlanOptions& o)
      : h_(csr_to_hll(a, o.hack_size, Layout::col_major, FormatLimits{o.memory_budget_bytes})),
        threads_(cpu::plan_threads(o.threads)),
        acc_(static_cast<std::size_t>(threads_) * static_cast<std::size_t>(h_.hack_size + kPad)) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t hacks = h_.hacks();
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel num_threads(threads_)
      {
        T* acc = acc_.data() + static_cast<std::size_t>(omp_get_thread_num()) * (h_.hack_size + kPad);
#pragma omp for schedule(guided)
        for (std::int64_t hk = 0; hk < hacks; ++hk) hack_col_major(h_, hk, x, y, acc, out);
      }
    });
  }
  std::uint64_t bytes_moved() const override { return hll_moved(h_); }
  std::string detail() const override { return hll_detail(h_); }

 private:
  static constexpr int kPad = 64 / sizeof(T);  // keeps the threads' buffers on separate cache lines
  Hll<T> h_;
  int threads_;
  std::vector<T> acc_;
};

// Cost model of cpu.hll.omp.guided (column-major hacks): efficiency from docs/perf/selector.md.
CostEstimate hll_omp_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  if (o.hack_size != s.hack_size) return cost::not_applicable("statistics are for another hack size");
  if (s.hll_padding_ratio > 1.0)
    return cost::not_applicable("HLL padding " + cost::percent(s.hll_padding_ratio) + " of the non-zeros");
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_hll, p) + cost::vector_bytes(s, p);
  e.efficiency = cost::with_gathers(tuning::kHllOmpEfficiency, e.bytes, s, Backend::cpu);
  e.launch_us = tuning::kCpuForkJoinUs + tuning::kCpuPerThreadUs * o.threads;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_hll, p);
  e.note = "hack " + std::to_string(s.hack_size) + ", padding " + cost::percent(s.hll_padding_ratio);
  return e;
}

}  // namespace

void register_cpu_hll_kernels(Registry& reg) {
  {
    KernelInfo k;
    k.name = "cpu.hll.serial.row_major";
    k.format = Format::hll;
    k.backend = Backend::cpu;
    k.description = "serial HLL (Monakov et al.'s hacked ELLPACK), row-major within each hack";
    add_kernel<HllSerialRowMajor>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.hll.serial.col_major";
    k.format = Format::hll;
    k.backend = Backend::cpu;
    k.description = "serial HLL (Monakov et al.'s hacked ELLPACK), column-major within each hack, vectorised "
                    "across rows";
    add_kernel<HllSerialColMajor>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.hll.omp.guided";
    k.format = Format::hll;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP HLL (Monakov et al.'s hacked ELLPACK), column-major hacks, schedule(guided) over hacks";
    k.cost = hll_omp_cost;
    add_kernel<HllOmpGuided>(reg, std::move(k));
  }
}

}  // namespace spkit
