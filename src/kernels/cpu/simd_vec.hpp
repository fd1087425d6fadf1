#pragma once
// A 64-byte vector of T (16 floats, 8 doubles) as a GCC/Clang vector extension, for the CPU kernels
// whose inner loops are unit-stride: one zmm register where AVX-512 is enabled, two ymm (AVX2) or
// four xmm otherwise, chosen by the compiler for the target, so no code path needs a CPU check.
// Why not `omp simd`: on the tiled DIA loops GCC 12 kept the 64 row sums in memory and, after
// unrolling the diagonal loop, loaded x with gathers (vgatherqps) where a contiguous load suffices,
// and -march=native on Intel prefers 256-bit vectors; explicit vectors give loads, FMAs and sums in
// registers.
#include <cstring>

namespace spkit::cpu {

// (The attribute must name a concrete type: on a template parameter GCC ignores it.)
typedef float vec16f __attribute__((vector_size(64)));
typedef double vec8d __attribute__((vector_size(64)));
template <class T>
struct Vec64;
template <>
struct Vec64<float> {
  using type = vec16f;
  static constexpr int lanes = 16;
};
template <>
struct Vec64<double> {
  using type = vec8d;
  static constexpr int lanes = 8;
};
template <class T>
using vec64_t = typename Vec64<T>::type;

// Unaligned loads and stores (memcpy compiles to one vmovups).
template <class T>
inline vec64_t<T> load64(const T* p) {
  vec64_t<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
inline void store64(T* p, vec64_t<T> v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace spkit::cpu
