// CPU HYB kernel (Bell & Garland's ELL + COO hybrid): first the COO overflow, each row's entries summed
// into one value (rows in COO order, split between the threads at row boundaries at plan time, so no two
// threads touch the same row); then the column-major ELL part in row tiles (vectorised across rows),
// which adds each row's COO sum before writing y once: alpha and beta meet every row exactly once.
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/hyb.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

constexpr std::int64_t kTile = 512;  // rows accumulated together in the ELL part

template <class T>
class HybOmp : public CpuSpmvPlan<T> {
 public:
  HybOmp(const Csr<T>& a, const PlanOptions& o)
      : h_(csr_to_hyb(a, -1, FormatLimits{o.memory_budget_bytes})), threads_(cpu::plan_threads(o.threads)) {
    // The rows holding COO entries, in order, and where each one's entries start.
    const std::int64_t n = h_.coo.nnz();
    for (std::int64_t k = 0; k < n; ++k)
      if (k == 0 || h_.coo.row_idx[k] != h_.coo.row_idx[k - 1]) {
        coo_rows_.push_back(h_.coo.row_idx[k]);
        coo_row_start_.push_back(k);
      }
    coo_row_start_.push_back(n);
    const std::int64_t m = static_cast<std::int64_t>(coo_rows_.size());
    coo_sum_.assign(static_cast<std::size_t>(m), T(0));
    // Thread shares of those rows with balanced entry counts.
    coo_cut_.push_back(0);
    for (int p = 1; p < threads_; ++p) {
      const std::int64_t target = n * p / threads_;
      const std::int64_t r = std::lower_bound(coo_row_start_.begin(), coo_row_start_.end() - 1, target) -
                             coo_row_start_.begin();
      coo_cut_.push_back(std::max(coo_cut_.back(), r));
    }
    coo_cut_.push_back(m);
    // For each ELL tile, the first of its rows holding COO entries.
    const std::int64_t tiles = (h_.ell.rows + kTile - 1) / kTile;
    tile_coo_begin_.resize(static_cast<std::size_t>(tiles) + 1);
    for (std::int64_t t = 0; t <= tiles; ++t)
      tile_coo_begin_[t] = std::lower_bound(coo_rows_.begin(), coo_rows_.end(), std::min(t * kTile, h_.ell.rows)) -
                           coo_rows_.begin();
  }
  void run(T alpha, const T* __restrict x, T beta, T* __restrict y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) { run_with(x, y, out); });
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
  template <class Out>
  void run_with(const T* __restrict x, T* __restrict y, Out out) {
    const Ell<T>& e = h_.ell;
    const std::int64_t rows = e.rows, w = e.width, tiles = (rows + kTile - 1) / kTile;
    const std::int32_t* __restrict col = e.col_idx.data();
    const T* __restrict val = e.values.data();
    const std::int32_t* __restrict ccol = h_.coo.col_idx.data();
    const T* __restrict cval = h_.coo.values.data();
    const std::int64_t* __restrict cstart = coo_row_start_.data();
    const std::int32_t* __restrict crow = coo_rows_.data();
    T* __restrict csum = coo_sum_.data();
    const int shares = static_cast<int>(coo_cut_.size()) - 1;
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int s = omp_get_thread_num(); s < shares; s += nt)
        for (std::int64_t q = coo_cut_[s]; q < coo_cut_[s + 1]; ++q) {
          T sum = 0;
          for (std::int64_t k = cstart[q]; k < cstart[q + 1]; ++k) sum += cval[k] * x[ccol[k]];
          csum[q] = sum;
        }
#pragma omp barrier
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
        for (std::int64_t q = tile_coo_begin_[t]; q < tile_coo_begin_[t + 1]; ++q) acc[crow[q] - r0] += csum[q];
        for (std::int64_t r = 0; r < n; ++r) out.write(y[r0 + r], acc[r]);
      }
    }
  }

  Hyb<T> h_;
  int threads_;
  std::vector<std::int32_t> coo_rows_;       // rows holding COO entries, ascending
  std::vector<std::int64_t> coo_row_start_;  // their first COO entry (one more: the end)
  std::vector<std::int64_t> coo_cut_;        // thread shares of coo_rows_
  std::vector<std::int64_t> tile_coo_begin_;  // per ELL tile, its first entry of coo_rows_
  std::vector<T> coo_sum_;                   // per entry of coo_rows_: its COO sum of this product
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
      static_cast<double>(e.bytes) /
          (ell_bytes / tuning::kHybOmpEllEfficiency + coo_bytes / tuning::kHybOmpCooEfficiency), e.bytes, s,
      Backend::cpu);
  e.launch_us = tuning::kCpuForkJoinUs + tuning::kCpuPerThreadUs * o.threads;
  e.convert_bytes = cost::in(s.bytes_csr, p) + cost::in(s.bytes_hyb, p);
  e.note = "ELL width " + std::to_string(s.hyb_width) + ", COO " + std::to_string(s.hyb_coo_entries) + " entries";
  return e;
}

}  // namespace

void register_cpu_hyb_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "cpu.hyb.omp";
  k.format = Format::hyb;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.description = "OpenMP HYB (Bell & Garland's ELL + COO): column-major ELL part in row tiles, COO overflow "
                  "summed per row, split at row boundaries";
  k.cost = hyb_omp_cost;
  add_kernel<HybOmp>(reg, std::move(k));
}

}  // namespace spkit
