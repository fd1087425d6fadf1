#pragma once
// The inner loop of cpu.bsr.omp: one block row of dense B x B blocks (row-major, B*B values each, one
// block column per block: 32-bit absolute or 16-bit deltas) times x, summed into BlockSums.
// Portable: one accumulator per entry of the block, so no FMA waits on the previous block's result
// (one chain per row would serialise B FMAs per block on the FMA latency). AVX-512, B = 3: a block is
// one masked load of its 9 values times x's 3 values spread to the block's pattern (one permute):
// one FMA per block, two chains alternating.
// GCC 12's AVX-512 intrinsics start from an undefined vector and trip -Wmaybe-uninitialized in
// every caller (a known false positive); silence it for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

namespace spkit::cpu {

// Block columns, read once per block in increasing block order within a block row (start_row first).
// 32-bit absolute:
struct AbsoluteColumns {
  const std::int32_t* col;
  void start_row(std::int64_t) {}
  std::int64_t operator()(std::int64_t k) { return col[k]; }
};
// 16-bit deltas from the previous block's column (the first block's from row_start(block row), i.e.
// 2^15 block columns left of the diagonal block); 0, never a delta of sorted distinct columns, escapes
// to the next 32-bit column of `far`. The sum is a serial add per block: one cycle, off the FMA chains.
struct DeltaColumns {
  const std::uint16_t* delta16;
  const std::int32_t* far;
  std::int64_t bc = 0;
  static std::int64_t row_start(std::int64_t block_row) { return block_row - 32768; }
  // The delta stored for `bc` after `prev`, 0 where it does not fit 16 bits.
  static std::uint16_t delta(std::int64_t prev, std::int64_t bc) {
    const std::int64_t d = bc - prev;
    return d >= 1 && d <= 65535 ? static_cast<std::uint16_t>(d) : 0;
  }
  void start_row(std::int64_t block_row) { bc = row_start(block_row); }
  std::int64_t operator()(std::int64_t k) {
    const std::uint16_t d = delta16[k];
    bc = d != 0 ? bc + d : *far++;
    return bc;
  }
};

template <class T, int B>
struct BlockSums {
  T acc[B][B] = {};  // acc[r][c]: sum over the blocks of v(r, c) * x(c)
  T row(int r) const {
    T s = 0;
    for (int c = 0; c < B; ++c) s += acc[r][c];
    return s;
  }
  // One block whose columns past `width` lie outside the matrix (x must not be read there).
  void add_clipped(const T* __restrict v, const T* __restrict xb, int width) {
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < width; ++c) acc[r][c] += v[r * B + c] * xb[c];
  }
};

// Blocks [k, e) of one block row; block k's columns start at x + columns(k) * B.
template <class T, int B, class Columns>
inline void bsr_block_row(BlockSums<T, B>& s, const T* __restrict val, Columns& columns, std::int64_t k,
                          std::int64_t e, const T* __restrict x) {
  for (; k < e; ++k) {
    const T* __restrict v = val + k * B * B;
    const T* __restrict xb = x + columns(k) * B;
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) s.acc[r][c] += v[r * B + c] * xb[c];
  }
}

#if defined(__AVX512F__) && defined(__AVX512VL__)
// x(c) of block j spread to lane r * 3 + c (lanes 0..8).
inline __m512 spread_x3(const float* xb) {
  const __m512i spread = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0);
  return _mm512_permutexvar_ps(spread, _mm512_castps128_ps512(_mm_maskz_loadu_ps(0x7, xb)));
}

template <class Columns>
inline void bsr_block_row(BlockSums<float, 3>& s, const float* __restrict val, Columns& columns, std::int64_t k,
                          std::int64_t e, const float* __restrict x) {
  __m512 a[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  for (; k + 4 <= e; k += 4)
    for (int u = 0; u < 4; ++u)
      a[u] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(0x1FF, val + (k + u) * 9), spread_x3(x + columns(k + u) * 3), a[u]);
  for (int u = 0; k < e; ++k, ++u)
    a[u] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(0x1FF, val + k * 9), spread_x3(x + columns(k) * 3), a[u]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3])));
  for (int i = 0; i < 9; ++i) s.acc[i / 3][i % 3] += lanes[i];
}

// Double: entries 0..7 of a block in one vector, entry 8 (v(2, 2) * x(2)) in a second, one lane used.
template <class Columns>
inline void bsr_block_row(BlockSums<double, 3>& s, const double* __restrict val, Columns& columns, std::int64_t k,
                          std::int64_t e, const double* __restrict x) {
  const __m512i spread = _mm512_set_epi64(1, 0, 2, 1, 0, 2, 1, 0);
  __m512d a[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
  __m128d t[2] = {_mm_setzero_pd(), _mm_setzero_pd()};
  auto block = [&](std::int64_t j, int u) {
    const double* __restrict v = val + j * 9;
    const double* __restrict xb = x + columns(j) * 3;
    const __m512d xv = _mm512_permutexvar_pd(spread, _mm512_castpd256_pd512(_mm256_maskz_loadu_pd(0x7, xb)));
    a[u] = _mm512_fmadd_pd(_mm512_loadu_pd(v), xv, a[u]);
    t[u] = _mm_fmadd_sd(_mm_load_sd(v + 8), _mm_load_sd(xb + 2), t[u]);
  };
  for (; k + 2 <= e; k += 2) block(k, 0), block(k + 1, 1);
  if (k < e) block(k, 0);
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, _mm512_add_pd(a[0], a[1]));
  for (int i = 0; i < 8; ++i) s.acc[i / 3][i % 3] += lanes[i];
  s.acc[2][2] += _mm_cvtsd_f64(_mm_add_sd(t[0], t[1]));
}
#endif

}  // namespace spkit::cpu
