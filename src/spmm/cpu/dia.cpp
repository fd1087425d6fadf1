// cpu.dia.spmm: SpMM Y = alpha*A*X + beta*Y in diagonal storage, for the stencils and bands whose SpMV
// spkit runs in DIA (src/kernels/cpu/dia.cpp; the format and its rule, the diagonals' bytes at most the
// CSR's: spkit/formats/dia.hpp). Each stored diagonal d is a dense array a_d[i] = A(i, i + d), so a product
// reads no column index and no row pointer:
//   row-major:    Y(i, :) += a_d[i] * X(i + d, :) for a block of R rows at a time, the block's R rows of
//                 Y (a tile of k columns, as wide as k allows, as in the CSR kernels) kept in registers
//                 across all diagonals, then written once; where Y's and X's rows are adjacent and a
//                 64-byte vector holds several of them (k = 1, 2, 4, and 8 in fp32), one vector's sums
//                 serve those rows instead (packed_tile: one load, permute and FMA per diagonal), and an
//                 exactly symmetric matrix's interior tiles read its diagonals d >= 0 only, each also for its
//                 mirror (packed_sym_tile, also at one row a vector: k = 8 doubles, 16 floats; the plan keeps
//                 that half beside the full tiles: 1.5x the bytes);
//   column-major: each column of Y is a DIA SpMV over 64-row tiles, the tile's sums in registers across
//                 the diagonals, a few columns at a time, so each value loaded serves them all and the
//                 tile's diagonals (a few KB) come from L1 for every column.
// Bytes: the diagonals once (their zero slots included), X about once (the rows a block reads are read
// again by its neighbours, from cache), Y once. A tile whose diagonals reach outside X (the first and
// last rows) reads X's nearest row instead, whose slot value is 0, as the DIA SpMV kernels multiply
// their zero slots.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/cpu/cpu_common.hpp"
#include "kernels/cpu/simd_vec.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/dia.hpp"
#include "spkit/spmm.hpp"
#include "spmm/cpu/spmm_tiles.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

constexpr std::int64_t kTile = tuning::kSpmmCpuDiaTileRows;
static_assert(kTile % 16 == 0, "a DIA tile holds whole register blocks of up to 16 rows");

// The accumulator of TB bytes of one row: a GCC vector, or one T for the last odd columns.
template <class T, int TB>
struct Lane { using type = typename cpu::spmm::VecOf<T, TB>::type; };
template <>
struct Lane<float, 4> { using type = float; };
template <>
struct Lane<double, 8> { using type = double; };

// Rows per register block for a tile of TB bytes: about 1 KB of accumulators (16 of the 32 vector
// registers at 64 bytes), at most 16 rows, at least 2.
template <int TB>
constexpr int block_rows() {
  return std::clamp(tuning::kSpmmCpuDiaAccumulatorBytes / TB, 2, 16);
}

// Row-major: rows [i0, i0 + n) of Y (n <= R) for the TB bytes at x, y (a column offset into X's and Y's
// rows). v: the block's first row on diagonal 0 of its tile; the next diagonal is kTile further.
// Clamp: some row i + d lies outside X (its slot holds 0), so X's row index is clamped into range.
template <int TB, int R, bool Clamp, class T, class Out>
__attribute__((always_inline)) inline void row_block(const T* __restrict v, const std::int64_t* offs, std::int64_t nd,
                                                     std::int64_t i0, std::int64_t n, std::int64_t cols,
                                                     const T* __restrict x, std::int64_t ldx, T* y, std::int64_t ldy,
                                                     Out out) {
  constexpr int VB = TB < 64 ? TB : 64;
  constexpr int NV = TB / VB, L = VB / static_cast<int>(sizeof(T));
  using V = typename Lane<T, VB>::type;
  V acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int q = 0; q < NV; ++q) acc[r][q] = V{};
  for (std::int64_t d = 0; d < nd; ++d, v += kTile) {
    const std::int64_t j0 = i0 + offs[d];
    for (int r = 0; r < R; ++r) {
      std::int64_t j = j0 + r;
      if constexpr (Clamp) j = std::clamp<std::int64_t>(j, 0, cols - 1);
      const T* xr = x + j * ldx;
      const T a = v[r];
      for (int q = 0; q < NV; ++q) {
        V xv;
        std::memcpy(&xv, xr + q * L, sizeof xv);
        acc[r][q] += a * xv;
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    if (Clamp && r >= n) break;  // the matrix's last tile: rows past its end
    for (int q = 0; q < NV; ++q) out.write_vec(y + (i0 + r) * ldy + q * L, acc[r][q]);
  }
}

// The k columns of rows [i0, i0 + n), n <= R: tiles of TB bytes while they fit, then halving tiles down
// to 16, then one T at a time (the block's R rows stay the same).
template <int TB, int R, bool Clamp, class T, class Out>
void row_block_columns(const T* v, const std::int64_t* offs, std::int64_t nd, std::int64_t i0, std::int64_t n,
                       std::int64_t cols, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k,
                       Out out) {
  constexpr std::int64_t W = TB / static_cast<int>(sizeof(T));
  std::int64_t c = 0;
  for (; c + W <= k; c += W) row_block<TB, R, Clamp>(v, offs, nd, i0, n, cols, x + c, ldx, y + c, ldy, out);
  constexpr int next = TB > 16 ? TB / 2 : static_cast<int>(sizeof(T));  // below 16 bytes: column by column
  if constexpr (TB > static_cast<int>(sizeof(T)))
    if (c < k) row_block_columns<next, R, Clamp>(v, offs, nd, i0, n, cols, x + c, ldx, y + c, ldy, k - c, out);
}

// Rows [r0, r0 + n) of one tile (n <= kTile) in register blocks of R rows, main tiles of TB bytes.
template <int TB, bool Clamp, class T, class Out>
void tile_rows(const T* v, const std::int64_t* offs, std::int64_t nd, std::int64_t r0, std::int64_t n,
               std::int64_t cols, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, Out out) {
  constexpr int R = block_rows<TB>();
  for (std::int64_t s = 0; s < n; s += R)
    row_block_columns<TB, R, Clamp>(v + s, offs, nd, r0 + s, std::min<std::int64_t>(R, n - s), cols, x, ldx,
                                    y, ldy, k, out);
}

// Row-major Y and X whose rows are W < 64 / sizeof(T) columns wide and adjacent (ld == k == W, W a power of two):
// P = 64 bytes / row bytes consecutive rows of Y fill one 64-byte vector, and on diagonal d their rows of X, i + d
// onwards, are adjacent too. So per diagonal and P rows: one load of X, the P values a_d[i..] each spread over its
// row's W lanes (one permute of a 64-byte vector of values loaded for W such groups), one FMA, where row_block
// spends P loads of X, P broadcasts and P FMAs on vectors of W lanes (fp32 k = 4: a quarter of a register each).

// Lane l of the result: value Q * P + l / W of the vector of values (the Q-th group of P rows in it).
template <class T, int W, int Q, std::size_t... Is>
__attribute__((always_inline)) inline cpu::vec64_t<T> spread_rows(cpu::vec64_t<T> values, std::index_sequence<Is...>) {
  constexpr int P = cpu::Vec64<T>::lanes / W;
  if constexpr (W == 1) {
    return values;
  } else {
#if defined(__clang__)
    return __builtin_shufflevector(values, values, static_cast<int>(Q * P + Is / W)...);
#else
    using Index = std::conditional_t<sizeof(T) == 4, std::int32_t, std::int64_t>;
    typedef Index IndexVec __attribute__((vector_size(64)));
    return __builtin_shuffle(values, IndexVec{static_cast<Index>(Q * P + Is / W)...});
#endif
  }
}

// acc[g] += spread values * X's rows for the groups g = 0..NA-1 of P rows; values[g / W] holds group g's.
template <class T, int W, int NA, std::size_t... Gs>
__attribute__((always_inline)) inline void packed_fma(cpu::vec64_t<T> (&acc)[NA], const cpu::vec64_t<T>* values,
                                                      const T* __restrict xs, std::index_sequence<Gs...>) {
  constexpr int L = cpu::Vec64<T>::lanes;
  constexpr auto lanes = std::make_index_sequence<L>{};
  ((acc[Gs] += spread_rows<T, W, static_cast<int>(Gs % W)>(values[Gs / W], lanes) * cpu::load64(xs + Gs * L)), ...);
}

// Rows [r0, r0 + kTile) of an interior tile (every i + d inside X), W columns, X and Y rows adjacent.
template <int W, class T, class Out>
void packed_tile(const T* v, const std::int64_t* offs, std::int64_t nd, std::int64_t r0, const T* __restrict x,
                 T* y, Out out) {
  using Vec = cpu::vec64_t<T>;
  constexpr int L = cpu::Vec64<T>::lanes, P = L / W;
  // Vectors of sums: 8, or the whole tile; rows per block R = NA * P, a whole number of 64-byte values.
  constexpr int NA = std::min<int>(8, static_cast<int>(kTile) / P), R = NA * P;
  static_assert(L % W == 0 && kTile % R == 0 && NA % W == 0, "whole rows a vector, whole vectors of values");
  for (std::int64_t s = 0; s < kTile; s += R) {
    Vec acc[NA];
    for (int g = 0; g < NA; ++g) acc[g] = Vec{};
    const T* vd = v + s;
    for (std::int64_t d = 0; d < nd; ++d, vd += kTile) {
      Vec values[NA / W];
      for (int c = 0; c < NA / W; ++c) values[c] = cpu::load64(vd + c * L);
      packed_fma<T, W, NA>(acc, values, x + (r0 + s + offs[d]) * W, std::make_index_sequence<NA>{});
    }
    for (int g = 0; g < NA; ++g) out.write_vec(y + (r0 + s) * W + g * L, acc[g]);
  }
}

// The same rows of a symmetric matrix from its diagonals d >= 0 alone ([diagonal][row], val + h * rows): row i
// meets a_d[i] X(i + d) and, for d > 0, the mirror a_d[i - d] X(i - d), whose values a block read d rows earlier
// (from cache), so memory carries half the diagonals. The tile must be interior for the mirrored reach too.
template <int W, class T, class Out>
void packed_sym_tile(const T* val, std::int64_t rows, const std::int64_t* offs, std::int64_t nh, std::int64_t r0,
                     const T* __restrict x, T* y, Out out) {
  using Vec = cpu::vec64_t<T>;
  constexpr int L = cpu::Vec64<T>::lanes, P = L / W;
  constexpr int NA = std::min<int>(8, static_cast<int>(kTile) / P), R = NA * P;
  constexpr auto groups = std::make_index_sequence<NA>{};
  for (std::int64_t s = 0; s < kTile; s += R) {
    const std::int64_t i0 = r0 + s;
    Vec acc[NA];
    for (int g = 0; g < NA; ++g) acc[g] = Vec{};
    for (std::int64_t h = 0; h < nh; ++h) {
      const std::int64_t d = offs[h];
      const T* up = val + h * rows + i0;
      if constexpr (W == L) {  // one row a vector: each value broadcast from memory
        const T* xu = x + (i0 + d) * W;
#pragma GCC unroll 8
        for (int g = 0; g < NA; ++g) acc[g] += up[g] * cpu::load64(xu + g * L);
        if (d == 0) continue;
        const T* xl = x + (i0 - d) * W;
#pragma GCC unroll 8
        for (int g = 0; g < NA; ++g) acc[g] += up[g - d] * cpu::load64(xl + g * L);
      } else {
        Vec values[NA / W];
        for (int c = 0; c < NA / W; ++c) values[c] = cpu::load64(up + c * L);
        packed_fma<T, W, NA>(acc, values, x + (i0 + d) * W, groups);
        if (d == 0) continue;
        for (int c = 0; c < NA / W; ++c) values[c] = cpu::load64(up - d + c * L);
        packed_fma<T, W, NA>(acc, values, x + (i0 - d) * W, groups);
      }
    }
    for (int g = 0; g < NA; ++g) out.write_vec(y + i0 * W + g * L, acc[g]);
  }
}

// Column-major: the sums of G columns over one 64-row tile (rows r0..r0+63 all inside A, every i + d inside X).
template <class T>
constexpr int kColVecs = static_cast<int>(kTile) / cpu::Vec64<T>::lanes;
template <int G, class T>
__attribute__((always_inline)) inline void col_tile_sums(const T* __restrict v, const std::int64_t* offs,
                                                         std::int64_t nd, std::int64_t r0, const T* __restrict x,
                                                         std::int64_t ldx, cpu::vec64_t<T> (&acc)[G][kColVecs<T>]) {
  using Vec = cpu::vec64_t<T>;
  constexpr int L = cpu::Vec64<T>::lanes, NV = kColVecs<T>;
  for (int g = 0; g < G; ++g)
    for (int q = 0; q < NV; ++q) acc[g][q] = Vec{};
  for (std::int64_t d = 0; d < nd; ++d, v += kTile) {
    const T* xs = x + r0 + offs[d];
#pragma GCC unroll 8
    for (int q = 0; q < NV; ++q) {
      const Vec a = cpu::load64(v + q * L);
      for (int g = 0; g < G; ++g) acc[g][q] += a * cpu::load64(xs + g * ldx + q * L);
    }
  }
}
template <int G, class T, class Out>
__attribute__((always_inline)) inline void col_tile(const T* __restrict v, const std::int64_t* offs, std::int64_t nd,
                                                    std::int64_t r0, const T* __restrict x, std::int64_t ldx, T* y,
                                                    std::int64_t ldy, Out out) {
  constexpr int L = cpu::Vec64<T>::lanes, NV = kColVecs<T>;
  cpu::vec64_t<T> acc[G][NV];
  col_tile_sums<G>(v, offs, nd, r0, x, ldx, acc);
  for (int g = 0; g < G; ++g)
    for (int q = 0; q < NV; ++q) out.write_vec(y + g * ldy + r0 + q * L, acc[g][q]);
}

// Column-major, a tile at the matrix's edge: per diagonal only the rows whose column lies inside X.
template <class T, class Out>
void col_tile_edge(const T* v, const std::int64_t* offs, std::int64_t nd, std::int64_t r0, std::int64_t n,
                   std::int64_t cols, const T* x, T* y, Out out) {
  alignas(64) T acc[kTile];
  for (std::int64_t r = 0; r < kTile; ++r) acc[r] = T(0);
  for (std::int64_t d = 0; d < nd; ++d, v += kTile) {
    const std::int64_t off = offs[d];
    const std::int64_t lo = std::max<std::int64_t>(0, -off - r0), hi = std::min(n, cols - off - r0);
    const T* xs = x + r0 + off;
#pragma omp simd
    for (std::int64_t r = lo; r < hi; ++r) acc[r] += v[r] * xs[r];
  }
  for (std::int64_t r = 0; r < n; ++r) out.write(y[r0 + r], acc[r]);
}

template <class T>
class DiaSpmm final : public SpmmPlan<T> {
 public:
  DiaSpmm(const Csr<T>& a, const SpmmShape& shape, const PlanOptions& o)
      : shape_(shape), threads_(cpu::plan_threads(o.threads)) {
    if (shape.k < 1) throw Error("cpu.dia.spmm: k must be at least 1 (got " + std::to_string(shape.k) + ")");
    // The DIA kernels' rule on what the diagonals hold (as cpu.dia.serial: the last tile's padding, at most
    // 63 rows, not counted, so that a small band is not refused for it).
    DiaOptions rule;
    rule.max_bytes_ratio = kDiaKernelMaxBytesRatio;
    check_dia_worthwhile(dia_shape(a, rule), rule, a.rows);
    DiaOptions d;
    d.tile_rows = kTile;
    d.max_bytes_ratio = std::numeric_limits<double>::infinity();  // checked above
    FormatLimits limits;
    limits.memory_budget_bytes = o.memory_budget_bytes;
    Dia<T> m = csr_to_dia(a, d, limits);
    rows_ = m.rows, cols_ = m.cols, nnz_ = m.nnz;
    offs_ = std::move(m.offsets);
    tiles_ = m.padded_rows() / kTile;
    // The plan's own copy, each tile first written by the thread that reads it (run's static schedule).
    val_ = cpu::FirstTouchArray<T>(m.values.size());
    const std::int64_t per_tile = static_cast<std::int64_t>(offs_.size()) * kTile;
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
    for (std::int64_t t = 0; t < tiles_; ++t)
      std::copy(m.values.begin() + t * per_tile, m.values.begin() + (t + 1) * per_tile, val_.data() + t * per_tile);
    if (shape.layout == DenseLayout::row_major && packed_width(shape.k, shape.k, shape.k, true) > 0 && a.rows == a.cols)
      build_half(a, limits);
  }

  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream) override {
    check_spmm_leading_dims(rows_, cols_, shape_, ldx, ldy);
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      if (offs_.empty()) return zero_product(y, ldy, out);
      if (shape_.layout == DenseLayout::row_major) return run_row_major(x, ldx, y, ldy, out);
      if constexpr (!decltype(out)::reads_y) {
        if (streams_y(y, ldy)) return run_col_major(x, ldx, y, ldy, cpu::spmm::StreamingOut<decltype(out)>{out});
      }
      run_col_major(x, ldx, y, ldy, out);
    });
  }
  Backend backend() const override { return Backend::cpu; }
  std::uint64_t bytes_moved() const override {  // a symmetric plan's packed rows (ld = k) read the half diagonals
    const std::size_t slots = half_offs_.empty() ? val_.size() : half_.size();
    return slots * sizeof(T) + offs_.size() * sizeof(std::int64_t) +
           static_cast<std::uint64_t>(rows_ + cols_) * static_cast<std::uint64_t>(shape_.k) * sizeof(T);
  }
  std::string detail() const override {
    const std::int64_t k = shape_.k;
    std::string shape = shape_.layout == DenseLayout::row_major
                            ? std::to_string(cpu::spmm::main_tile_bytes<T>(k)) + "-byte register tiles"
                            : "columns " + std::to_string(kColGroup) + " at a time";
    if (shape_.layout == DenseLayout::row_major && packed_width(k, k, k, !half_offs_.empty()) > 0)
      shape += " (" + (cpu::Vec64<T>::lanes == k ? std::string("one row") : std::to_string(cpu::Vec64<T>::lanes / k) + " rows") +
               " a 64-byte vector when X's and Y's rows are adjacent" +
               (half_offs_.empty() ? std::string(")")
                                   : ", symmetric: " + std::to_string(half_offs_.size()) + " of the diagonals read)");
    return std::to_string(offs_.size()) + " diagonals, padding " +
           cpu::percent(static_cast<double>(val_.size()) - static_cast<double>(nnz_), static_cast<double>(val_.size())) +
           ", " + std::to_string(kTile) + "-row tiles, " + shape;
  }

 private:
  // Columns per pass of the column-major tile: 16 vectors of sums (8 doubles or 16 floats each).
  static constexpr int kColGroup = 16 / (static_cast<int>(kTile) / cpu::Vec64<T>::lanes);
  static constexpr std::int64_t kColPanelTiles = tuning::kSpmmCpuDiaColPanelRows / kTile;

  bool interior(std::int64_t r0) const {
    return r0 + kTile <= rows_ && r0 + offs_.front() >= 0 && r0 + kTile - 1 + offs_.back() < cols_;
  }

  template <class Out>
  void zero_product(T* y, std::int64_t ldy, Out out) const {  // no diagonal: Y = beta*Y
    const bool row = shape_.layout == DenseLayout::row_major;
    for (std::int64_t i = 0; i < rows_; ++i)
      for (std::int64_t c = 0; c < shape_.k; ++c) out.write(y[row ? i * ldy + c : c * ldy + i], T(0));
  }

  template <class Out>
  void run_row_major(const T* x, std::int64_t ldx, T* y, std::int64_t ldy, Out out) const {
    const std::int64_t nd = static_cast<std::int64_t>(offs_.size()), k = shape_.k;
    const int tb = cpu::spmm::main_tile_bytes<T>(k);
    const int packed = packed_width(k, ldx, ldy, !half_offs_.empty());
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r0 = t * kTile, n = std::min(kTile, rows_ - r0);
      const T* v = val_.data() + t * nd * kTile;
      if (!interior(r0)) tile_row_major<true>(tb, v, r0, n, x, ldx, y, ldy, k, out);
      else if (packed > 0 && !half_offs_.empty()) packed_row_major<true>(packed, half_.data(), r0, x, y, out);
      else if (packed > 0) packed_row_major<false>(packed, v, r0, x, y, out);
      else tile_row_major<false>(tb, v, r0, n, x, ldx, y, ldy, k, out);
    }
  }

  // k when several adjacent rows of X and Y fill a 64-byte vector (packed_tile), or, with a symmetric half, one row
  // does (packed_sym_tile reads half the diagonals there too), else 0.
  static int packed_width(std::int64_t k, std::int64_t ldx, std::int64_t ldy, bool half) {
    constexpr std::int64_t lanes = cpu::Vec64<T>::lanes;
    const bool fits = (k < lanes || (half && k == lanes)) && lanes % k == 0 && ldx == k && ldy == k;
    return fits ? static_cast<int>(k) : 0;
  }
  // Half: v is the half diagonals (half_), else the tile's full ones.
  template <bool Half, class Out>
  void packed_row_major(int w, const T* v, std::int64_t r0, const T* x, T* y, Out out) const {
    const auto go = [&](auto w_tag) {
      constexpr int W = decltype(w_tag)::value;
      if constexpr (Half)
        packed_sym_tile<W>(v, rows_, half_offs_.data(), static_cast<std::int64_t>(half_offs_.size()), r0, x, y, out);
      else
        packed_tile<W>(v, offs_.data(), static_cast<std::int64_t>(offs_.size()), r0, x, y, out);
    };
    constexpr int lanes = cpu::Vec64<T>::lanes;
    switch (w) {
      case 1: return go(std::integral_constant<int, 1>{});
      case 2: return go(std::integral_constant<int, 2>{});
      case 4: return go(std::integral_constant<int, 4>{});
      case 8:
        if constexpr (lanes == 8) {
          if constexpr (Half) return go(std::integral_constant<int, 8>{});
        } else {
          return go(std::integral_constant<int, 8>{});
        }
        break;
      default:
        if constexpr (Half && lanes == 16) return go(std::integral_constant<int, 16>{});
    }
  }

  // A symmetric matrix's diagonals d >= 0 ([diagonal][row]) for packed_sym_tile; left empty otherwise.
  void build_half(const Csr<T>& a, const FormatLimits& limits) {
    DiaOptions d;
    d.symmetric = true;
    d.max_bytes_ratio = std::numeric_limits<double>::infinity();  // the full diagonals passed the rule
    Dia<T> h;
    try {
      h = csr_to_dia(a, d, limits);
    } catch (const NotApplicable&) {  // not exactly symmetric
      return;
    }
    half_ = cpu::FirstTouchArray<T>(h.values.size());
    const std::int64_t nh = h.diagonals(), rows = rows_;
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
    for (std::int64_t t = 0; t < tiles_; ++t) {  // first touched by the tile's reader, as val_
      const std::int64_t r0 = t * kTile, r1 = std::min(rows, r0 + kTile);
      for (std::int64_t q = 0; q < nh; ++q)
        std::copy(h.values.begin() + q * rows + r0, h.values.begin() + q * rows + r1, half_.data() + q * rows + r0);
    }
    half_offs_ = std::move(h.offsets);
  }

  template <bool Clamp, class Out>
  void tile_row_major(int tb, const T* v, std::int64_t r0, std::int64_t n, const T* x, std::int64_t ldx, T* y,
                      std::int64_t ldy, std::int64_t k, Out out) const {
    const std::int64_t* offs = offs_.data();
    const std::int64_t nd = static_cast<std::int64_t>(offs_.size()), cols = cols_;
    switch (tb) {
      case 16: return tile_rows<16, Clamp>(v, offs, nd, r0, n, cols, x, ldx, y, ldy, k, out);
      case 32: return tile_rows<32, Clamp>(v, offs, nd, r0, n, cols, x, ldx, y, ldy, k, out);
      case 64: return tile_rows<64, Clamp>(v, offs, nd, r0, n, cols, x, ldx, y, ldy, k, out);
      case 128: return tile_rows<128, Clamp>(v, offs, nd, r0, n, cols, x, ldx, y, ldy, k, out);
      case 256: return tile_rows<256, Clamp>(v, offs, nd, r0, n, cols, x, ldx, y, ldy, k, out);
      default: return tile_rows<cpu::spmm::kMaxTileBytes, Clamp>(v, offs, nd, r0, n, cols, x, ldx, y, ldy, k, out);
    }
  }

  // Column-major Y only written (beta = 0), larger than the caches keep, on a few diagonals (the product bound
  // by its bytes, not its FMAs): the tiles' 64-byte vectors are streamed, shifted onto whole lines
  // (spmm_tiles.hpp's ShiftedColumn; no read of each line before it is written). At k = 64 on a 5-point
  // stencil the columns of X and Y are nearly all the bytes, so Y's reads were a third of them.
  bool streams_y(const T* y, std::int64_t ldy) const {
    return cpu::spmm::column_streaming_fits(y, ldy, shape_.k) &&
           static_cast<std::int64_t>(offs_.size()) <= tuning::kSpmmCpuDiaColStreamingMaxDiagonals;
  }
  // Panels of kColPanelTiles tiles: every column group runs down the whole panel before the next group, so
  // each column of X and Y is read and written in runs of the panel's rows (one stream, not one per tile
  // and column), while the panel's diagonals stay in L2 for all the columns.
  template <class Out>
  void run_col_major(const T* x, std::int64_t ldx, T* y, std::int64_t ldy, Out out) const {
    const std::int64_t nd = static_cast<std::int64_t>(offs_.size()), k = shape_.k;
    const std::int64_t* offs = offs_.data();
    const std::int64_t panels = (tiles_ + kColPanelTiles - 1) / kColPanelTiles;
#pragma omp parallel num_threads(threads_) if (threads_ > 1)
    {
#pragma omp for schedule(static)
      for (std::int64_t p = 0; p < panels; ++p) {
        const std::int64_t t0 = p * kColPanelTiles, t1 = std::min(tiles_, t0 + kColPanelTiles);
        std::int64_t c = 0;
        const auto group = [&](auto g_tag, std::int64_t c0) {
          constexpr int G = decltype(g_tag)::value;
          constexpr bool streamed = cpu::spmm::is_streaming_out<Out>;
          [[maybe_unused]] cpu::spmm::ShiftedColumn<T> column[streamed ? G : 1];
          if constexpr (streamed)
            for (int g = 0; g < G; ++g) column[g] = cpu::spmm::ShiftedColumn<T>(y + (c0 + g) * ldy + t0 * kTile);
          for (std::int64_t t = t0; t < t1; ++t) {
            const std::int64_t r0 = t * kTile, n = std::min(kTile, rows_ - r0);
            const T* v = val_.data() + t * nd * kTile;
            if (!interior(r0)) {
              for (std::int64_t g = 0; g < G; ++g) {
                if constexpr (streamed) column[g].flush(y + (c0 + g) * ldy + r0, out);
                col_tile_edge(v, offs, nd, r0, n, cols_, x + (c0 + g) * ldx, y + (c0 + g) * ldy, out);
              }
            } else if constexpr (streamed) {
              cpu::vec64_t<T> acc[G][kColVecs<T>];
              col_tile_sums<G>(v, offs, nd, r0, x + c0 * ldx, ldx, acc);
              for (int g = 0; g < G; ++g)
                for (int q = 0; q < kColVecs<T>; ++q)
                  column[g].put(y + (c0 + g) * ldy + r0 + q * cpu::Vec64<T>::lanes, acc[g][q], out);
            } else {
              col_tile<G>(v, offs, nd, r0, x + c0 * ldx, ldx, y + c0 * ldy, ldy, out);
            }
          }
          if constexpr (streamed)
            for (int g = 0; g < G; ++g) column[g].flush(y + (c0 + g) * ldy + std::min(t1 * kTile, rows_), out);
        };
        for (; c + kColGroup <= k; c += kColGroup) group(std::integral_constant<int, kColGroup>{}, c);
        for (; c < k; ++c) group(std::integral_constant<int, 1>{}, c);
      }
      if constexpr (cpu::spmm::is_streaming_out<Out>) cpu::spmm::finish_stores();
    }
  }

  SpmmShape shape_;
  int threads_;
  std::int64_t rows_ = 0, cols_ = 0, nnz_ = 0, tiles_ = 0;
  std::vector<std::int64_t> offs_;  // ascending
  cpu::FirstTouchArray<T> val_;     // [tile][diagonal][row in tile]
  // Symmetric matrices with packed rows: the diagonals d >= 0 again, [diagonal][row], read by the interior tiles
  // (the edge tiles and other leading dimensions read val_).
  std::vector<std::int64_t> half_offs_;
  cpu::FirstTouchArray<T> half_;
};

}  // namespace

void register_cpu_dia_spmm(SpmmRegistry& reg) {
  SpmmKernelInfo k;
  k.name = "cpu.dia.spmm";
  k.format = Format::dia;
  k.parallel = true;
  k.description = "DIA SpMM (stencils, bands): no column indices; row-major, Y(i,:) += a_d(i) X(i+d,:) with a block "
                  "of rows' tiles of Y in registers across the diagonals; column-major, a DIA SpMV per column over "
                  "64-row tiles, a few columns per pass; OpenMP over tiles";
  add_spmm_kernel<DiaSpmm>(reg, std::move(k));
}

}  // namespace spkit
