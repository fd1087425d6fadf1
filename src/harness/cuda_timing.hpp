#pragma once
// The CUDA half of time_spmv (cuda_timing.cu, built only with CUDA); timing.cpp dispatches to it.
#include <cstdint>
#include <vector>

#include "spkit/harness/timing.hpp"

namespace spkit::harness::cuda_timing {

template <class T>
std::vector<double> time_cuda_spmv(SpmvPlan<T>& plan, std::int64_t rows, std::int64_t cols, const T* host_x,
                                   T* host_y, const TimingOptions& opts);

}  // namespace spkit::harness::cuda_timing
