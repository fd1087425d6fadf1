// CPU SELL-C-sigma kernels (Kreutzer et al.): serial and OpenMP (schedule(guided) over slices), each with 32-bit or
// 16-bit delta column indices. A slice is accumulated column by column into a local buffer of C sums
// (vectorised across the slice's rows), then written to y through the permutation and the alpha/beta
// epilogue.
#include <omp.h>

#include <string>
#include <vector>

#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/sell.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

template <class T>
std::string sell_detail(const Sell<T>& s) {
  const double slots = static_cast<double>(s.slots());
  return "C " + std::to_string(s.slice_height) + ", sigma " + std::to_string(s.sigma) + ", padding " +
         cpu::percent(slots - s.nnz, slots) + ", " + std::to_string(s.slices_16bit()) + "/" +
         std::to_string(s.slices()) + " slices 16-bit";
}
template <class T>
std::uint64_t sell_moved(const Sell<T>& s) {
  return s.spmv_bytes() + static_cast<std::uint64_t>(s.rows + s.cols) * sizeof(T);
}

// One slice: acc[r] (and col[r], the 16-bit chain) are the caller's scratch of C entries.
template <class T, class Out>
void sell_slice(const Sell<T>& s, std::int64_t slice, const T* __restrict x, T* __restrict y, T* __restrict acc,
                std::int64_t* __restrict col, Out out) {
  const std::int64_t c = s.slice_height, w = s.slice_width[slice];
  const T* __restrict val = s.values.data() + s.slice_offset[slice];
  const std::int32_t base = s.slice_col_base[slice];
  for (std::int64_t r = 0; r < c; ++r) acc[r] = T(0), col[r] = base;
  if (base >= 0) {
    const std::uint16_t* __restrict d = s.col_delta16.data() + s.slice_col_offset[slice];
    for (std::int64_t k = 0; k < w; ++k) {
#pragma omp simd
      for (std::int64_t r = 0; r < c; ++r) {
        col[r] += d[k * c + r];
        acc[r] += val[k * c + r] * x[col[r]];
      }
    }
  } else {
    const std::int32_t* __restrict ci = s.col_idx32.data() + s.slice_col_offset[slice];
    for (std::int64_t k = 0; k < w; ++k) {
#pragma omp simd
      for (std::int64_t r = 0; r < c; ++r) acc[r] += val[k * c + r] * x[ci[k * c + r]];
    }
  }
  const std::int64_t first = slice * c, n = std::min(c, s.rows - first);
  for (std::int64_t r = 0; r < n; ++r) out.write(y[s.perm.empty() ? first + r : s.perm[first + r]], acc[r]);
}

template <class T, SellIndex I>
class SellSerial : public CpuSpmvPlan<T> {
 public:
  SellSerial(const Csr<T>& a, const PlanOptions& o)
      : s_(csr_to_sell(a, I, o.hack_size, kSellDefaultSigma, FormatLimits{o.memory_budget_bytes})),
        acc_(static_cast<std::size_t>(s_.slice_height)), col_(acc_.size()) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      for (std::int64_t sl = 0; sl < s_.slices(); ++sl) sell_slice(s_, sl, x, y, acc_.data(), col_.data(), out);
    });
  }
  std::uint64_t bytes_moved() const override { return sell_moved(s_); }
  std::string detail() const override { return sell_detail(s_); }

 private:
  Sell<T> s_;
  std::vector<T> acc_;
  std::vector<std::int64_t> col_;
};

template <class T, SellIndex I>
class SellOmp : public CpuSpmvPlan<T> {
 public:
  SellOmp(const Csr<T>& a, const PlanOptions& o)
      : s_(csr_to_sell(a, I, o.hack_size, kSellDefaultSigma, FormatLimits{o.memory_budget_bytes})),
        threads_(cpu::plan_threads(o.threads)),
        stride_(static_cast<std::size_t>(s_.slice_height) + kPad),
        acc_(static_cast<std::size_t>(threads_) * stride_),
        col_(acc_.size()) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const std::int64_t slices = s_.slices();
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel num_threads(threads_)
      {
        const std::size_t at = static_cast<std::size_t>(omp_get_thread_num()) * stride_;
#pragma omp for schedule(guided)
        for (std::int64_t sl = 0; sl < slices; ++sl)
          sell_slice(s_, sl, x, y, acc_.data() + at, col_.data() + at, out);
      }
    });
  }
  std::uint64_t bytes_moved() const override { return sell_moved(s_); }
  std::string detail() const override { return sell_detail(s_); }

 private:
  static constexpr int kPad = 8;  // keeps the threads' scratch on separate cache lines
  Sell<T> s_;
  int threads_;
  std::size_t stride_;
  std::vector<T> acc_;
  std::vector<std::int64_t> col_;
};

template <class T> using SellSerialC32 = SellSerial<T, SellIndex::c32>;
template <class T> using SellSerialDelta16 = SellSerial<T, SellIndex::delta16>;
template <class T> using SellOmpC32 = SellOmp<T, SellIndex::c32>;
template <class T> using SellOmpDelta16 = SellOmp<T, SellIndex::delta16>;

}  // namespace

void register_cpu_sell_kernels(Registry& reg) {
  {
    KernelInfo k;
    k.name = "cpu.sell.serial.c32";
    k.format = Format::sell;
    k.backend = Backend::cpu;
    k.description = "serial SELL-C-sigma (Kreutzer et al.; C = hack size, sigma 1024), 32-bit column indices";
    add_kernel<SellSerialC32>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.sell.serial.delta16";
    k.format = Format::sell;
    k.backend = Backend::cpu;
    k.description = "serial SELL-C-sigma (Kreutzer et al.), 16-bit column deltas per slice where they fit";
    add_kernel<SellSerialDelta16>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.sell.omp.c32";
    k.format = Format::sell;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP SELL-C-sigma (Kreutzer et al.), schedule(guided) over slices, 32-bit column indices";
    add_kernel<SellOmpC32>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.sell.omp.delta16";
    k.format = Format::sell;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP SELL-C-sigma (Kreutzer et al.), schedule(guided) over slices, 16-bit column deltas";
    add_kernel<SellOmpDelta16>(reg, std::move(k));
  }
}

}  // namespace spkit
