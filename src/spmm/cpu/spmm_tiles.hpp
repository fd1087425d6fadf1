#pragma once
// Register tiles of the CPU CSR SpMM kernels (src/spmm/cpu/csr.cpp). One row i of A times X, for a tile
// of Y's row of TB bytes (a compile-time width): each non-zero a_ij loads the tile's part of X's row j
// (contiguous: X is row-major here, or a row-major panel copied from column-major X) and FMAs it,
// scaled by a_ij, into accumulators that stay in registers for the whole row. Widths follow k, so no lane
// is wasted: k = 4 doubles is one 256-bit vector, k = 16 two 512-bit vectors, k >= 64 eight.
// Short tiles carry U independent partial sums over the row's non-zeros, so the FMA latency (4 cycles)
// is hidden even when the tile holds one vector; rows shorter than U take one chain. GCC vector types, as
// in src/kernels/cpu/simd_vec.hpp: the compiler lowers a 64-byte vector to what -march allows (zmm, 2 ymm,
// 4 xmm), so no CPU check; the streaming stores need AVX-512 and are ordinary stores without it.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/cpu_common.hpp"
#include "spmm/cpu/spmm_transpose.hpp"

#include "tuning.hpp"

namespace spkit::cpu::spmm {

// (The attribute must name a concrete type: on a template parameter GCC ignores it.)
typedef float f32x4 __attribute__((vector_size(16)));
typedef float f32x8 __attribute__((vector_size(32)));
typedef float f32x16 __attribute__((vector_size(64)));
typedef double f64x2 __attribute__((vector_size(16)));
typedef double f64x4 __attribute__((vector_size(32)));
typedef double f64x8 __attribute__((vector_size(64)));

template <class T, int Bytes>
struct VecOf;
template <> struct VecOf<float, 16> { using type = f32x4; };
template <> struct VecOf<float, 32> { using type = f32x8; };
template <> struct VecOf<float, 64> { using type = f32x16; };
template <> struct VecOf<double, 16> { using type = f64x2; };
template <> struct VecOf<double, 32> { using type = f64x4; };
template <> struct VecOf<double, 64> { using type = f64x8; };

// The smallest and largest tile in bytes: a 128-bit vector; eight 512-bit vectors (half the AVX-512
// register file, the rest for the broadcasts and the loads of X).
inline constexpr int kMinTileBytes = 16;
inline constexpr int kMaxTileBytes = tuning::kSpmmCpuMaxTileBytes;

// Independent partial sums per tile: enough FMA chains in flight (tiles of 1 or 2 vectors x U) to cover
// the FMA latency on two FMA ports.
template <int TB>
inline constexpr int kChains = TB <= 64 ? 4 : TB <= 128 ? 2 : 1;

// Y(i, tile) for one row: x points at the tile's first column of X's row 0; y at Y(i, tile's first
// column); [b, e) the row's non-zeros.
template <int TB, class T, class Idx, class Out>
__attribute__((always_inline)) inline void row_tile(const T* __restrict val, const Idx* __restrict col, std::int64_t b, std::int64_t e,
                     const T* __restrict x, std::int64_t ldx, T* y, Out out) {
  constexpr int VB = TB < 64 ? TB : 64;
  constexpr int NV = TB / VB;
  constexpr int L = VB / static_cast<int>(sizeof(T));
  constexpr int U = kChains<TB>;
  using V = typename VecOf<T, VB>::type;
  const auto load = [](const T* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  if constexpr (U > 1) {
    if (e - b < U) {  // rows of fewer than U entries (roads): one chain, no partial sums to clear and add
      V acc[NV];
      for (int n = 0; n < NV; ++n) acc[n] = V{};
      for (std::int64_t p = b; p < e; ++p) {
        const T v = val[p];
        const T* xr = x + static_cast<std::int64_t>(col[p]) * ldx;
        for (int n = 0; n < NV; ++n) acc[n] += v * load(xr + n * L);
      }
      for (int n = 0; n < NV; ++n) out.write_vec(y + n * L, acc[n]);
      return;
    }
  }
  V acc[U][NV];
  for (int u = 0; u < U; ++u)
    for (int n = 0; n < NV; ++n) acc[u][n] = V{};
  std::int64_t p = b;
  for (; p + U <= e; p += U) {
    for (int u = 0; u < U; ++u) {
      const T v = val[p + u];
      const T* xr = x + static_cast<std::int64_t>(col[p + u]) * ldx;
      for (int n = 0; n < NV; ++n) acc[u][n] += v * load(xr + n * L);
    }
  }
  for (; p < e; ++p) {
    const T v = val[p];
    const T* xr = x + static_cast<std::int64_t>(col[p]) * ldx;
    for (int n = 0; n < NV; ++n) acc[0][n] += v * load(xr + n * L);
  }
  for (int u = 1; u < U; ++u)
    for (int n = 0; n < NV; ++n) acc[0][n] += acc[u][n];
  for (int n = 0; n < NV; ++n) out.write_vec(y + n * L, acc[0][n]);
}

// The columns [0, k) of one row: tiles of TB bytes while they fit, then the rest in halving tiles down
// to 16 bytes (k = 33 doubles: a 256-byte tile, then one column alone), then column by column.
template <int TB, class T, class Idx, class Out>
__attribute__((always_inline)) inline void row_tiles(const T* val, const Idx* col, std::int64_t b, std::int64_t e, const T* x,
                      std::int64_t ldx, T* y, std::int64_t k, Out out) {
  constexpr std::int64_t W = TB / static_cast<int>(sizeof(T));
  std::int64_t c = 0;
  for (; c + W <= k; c += W) row_tile<TB>(val, col, b, e, x + c, ldx, y + c, out);
  if (c == k) return;
  if constexpr (TB > kMinTileBytes) {
    row_tiles<TB / 2>(val, col, b, e, x + c, ldx, y + c, k - c, out);
  } else {
    for (; c < k; ++c) {  // fewer columns than one 128-bit vector holds
      T sum = 0;
      for (std::int64_t p = b; p < e; ++p) sum += val[p] * x[static_cast<std::int64_t>(col[p]) * ldx + c];
      out.write(y[c], sum);
    }
  }
}

// Y's rows written with non-temporal stores (beta = 0, so Y is only written): a 64-byte vector goes to
// memory without its line being read first, so Y moves once instead of twice (at k >= 16 X's and Y's rows
// are most of the bytes). Other widths and the scalar columns store as Out does. Each thread fences
// (finish_stores) after its part, and callers use it only where every 64-byte vector falls on a whole
// line (streaming_fits).
template <class Out>
struct StreamingOut {
  static_assert(!Out::reads_y, "streaming stores only where Y is not read");
  static constexpr bool reads_y = false;
  Out inner;
  template <class T>
  void write(T& yi, T sum) const { inner.write(yi, sum); }
  template <class T, class V>
  void write_vec(T* yp, V sum) const {
#if defined(__AVX512F__)
    if constexpr (sizeof(V) == 64) {
      const V v = Out::kind == EpilogueKind::scale ? inner.alpha * sum : sum;
      if constexpr (sizeof(T) == 4) _mm512_stream_ps(yp, reinterpret_cast<__m512>(v));
      else _mm512_stream_pd(yp, reinterpret_cast<__m512d>(v));
      return;
    }
#endif
    inner.write_vec(yp, sum);
  }
};
template <class Out>
inline constexpr bool is_streaming_out = false;
template <class Out>
inline constexpr bool is_streaming_out<StreamingOut<Out>> = true;
inline void finish_stores() {
#if defined(__AVX512F__)
  _mm_sfence();
#endif
}
// True where Y(i, c) for c in 64-byte steps lands on whole lines: Y 64-byte aligned, rows a multiple of 64 bytes.
template <class T>
bool streaming_fits(const T* y, std::int64_t ldy) {
  return reinterpret_cast<std::uintptr_t>(y) % 64 == 0 && (ldy * static_cast<std::int64_t>(sizeof(T))) % 64 == 0;
}

// True where a column-major Y of k columns goes out streamed, column by column through ShiftedColumn: streaming
// stores there (AVX-512), Y past tuning::kSpmmCpuColStreamingMinBytes, its elements on their natural alignment.
template <class T>
bool column_streaming_fits(const T* y, std::int64_t ldy, std::int64_t k) {
#if defined(__AVX512F__)
  return reinterpret_cast<std::uintptr_t>(y) % sizeof(T) == 0 &&
         k * ldy * static_cast<std::int64_t>(sizeof(T)) >= tuning::kSpmmCpuColStreamingMinBytes;
#else
  (void)y, (void)ldy, (void)k;
  return false;
#endif
}

// A streamed column of a column-major Y (StreamingOut) whose run of rows starts `shift` lanes into a 64-byte line
// (ldy, or the run's first row, need not fall on a line): each vector of L consecutive rows is written shifted
// by `shift` lanes, as the line it ends in, its first lanes from the vector before (`carry`); the run's first
// L - shift rows, and the last `shift` (flush), beside rows another thread or tile writes, take ordinary stores.
typedef std::int64_t i64x8 __attribute__((vector_size(64)));
typedef std::int32_t i32x16 __attribute__((vector_size(64)));
template <class T>
struct ShiftedColumn {
  using Vec = vec64_t<T>;
  using Pick = std::conditional_t<sizeof(T) == 8, i64x8, i32x16>;
  static constexpr int L = Vec64<T>::lanes;
  int shift = 0;
  Pick pick{};  // lane i of a line: lane i + L - shift of (the vector before, this one)
  Vec carry{};
  bool has_carry = false;
  ShiftedColumn() = default;
  explicit ShiftedColumn(const T* first_row)
      : shift(static_cast<int>(reinterpret_cast<std::uintptr_t>(first_row) % 64 / sizeof(T))) {
    for (int i = 0; i < L; ++i) pick[i] = i + L - shift;
  }
  // Rows at[0..L) = v; `at` follows the previous vector's rows.
  template <class Out>
  void put(T* at, Vec v, Out out) {
    if (shift == 0) return out.write_vec(at, v);
    if (has_carry) out.write_vec(at - shift, shifted(carry, v));  // on a line
    else for (int i = 0; i < L - shift; ++i) out.write(at[i], v[i]);
    carry = v, has_carry = true;
  }
  // Lane i: lane i + L - shift of (a, b), one two-vector permute (clang's shuffle takes constant lanes only).
  Vec shifted(Vec a, Vec b) const {
#if defined(__clang__)
    Vec r;
    for (int i = 0; i < L; ++i) r[i] = pick[i] < L ? a[pick[i]] : b[pick[i] - L];
    return r;
#else
    return __builtin_shuffle(a, b, pick);
#endif
  }
  // The carried rows, end[-shift..0): end is one past the last row put.
  template <class Out>
  void flush(T* end, Out out) {
    if (has_carry)
      for (int i = 0; i < shift; ++i) out.write(end[i - shift], carry[L - shift + i]);
    has_carry = false;
  }
};

// Column indices: 32-bit CSR indices, or 16-bit offsets from the row (col - i) where every non-zero of
// A lies within 32767 of the diagonal (stencils, FEM and road meshes in a local ordering): 2 bytes less
// per non-zero to stream, as A's arrays are most of what a row-major product at small k reads. With
// offsets, X is addressed from the row's own line of X.
using DiagOffset = std::int16_t;
template <class Idx, class T>
inline const T* row_x(const T* x, std::int64_t i, std::int64_t ldx) {
  if constexpr (std::is_same_v<Idx, DiagOffset>) return x + i * ldx;
  else return x;
}

// Rows [r0, r1) with main tiles of TB bytes. Column-major Y (ColOut): Y(i, c) = y[c * ldy + i], with
// k at most kMaxTileBytes of T; a block of kColOutRows rows is computed into a row-major buffer, then
// written column by column, so each column of Y gets a contiguous run instead of one strided store per
// entry (64 columns: 64 pages touched per row).
inline constexpr std::int64_t kColOutRows = 32;

// Y(i, c) = out(buf[(i - i0) * k + c]) for rows [i0, i1): lanes x lanes blocks transposed in registers,
// the edges element by element. A streamed Y (StreamingOut) goes through `column` (ShiftedColumn, one per
// column, rows i0.. following the rows put before); a short last block flushes their carried rows first.
template <class T, class Out>
inline void write_columns(const T* buf, std::int64_t k, std::int64_t i0, std::int64_t i1, T* y, std::int64_t ldy,
                          Out out, [[maybe_unused]] ShiftedColumn<T>* column = nullptr) {
  constexpr std::int64_t L = Vec64<T>::lanes;
  constexpr bool streamed = is_streaming_out<Out>;
  const std::int64_t n = i1 - i0, full_rows = n / L * L, full_cols = k / L * L;
  for (std::int64_t ib = 0; ib < full_rows; ib += L)
    for (std::int64_t c = 0; c < full_cols; c += L) {
      vec64_t<T> v[L];
      for (std::int64_t q = 0; q < L; ++q) v[q] = load64(buf + (ib + q) * k + c);
      transpose_in_registers<T>(v);
      for (std::int64_t q = 0; q < L; ++q) {
        if constexpr (streamed) column[c + q].put(y + (c + q) * ldy + i0 + ib, v[q], out);
        else out.write_vec(y + (c + q) * ldy + i0 + ib, v[q]);
      }
    }
  if constexpr (streamed) {
    if (full_rows < n)
      for (std::int64_t c = 0; c < full_cols; ++c) column[c].flush(y + c * ldy + i0 + full_rows, out);
  }
  for (std::int64_t c = 0; c < k; ++c)
    for (std::int64_t r = c < full_cols ? full_rows : 0; r < n; ++r) out.write(y[c * ldy + i0 + r], buf[r * k + c]);
}

// Row-major Y only: with `row_of`, stored row q of A (ptr, col, val) is row row_of[q] of Y (and of the
// diagonal offsets' reference; row_order.hpp); else stored row i is row i.
template <int TB, bool ColOut, class T, class Idx, class Out>
void rows_with_tiles(const std::int64_t* ptr, const Idx* col, const T* val, std::int64_t r0,
                     std::int64_t r1, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, Out out,
                     const std::int32_t* row_of = nullptr) {
  if constexpr (!ColOut) {
    if (row_of) {
      for (std::int64_t q = r0; q < r1; ++q) {
        const std::int64_t i = row_of[q];
        row_tiles<TB>(val, col, ptr[q], ptr[q + 1], row_x<Idx>(x, i, ldx), ldx, y + i * ldy, k, out);
      }
      return;
    }
    for (std::int64_t i = r0; i < r1; ++i) row_tiles<TB>(val, col, ptr[i], ptr[i + 1], row_x<Idx>(x, i, ldx), ldx, y + i * ldy, k, out);
  } else {
    alignas(64) T buf[kColOutRows * kMaxTileBytes / sizeof(T)];
    const Epilogue<T, EpilogueKind::assign> raw{T(1), T(0)};
    constexpr bool streamed = is_streaming_out<Out>;
    [[maybe_unused]] ShiftedColumn<T> column[streamed ? kMaxTileBytes / sizeof(T) : 1];
    if constexpr (streamed)
      for (std::int64_t c = 0; c < k; ++c) column[c] = ShiftedColumn<T>(y + c * ldy + r0);
    for (std::int64_t i0 = r0; i0 < r1; i0 += kColOutRows) {
      const std::int64_t i1 = std::min(r1, i0 + kColOutRows);
      for (std::int64_t i = i0; i < i1; ++i)
        row_tiles<TB>(val, col, ptr[i], ptr[i + 1], row_x<Idx>(x, i, ldx), ldx, buf + (i - i0) * k, k, raw);
      write_columns(buf, k, i0, i1, y, ldy, out, column);
    }
    if constexpr (streamed)
      for (std::int64_t c = 0; c < k; ++c) column[c].flush(y + c * ldy + r1, out);
  }
}

// The main tile for k columns of T: the largest power of two bytes within k's row, 16..kMaxTileBytes.
template <class T>
constexpr int main_tile_bytes(std::int64_t k) {
  int tb = kMinTileBytes;
  while (tb < kMaxTileBytes && static_cast<std::int64_t>(2 * tb) <= k * static_cast<std::int64_t>(sizeof(T))) tb *= 2;
  return tb;
}

// rows_with_tiles<tb> for a tile width chosen at run time (one switch per row range).
template <bool ColOut, class T, class Idx, class Out>
void rows_dispatch(int tb, const std::int64_t* ptr, const Idx* col, const T* val, std::int64_t r0,
                   std::int64_t r1, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, Out out,
                   const std::int32_t* row_of = nullptr) {
  switch (tb) {
    case 16: return rows_with_tiles<16, ColOut>(ptr, col, val, r0, r1, x, ldx, y, ldy, k, out, row_of);
    case 32: return rows_with_tiles<32, ColOut>(ptr, col, val, r0, r1, x, ldx, y, ldy, k, out, row_of);
    case 64: return rows_with_tiles<64, ColOut>(ptr, col, val, r0, r1, x, ldx, y, ldy, k, out, row_of);
    case 128: return rows_with_tiles<128, ColOut>(ptr, col, val, r0, r1, x, ldx, y, ldy, k, out, row_of);
    case 256: return rows_with_tiles<256, ColOut>(ptr, col, val, r0, r1, x, ldx, y, ldy, k, out, row_of);
    default: return rows_with_tiles<kMaxTileBytes, ColOut>(ptr, col, val, r0, r1, x, ldx, y, ldy, k, out, row_of);
  }
}
static_assert(kMaxTileBytes == 512, "rows_dispatch lists the tile widths 16..512 bytes");

}  // namespace spkit::cpu::spmm
