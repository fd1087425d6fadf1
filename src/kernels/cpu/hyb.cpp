// CPU HYB kernel (seed 001): the column-major ELL part in row tiles (vectorised across rows), then the
// COO overflow, both in parallel; the COO share of each thread is cut at row boundaries at plan time so
// no two threads update the same y entry.
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/hyb.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

// Fractions of copy bandwidth cpu.hyb.omp reaches over the bytes of its two parts: its ELL part runs at
// about 0.55x of cpu.hll.omp.guided per byte in the interleaved 1-thread runs of docs/perf/selector.md;
// the COO part is a scalar scatter (power-law: 2x slower than CSR).
constexpr double kHybOmpEllEfficiency = 0.5;
constexpr double kHybOmpCooEfficiency = 0.3;

constexpr std::int64_t kTile = 512;  // rows accumulated together in the ELL part

template <class T>
class HybOmp : public CpuSpmvPlan<T> {
 public:
  HybOmp(const Csr<T>& a, const PlanOptions& o)
      : h_(csr_to_hyb(a, -1, FormatLimits{o.memory_budget_bytes})), threads_(cpu::plan_threads(o.threads)) {
    const std::int64_t n = h_.coo.nnz();
    coo_cut_.push_back(0);
    for (int p = 1; p < threads_; ++p) {
      std::int64_t c = std::max(coo_cut_.back(), n * p / threads_);
      while (c > 0 && c < n && h_.coo.row_idx[c] == h_.coo.row_idx[c - 1]) ++c;  // to the next row start
      coo_cut_.push_back(c);
    }
    coo_cut_.push_back(n);
  }
  void run(const T* __restrict x, T* __restrict y) override {
    const Ell<T>& e = h_.ell;
    const std::int64_t rows = e.rows, w = e.width, tiles = (rows + kTile - 1) / kTile;
    const std::int32_t* __restrict col = e.col_idx.data();
    const T* __restrict val = e.values.data();
    const std::int32_t* __restrict crow = h_.coo.row_idx.data();
    const std::int32_t* __restrict ccol = h_.coo.col_idx.data();
    const T* __restrict cval = h_.coo.values.data();
    const int shares = static_cast<int>(coo_cut_.size()) - 1;
#pragma omp parallel num_threads(threads_)
    {
      T acc[kTile];
#pragma omp for schedule(static)
      for (std::int64_t t = 0; t < tiles; ++t) {
        const std::int64_t r0 = t * kTile, n = std::min(kTile, rows - r0);
        for (std::int64_t r = 0; r < n; ++r) acc[r] = T(0);
        for (std::int64_t k = 0; k < w; ++k) {
          const std::int32_t* __restrict ck = col + k * rows + r0;
          const T* __restrict vk = val + k * rows + r0;
#pragma omp simd
          for (std::int64_t r = 0; r < n; ++r) acc[r] += vk[r] * x[ck[r]];
        }
        for (std::int64_t r = 0; r < n; ++r) y[r0 + r] = acc[r];
      }  // implicit barrier: the ELL part of y is complete
      const int nt = omp_get_num_threads();
      for (int s = omp_get_thread_num(); s < shares; s += nt)
        for (std::int64_t k = coo_cut_[s]; k < coo_cut_[s + 1]; ++k) y[crow[k]] += cval[k] * x[ccol[k]];
    }
  }
  std::uint64_t bytes_moved() const override {
    return h_.memory_bytes() + static_cast<std::uint64_t>(h_.rows() + h_.cols()) * sizeof(T);
  }
  std::string detail() const override {
    const double slots = static_cast<double>(h_.ell.rows) * static_cast<double>(h_.ell.width);
    return "ELL width " + std::to_string(h_.ell.width) + ", ELL padding " + cpu::percent(slots - h_.ell.nnz, slots) +
           ", " + std::to_string(h_.coo.nnz()) + " COO entries (" +
           cpu::percent(static_cast<double>(h_.coo.nnz()), static_cast<double>(h_.nnz())) + ")";
  }

 private:
  Hyb<T> h_;
  int threads_;
  std::vector<std::int64_t> coo_cut_;
};

// Cost model of cpu.hyb.omp: the ELL part at the ELL kernels' efficiency, the COO part (a scalar
// scatter) at a lower one; both from docs/perf/selector.md.
CostEstimate hyb_omp_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  CostEstimate e;
  e.applicable = true;
  e.bytes = cost::in(s.bytes_hyb, p) + cost::vector_bytes(s, p);
  const double coo_bytes = static_cast<double>(s.hyb_coo_entries) * static_cast<double>(8 + cost::value_bytes(p));
  const double ell_bytes = static_cast<double>(e.bytes) - coo_bytes;
  e.efficiency = cost::with_gathers(
      static_cast<double>(e.bytes) / (ell_bytes / kHybOmpEllEfficiency + coo_bytes / kHybOmpCooEfficiency), e.bytes, s,
      Backend::cpu);
  e.launch_us = 2 + 0.5 * o.threads;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_hyb, p);
  e.note = "ELL width " + std::to_string(s.hyb_width) + ", COO " + std::to_string(s.hyb_coo_entries) + " entries";
  return e;
}

}  // namespace

void register_cpu_hyb_kernels(Registry& reg) {
  add_kernel<HybOmp>(reg, "cpu.hyb.omp", Format::hyb, Backend::cpu, true,
                     "OpenMP HYB: column-major ELL part in row tiles, COO overflow split at row boundaries (seed 001)",
                     false, hyb_omp_cost);
}

}  // namespace spkit
