// CPU DIA kernels (stencils, bands): the serial reference loop, the tiled OpenMP kernel with register
// blocking, and the symmetric kernel that stores half the diagonals. This is the diagonal path that
// used to live inside cpu.csr.omp.spkit, now a format of its own (formats/dia.hpp); its measurements
// are in docs/perf/cpu.md and docs/perf/cuda-dia-bm.md.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kernels/cpu/cpu_common.hpp"
#include "kernels/cpu/simd_vec.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/dia.hpp"
#include "spkit/kernel.hpp"
#include "kernels/format_costs.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

template <class T>
Dia<T> dia_for_kernel(const Csr<T>& a, const PlanOptions& o, bool symmetric, std::int64_t tile_rows) {
  DiaOptions d;
  d.symmetric = symmetric;
  d.tile_rows = tile_rows;
  d.max_bytes_ratio = kDiaKernelMaxBytesRatio;
  FormatLimits limits;
  limits.memory_budget_bytes = o.memory_budget_bytes;
  return csr_to_dia(a, d, limits);
}

template <class T>
std::uint64_t dia_plan_bytes(std::size_t slots, std::size_t diagonals, std::int64_t rows, std::int64_t cols) {
  return slots * sizeof(T) + diagonals * sizeof(std::int64_t) + static_cast<std::uint64_t>(rows + cols) * sizeof(T);
}

std::string full_detail(std::size_t diagonals, std::size_t slots, std::int64_t nnz) {
  return std::to_string(diagonals) + " diagonals, padding " +
         cpu::percent(static_cast<double>(slots) - static_cast<double>(nnz), static_cast<double>(slots));
}

// Rows whose sums the serial kernel keeps together (8 KB of doubles: stays in L1 across the diagonals).
constexpr std::int64_t kSerialBlockRows = 1024;

// Serial reference: for each block of rows, one pass per diagonal over the rows whose column lies
// inside, then the block's sums written to y.
template <class T>
class DiaSerial : public CpuSpmvPlan<T> {
 public:
  DiaSerial(const Csr<T>& a, const PlanOptions& o) : m_(dia_for_kernel(a, o, false, 0)) {}
  void run(T alpha, const T* __restrict x, T beta, T* __restrict y, Stream) override {
    const std::int64_t rows = m_.rows, cols = m_.cols;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      T acc[kSerialBlockRows];
      for (std::int64_t r0 = 0; r0 < rows; r0 += kSerialBlockRows) {
        const std::int64_t n = std::min(kSerialBlockRows, rows - r0);
        for (std::int64_t r = 0; r < n; ++r) acc[r] = T(0);
        for (std::int64_t k = 0; k < m_.diagonals(); ++k) {
          const std::int64_t off = m_.offsets[k];
          const std::int64_t lo = std::max(r0, -off), hi = std::min(r0 + n, cols - off);
          const T* __restrict v = m_.values.data() + k * rows;
#pragma omp simd
          for (std::int64_t i = lo; i < hi; ++i) acc[i - r0] += v[i] * x[i + off];
        }
        for (std::int64_t r = 0; r < n; ++r) out.write(y[r0 + r], acc[r]);
      }
    });
  }
  std::uint64_t bytes_moved() const override {
    return dia_plan_bytes<T>(m_.values.size(), m_.offsets.size(), m_.rows, m_.cols);
  }
  std::string detail() const override { return full_detail(m_.offsets.size(), m_.values.size(), m_.nnz); }

 private:
  Dia<T> m_;
};

// Rows per tile. One tile is one register block, and its diagonals lie one after the other in memory,
// so the values are a single sequential stream (prefetcher-friendly).
constexpr std::int64_t kTileRows = 64;

// OpenMP DIA, tiled layout: static schedule over tiles; an interior tile keeps its 64 sums in registers
// across all diagonals and loads x unit-stride; boundary tiles clip each diagonal's row range.
template <class T>
class DiaOmp : public CpuSpmvPlan<T> {
 public:
  DiaOmp(const Csr<T>& a, const PlanOptions& o) : threads_(cpu::plan_threads(o.threads)) {
    Dia<T> d = dia_for_kernel(a, o, false, kTileRows);
    rows_ = d.rows, cols_ = d.cols, nnz_ = d.nnz;
    offs_ = std::move(d.offsets);
    tiles_ = d.padded_rows() / kTileRows;
    // The plan's own copy, first touched by the thread that reads each tile (same static schedule).
    val_ = cpu::FirstTouchArray<T>(d.values.size());
    const std::int64_t per_tile = static_cast<std::int64_t>(offs_.size()) * kTileRows;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles_; ++t)
      std::copy(d.values.begin() + t * per_tile, d.values.begin() + (t + 1) * per_tile, val_.data() + t * per_tile);
  }

  void run(T alpha, const T* __restrict x, T beta, T* __restrict y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) { run_with(x, y, out); });
  }
  std::uint64_t bytes_moved() const override { return dia_plan_bytes<T>(val_.size(), offs_.size(), rows_, cols_); }
  std::string detail() const override {
    return full_detail(offs_.size(), val_.size(), nnz_) + ", " + std::to_string(kTileRows) + "-row tiles";
  }

 private:
  template <class Out>
  void run_with(const T* __restrict x, T* __restrict y, Out out) {
    const std::int64_t nd = static_cast<std::int64_t>(offs_.size()), rows = rows_, cols = cols_;
    if (nd == 0) {
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], T(0));
      return;
    }
    const std::int64_t* offs = offs_.data();
    const T* __restrict val = val_.data();
    using V = cpu::vec64_t<T>;
    constexpr int kLanes = cpu::Vec64<T>::lanes, kVecs = kTileRows / kLanes;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r0 = t * kTileRows, n = std::min(kTileRows, rows - r0);
      if (n == kTileRows && r0 + offs[0] >= 0 && r0 + kTileRows - 1 + offs[nd - 1] < cols) {
        // The tile's sums in kVecs registers; per diagonal one contiguous load of values and of x each.
        V acc[kVecs] = {};
        const T* __restrict v = val + t * nd * kTileRows;
        for (std::int64_t d = 0; d < nd; ++d, v += kTileRows) {
          const T* __restrict xs = x + (r0 + offs[d]);
#pragma GCC unroll 8
          for (int j = 0; j < kVecs; ++j) acc[j] += cpu::load64(v + j * kLanes) * cpu::load64(xs + j * kLanes);
        }
#pragma GCC unroll 8
        for (int j = 0; j < kVecs; ++j) out.write_vec(y + r0 + j * kLanes, acc[j]);
        continue;
      }
      alignas(64) T acc[kTileRows];
      for (std::int64_t r = 0; r < kTileRows; ++r) acc[r] = T(0);
      for (std::int64_t d = 0; d < nd; ++d) {
        const std::int64_t off = offs[d];
        // Rows of this tile whose column r0 + r + off lies inside the matrix.
        const std::int64_t lo = std::max<std::int64_t>(0, -off - r0), hi = std::min(n, cols - off - r0);
        const T* __restrict v = val + (t * nd + d) * kTileRows;
        const T* __restrict xs = x + (r0 + off);
#pragma omp simd
        for (std::int64_t r = lo; r < hi; ++r) acc[r] += v[r] * xs[r];
      }
      for (std::int64_t r = 0; r < n; ++r) out.write(y[r0 + r], acc[r]);
    }
  }

  int threads_;
  std::int64_t rows_ = 0, cols_ = 0, nnz_ = 0, tiles_ = 0;
  std::vector<std::int64_t> offs_;
  cpu::FirstTouchArray<T> val_;  // [tile][diagonal][row in tile]
};

// Symmetric DIA (a_ij == a_ji exactly: Laplacians, FEM stiffness matrices): only diagonals d >= 0;
// row i reads a_{i,i+d} from diagonal d at i and a_{i,i-d} = a_{i-d,i} from the same diagonal at
// i - d, which was streamed from memory a few tiles earlier and comes back from cache, so memory
// carries about half the values. Each row computes its own y (pull): threads never write the same y.
template <class T>
class DiaOmpSym : public CpuSpmvPlan<T> {
 public:
  DiaOmpSym(const Csr<T>& a, const PlanOptions& o) : threads_(cpu::plan_threads(o.threads)) {
    Dia<T> d = dia_for_kernel(a, o, true, 0);
    rows_ = d.rows, nnz_ = d.nnz;
    offs_ = std::move(d.offsets);
    tiles_ = (rows_ + kTileRows - 1) / kTileRows;
    val_ = cpu::FirstTouchArray<T>(d.values.size());
    const std::int64_t nh = static_cast<std::int64_t>(offs_.size()), rows = rows_;
    // Same static schedule over tiles as run(): each value first touched by its reader.
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r0 = t * kTileRows, r1 = std::min(rows, r0 + kTileRows);
      for (std::int64_t h = 0; h < nh; ++h)
        for (std::int64_t i = r0; i < r1; ++i) val_[h * rows + i] = d.values[h * rows + i];
    }
  }

  void run(T alpha, const T* __restrict x, T beta, T* __restrict y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) { run_with(x, y, out); });
  }
  std::uint64_t bytes_moved() const override { return dia_plan_bytes<T>(val_.size(), offs_.size(), rows_, rows_); }
  std::string detail() const override {
    const std::size_t nh = offs_.size();
    const std::size_t all = nh == 0 ? 0 : 2 * nh - (offs_[0] == 0 ? 1 : 0);
    return "symmetric: " + std::to_string(nh) + " of " + std::to_string(all) + " diagonals stored";
  }

 private:
  // Every row's sum (its upper part and the mirrored lower part) is finished in the tile that owns the
  // row, then written once through the epilogue.
  template <class Out>
  void run_with(const T* __restrict x, T* __restrict y, Out out) {
    const std::int64_t nh = static_cast<std::int64_t>(offs_.size()), rows = rows_;
    if (nh == 0) {
      for (std::int64_t i = 0; i < rows; ++i) out.write(y[i], T(0));
      return;
    }
    const std::int64_t* offs = offs_.data();
    const std::int64_t reach = offs[nh - 1];
    const bool has_main = offs[0] == 0;  // a symmetric matrix may have no main diagonal
    const std::int64_t h0 = has_main ? 1 : 0;
    const T* __restrict val = val_.data();
    using V = cpu::vec64_t<T>;
    constexpr int kLanes = cpu::Vec64<T>::lanes, kVecs = kTileRows / kLanes;
#pragma omp parallel for num_threads(threads_) schedule(static)
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r0 = t * kTileRows, n = std::min(kTileRows, rows - r0);
      if (n == kTileRows && r0 - reach >= 0 && r0 + kTileRows - 1 + reach < rows) {
        // Interior tile: every diagonal in range for every row, no bounds; the sums stay in registers.
        V sum[kVecs];
#pragma GCC unroll 8
        for (int j = 0; j < kVecs; ++j)
          sum[j] = has_main ? cpu::load64(val + r0 + j * kLanes) * cpu::load64(x + r0 + j * kLanes) : V{};
        for (std::int64_t h = h0; h < nh; ++h) {
          const std::int64_t d = offs[h];
          const T* __restrict v = val + h * rows + r0;
          const T* __restrict xr = x + r0;
#pragma GCC unroll 8
          for (int j = 0; j < kVecs; ++j) {
            const std::int64_t q = j * kLanes;
            sum[j] += cpu::load64(v + q) * cpu::load64(xr + q + d) + cpu::load64(v + q - d) * cpu::load64(xr + q - d);
          }
        }
#pragma GCC unroll 8
        for (int j = 0; j < kVecs; ++j) out.write_vec(y + r0 + j * kLanes, sum[j]);
        continue;
      }
      alignas(64) T acc[kTileRows];
      for (std::int64_t r = 0; r < n; ++r) acc[r] = has_main ? val[r0 + r] * x[r0 + r] : T(0);
      for (std::int64_t h = h0; h < nh; ++h) {
        const std::int64_t d = offs[h];
        const T* __restrict v = val + h * rows;
        const std::int64_t upper_end = std::min(n, rows - d - r0);  // rows with column r + d inside
        for (std::int64_t r = 0; r < upper_end; ++r) acc[r] += v[r0 + r] * x[r0 + r + d];
        for (std::int64_t r = std::max<std::int64_t>(0, d - r0); r < n; ++r)  // rows with r - d >= 0
          acc[r] += v[r0 + r - d] * x[r0 + r - d];
      }
      for (std::int64_t r = 0; r < n; ++r) out.write(y[r0 + r], acc[r]);
    }
  }

  int threads_;
  std::int64_t rows_ = 0, nnz_ = 0, tiles_ = 0;
  std::vector<std::int64_t> offs_;  // diagonal offsets >= 0, ascending
  cpu::FirstTouchArray<T> val_;     // [diagonal][row]: a_{i, i + offs_[h]} at h * rows + i
};

}  // namespace

void register_cpu_dia_kernels(Registry& reg) {
  {
    KernelInfo k;
    k.name = "cpu.dia.serial";
    k.format = Format::dia;
    k.backend = Backend::cpu;
    k.description = "serial DIA, one unit-stride pass per diagonal over blocks of rows (reference of the format)";
    k.cost = [](const MatrixStats& s, Precision p, const PlanOptions&) {
      return dia_cost(s, p, false, 0, tuning::kDiaSerialEfficiency, tuning::kDiaSerialLaunchUs);
    };
    add_kernel<DiaSerial>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.dia.omp";
    k.format = Format::dia;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP DIA: 64-row tiles (one sequential stream each), sums in registers across diagonals";
    k.cost = [](const MatrixStats& s, Precision p, const PlanOptions&) {
      return dia_cost(s, p, false, kTileRows, tuning::kDiaOmpEfficiency, tuning::kDiaOmpLaunchUs);
    };
    add_kernel<DiaOmp>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.dia.omp_sym";
    k.format = Format::dia;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP symmetric DIA: diagonals d >= 0 only, the mirror a(i,i-d) read from slot i-d";
    k.cost = [](const MatrixStats& s, Precision p, const PlanOptions&) {
      return dia_cost(s, p, true, 0, tuning::kDiaOmpSymEfficiency, tuning::kDiaOmpLaunchUs);
    };
    add_kernel<DiaOmpSym>(reg, std::move(k));
  }
}

}  // namespace spkit
