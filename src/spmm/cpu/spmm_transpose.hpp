#pragma once
// In-register transposes of square blocks of one 64-byte vector per line (8 x 8 doubles, 16 x 16
// floats) for the column-major CPU SpMM (src/spmm/cpu/csr.cpp): X's columns into the row-major panel the
// register tiles read, and the tiles' rows back into Y's columns. Element by element these copies cost as
// much as the product at k = 64 (strided loads or stores, one element each); a block transpose moves
// whole vectors on both sides. log2(lanes) stages of two-input shuffles, as in the classic butterfly
// transpose.
#include <cstdint>
#include <cstring>

#include "kernels/cpu/simd_vec.hpp"

namespace spkit::cpu::spmm {

typedef std::int64_t i64x8 __attribute__((vector_size(64)));
typedef std::int32_t i32x16 __attribute__((vector_size(64)));
template <class T>
struct ShuffleMask;
template <> struct ShuffleMask<double> { using type = i64x8; };
template <> struct ShuffleMask<float> { using type = i32x16; };

// Stage s of the butterfly: lo takes the lanes of a with bit s clear and b's lanes shifted up by s, hi the
// rest (indices >= lanes select from b).
template <class T, int S, bool Hi>
__attribute__((always_inline)) inline typename ShuffleMask<T>::type butterfly_mask() {
  constexpr int L = Vec64<T>::lanes;
  typename ShuffleMask<T>::type m{};
  for (int l = 0; l < L; ++l) {
    const bool low = (l & S) == 0;
    m[l] = Hi ? (low ? l + S : L + l) : (low ? l : L + l - S);
  }
  return m;
}

template <class T, int S>
__attribute__((always_inline)) inline void butterfly_stage(vec64_t<T> (&v)[Vec64<T>::lanes]) {
  constexpr int L = Vec64<T>::lanes;
  const auto lo = butterfly_mask<T, S, false>(), hi = butterfly_mask<T, S, true>();
  for (int c = 0; c < L; ++c) {
    if (c & S) continue;
    const vec64_t<T> a = v[c], b = v[c + S];
    v[c] = __builtin_shuffle(a, b, lo);
    v[c + S] = __builtin_shuffle(a, b, hi);
  }
  if constexpr (2 * S < L) butterfly_stage<T, 2 * S>(v);
}

// v[c][r] becomes v[r][c].
template <class T>
__attribute__((always_inline)) inline void transpose_in_registers(vec64_t<T> (&v)[Vec64<T>::lanes]) {
  butterfly_stage<T, 1>(v);
}

// dst[r * ldd + c] = src[c * lds + r] for r, c < rows, cols (a block of at most lanes x lanes); whole
// blocks through registers, partial ones element by element.
template <class T>
inline void transpose_block(const T* src, std::int64_t lds, T* dst, std::int64_t ldd, std::int64_t rows,
                            std::int64_t cols) {
  constexpr int L = Vec64<T>::lanes;
  if (rows == L && cols == L) {
    vec64_t<T> v[L];
    for (int c = 0; c < L; ++c) v[c] = load64(src + c * lds);
    transpose_in_registers<T>(v);
    for (int r = 0; r < L; ++r) store64(dst + r * ldd, v[r]);
    return;
  }
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r) dst[r * ldd + c] = src[c * lds + r];
}

}  // namespace spkit::cpu::spmm
