#pragma once
// CPU Gustavson SpGEMM with its route chosen by the caller (src/spgemm/cpu/csr.cpp), so that the tests
// cover the two-pass route, which the registered kernels take only when C's bound exceeds memory, and
// one_pass_copied: the one-pass route with every chunk of rows written into arrays of its own and copied
// into C, which with several threads happens only to the chunks the other threads than the first win.
#include "spkit/spgemm.hpp"

namespace spkit::detail {

enum class GustavsonRoute { automatic, one_pass, one_pass_copied, two_pass };
enum class GustavsonAccumulator { dense, hash };

template <class T>
SpgemmResult<T> cpu_gustavson(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts,
                              GustavsonAccumulator accumulator, GustavsonRoute route);

}  // namespace spkit::detail
