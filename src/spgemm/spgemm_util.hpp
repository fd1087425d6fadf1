#pragma once
// Private helpers shared by the CPU SpGEMM kernels: the shape check, the OpenMP team size of a call,
// the stage boundaries (stage_marks.hpp) and the memory check done before C (or a scratch array) is
// allocated.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "formats/convert_util.hpp"
#include "platform/memory.hpp"
#include "spkit/error.hpp"
#include "spgemm/stage_marks.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::detail {

// Throws spkit::Error when a.cols != b.rows (defined in reference.cpp, the one wording of it).
template <class T>
void check_spgemm_shapes(const Csr<T>& a, const Csr<T>& b);

// Sets OpenMP's default team size for the scope of a kernel call, so that every parallel region it
// reaches (its own, and those of csr_to_bmsparse, bmsparse_to_csr, the prefix sums) uses the
// kernel's thread count rather than all cores; restores the previous value on exit.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(std::max(1, threads)); }
  ~ScopedOmpThreads() { omp_set_num_threads(previous_); }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int previous_;
};

// Throws TooLarge naming `bytes` when `what` would need more than `share` of the memory available now
// (scratch takes at most half, so that A, B and C keep the rest).
inline void check_spgemm_memory(const std::string& what, std::uint64_t bytes, double share = 1.0) {
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(available_memory_bytes()) * share);
  check_budget(what, bytes, FormatLimits{std::max<std::uint64_t>(budget, 1)});
}

}  // namespace spkit::detail
