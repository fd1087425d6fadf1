#pragma once
// Helpers for the kernels' cost models (KernelInfo::cost, read by the auto-selector): byte counts from
// MatrixStats in a precision, and the pieces several models share. Host-only, usable from .cu files.
// Efficiencies are fractions of the measured copy bandwidth; where each figure comes from is said at
// the model (data: docs/perf/data/gpu-bench-h100-large.csv, docs/perf/selector.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::cost {

inline std::uint64_t value_bytes(Precision p) { return p == Precision::f32 ? 4 : 8; }
inline std::uint64_t in(const MatrixStats::Bytes& b, Precision p) { return p == Precision::f32 ? b.f32 : b.f64; }
// x read once and y written once.
inline std::uint64_t vector_bytes(const MatrixStats& s, Precision p) {
  return static_cast<std::uint64_t>(s.rows + s.cols) * value_bytes(p);
}
// CSR with `row_ptr_bytes`-wide offsets and `col_bytes`-wide column indices, vectors included.
inline std::uint64_t csr_bytes(const MatrixStats& s, Precision p, int row_ptr_bytes = 8, int col_bytes = 4) {
  return static_cast<std::uint64_t>(s.rows + 1) * row_ptr_bytes +
         static_cast<std::uint64_t>(s.nnz) * (col_bytes + value_bytes(p)) + vector_bytes(s, p);
}
// Bytes of one matrix row of length `len` (column index + value).
inline std::uint64_t row_entry_bytes(Precision p) { return 4 + value_bytes(p); }

inline CostEstimate not_applicable(std::string why) {
  CostEstimate e;
  e.applicable = false;
  e.note = std::move(why);
  return e;
}

// Squared coefficient of variation of the row lengths: 0 for uniform rows, ~1 for road networks,
// ~1000 for power-law rows. Kernels that give each thread or warp one row slow down with it.
inline double row_irregularity(const MatrixStats& s) {
  return s.row_nnz_mean > 0 ? (s.row_nnz_std / s.row_nnz_mean) * (s.row_nnz_std / s.row_nnz_mean) : 0.0;
}

// Efficiency of a kernel that streams `bytes` at `eff` of copy bandwidth but must also run one row of
// `long_row_bytes` on one thread block at `serial_fraction` of copy bandwidth, added to (additive) or
// overlapped with (max) the rest: folded into one efficiency, since time = bytes / (eff * bandwidth).
inline double with_long_row(double eff, std::uint64_t bytes, double long_row_bytes, double serial_fraction,
                            bool overlapped) {
  const double stream = static_cast<double>(bytes) / eff, serial = long_row_bytes / serial_fraction;
  const double t = overlapped ? std::max(stream, serial) : stream + serial;
  return t > 0 ? static_cast<double>(bytes) / t : eff;
}

// x gathers the format's bytes do not count: a non-zero alone in its 8x8 block (bm_block_histogram[1])
// shares no 32-byte sector (GPU) or 64-byte line (CPU) of x with a neighbour, so its gather moves far more
// than one value: the extra bytes per such non-zero of src/tuning.hpp (fitted / measured there).
inline double isolated_gather_bytes(const MatrixStats& s, Backend b) {
  return static_cast<double>(s.bm_block_histogram[1]) *
         (b == Backend::cuda ? tuning::kGpuIsolatedGatherBytes : tuning::kCpuIsolatedGatherBytes);
}
// Folds those gathers into an efficiency over `bytes`: time = (bytes + gathers) / (eff x bandwidth).
inline double with_gathers(double eff, std::uint64_t bytes, const MatrixStats& s, Backend b) {
  const double own = static_cast<double>(bytes);
  return own > 0 ? eff * own / (own + isolated_gather_bytes(s, b)) : eff;
}

// BSR at MatrixStats' block size (cpu.bsr.omp, cuda.bsr.group): why it does not apply (no non-zeros, blocks that
// would store more than tuning::kCpuBsrMaxFill entries per non-zero), empty when it does; and its bytes: b*b
// values and a `col_bytes` column per block, block-row offsets (x and y not included).
inline std::string bsr_refusal(const MatrixStats& s) {
  if (s.bsr_block == 0 || s.nnz == 0) return "no non-zeros";
  if (s.bsr_fill > tuning::kCpuBsrMaxFill)
    return std::to_string(s.bsr_block) + "x" + std::to_string(s.bsr_block) + " blocks would store too many explicit zeros";
  return "";
}
inline std::uint64_t bsr_block_bytes(const MatrixStats& s, Precision p, int col_bytes) {
  const int b = s.bsr_block;
  return static_cast<std::uint64_t>(s.bsr_blocks) * (static_cast<std::uint64_t>(b * b) * value_bytes(p) + col_bytes) +
         static_cast<std::uint64_t>((s.rows + b - 1) / b + 1) * 8;
}

inline std::string percent(double fraction) {
  return std::to_string(static_cast<int>(std::lround(fraction * 100))) + "%";
}

}  // namespace spkit::cost
