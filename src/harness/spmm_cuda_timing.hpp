#pragma once
// The CUDA half of time_spmm (spmm_timing.cu, built only with CUDA); spmm_timing.cpp dispatches to it.
#include "spkit/harness/spmm_runner.hpp"

namespace spkit::harness::cuda_timing {

template <class T>
std::vector<double> time_cuda_spmm(SpmmPlan<T>& plan, std::int64_t x_elements, std::int64_t y_elements,
                                   const T* host_x, std::int64_t ldx, T* host_y, std::int64_t ldy,
                                   const TimingOptions& opts, T alpha, T beta);

}  // namespace spkit::harness::cuda_timing
