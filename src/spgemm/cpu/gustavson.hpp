#pragma once
// CPU Gustavson SpGEMM with its route chosen by the caller (src/spgemm/cpu/csr.cpp), so that the tests
// cover the two-pass route, which the registered kernels take only when C's bound exceeds memory, and
// the one-pass route's rarer paths (one_pass.hpp): one_pass_copied, every chunk of rows written into
// an arena and appended to C (with several threads, what happens to the chunks the other threads than
// the first finish); one_pass_stolen, every chunk another thread claims taken over by thread 0 (what
// happens to the chunk of a thread the OS has descheduled); one_pass_assembled, the chunks assembled
// into C by all threads past a barrier (what the one-pass route does with many threads).
#include "spkit/spgemm.hpp"

namespace spkit::detail {

enum class GustavsonRoute { automatic, one_pass, one_pass_copied, one_pass_stolen, one_pass_assembled, two_pass };
enum class GustavsonAccumulator { dense, hash };

template <class T>
SpgemmResult<T> cpu_gustavson(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts,
                              GustavsonAccumulator accumulator, GustavsonRoute route);

}  // namespace spkit::detail
