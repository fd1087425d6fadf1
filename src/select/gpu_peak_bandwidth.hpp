#pragma once
// The selector's one question to a CUDA device (src/select/gpu_peak_bandwidth.cu, compiled in CUDA builds
// only; call it only when SPKIT_HAVE_CUDA is defined).
namespace spkit::select_detail {

// Theoretical memory bandwidth of `device` from its memory clock and bus width (GB/s, 2 transfers per
// clock); 0 when the device cannot be queried.
double gpu_peak_memory_gbs(int device);

}  // namespace spkit::select_detail
