#pragma once
// The measured constants of spkit in one place: launch shapes, thresholds, chunk sizes and cost-model
// efficiencies that were tuned or fitted on a machine, each with what it controls, where it was measured
// and the note that holds the data (docs/perf/...). A constant that is a property of an algorithm rather
// than a measurement (a warp is 32 lanes, a bmSparse block is 8x8) stays where it is used.
#include <cstdint>

namespace spkit::tuning {

// =============================================================================================
// CPU SpMV kernels (src/kernels/cpu)
// =============================================================================================



// =============================================================================================
// CUDA SpMV kernels (src/kernels/cuda)
// =============================================================================================



// =============================================================================================
// Auto-selection (src/select)
// =============================================================================================



// =============================================================================================
// SpGEMM (src/spgemm)
// =============================================================================================



// =============================================================================================
// Benchmark suite (src/harness)
// =============================================================================================



}  // namespace spkit::tuning
