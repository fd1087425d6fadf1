#pragma once
// Sparse matrix-matrix product C = A * B (SpGEMM): the CPU references (Gustavson on CSR, bmSparse
// block by block), the bmSparse GPU pipeline of Berger et al. (stages T1-T7) with its block-product
// variants, and the comparison libraries (cusparseSpGEMM, MKL sp2m). One registry, as for SpMV:
// `spkit spgemm`, the tests and `spkit bench` iterate spgemm_registry(); there is no second list.
//
// Contract of an SpGEMM kernel: it takes A and B in CSR on the host, computes C = A B once (its own
// conversion to bmSparse, its uploads and the download of C included) and returns C in CSR on the host
// with columns sorted and exact zeros dropped, plus what it knows (blocks, tasks, detail). It times
// nothing itself: a caller that wants stage times passes a SpgemmStageRecorder (the benchmark harness
// does, and runs the kernel warm-up + timed times); without one the kernel just computes.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"

namespace spkit {

// Where a stage's work runs. A host stage has finished its work when the next stage begins; a device
// stage has only been enqueued on SpgemmOptions::stream and may still be running.
enum class StageSite { host, device };

// Receives the stage boundaries of one kernel call, so that its caller can time them (the harness: a
// steady clock for host stages, CUDA events on the kernel's stream for device stages). Stages are
// contiguous: begin_stage ends the stage before it, end_stages ends the last one.
class SpgemmStageRecorder {
 public:
  virtual ~SpgemmStageRecorder() = default;
  // name: "T1 count", ..., "T7 compact"; "symbolic", "numeric"; "convert", "upload", "download", ...
  // in_total: part of the product's time; false for preparation (conversion, upload) and for handing C
  // back (download, to CSR), which the product time excludes.
  virtual void begin_stage(const char* name, bool in_total, StageSite site) = 0;
  virtual void end_stages() = 0;
};

struct SpgemmOptions {
  int threads = 1;   // OpenMP threads of the CPU kernels (MKL too)
  int device = 0;    // CUDA device ordinal
  // Plain radix sort of the task list instead of the segmented sort when it holds fewer tasks than
  // this (Berger et al.'s adaptive sort); -1: the measured default (tuning::spgemm).
  std::int64_t sort_threshold = -1;
  // CUDA kernels: every launch, copy, CUB and cuSPARSE call, and every allocation from the SpGEMM
  // memory pool, is enqueued on this stream (null: the legacy default stream).
  Stream stream{};
  // CUDA kernels: leave the memory this product took from the device's SpGEMM pool in the pool when
  // it returns, so that the next product reuses it rather than mapping it again (the harness does so
  // between its repeated runs); false returns it to the device.
  bool keep_device_pool = false;
  // Stage boundaries go here when set (not owned); nullptr: the kernel just computes.
  SpgemmStageRecorder* recorder = nullptr;
};

template <class T>
struct SpgemmResult {
  Csr<T> c;                           // C = A B on the host: sorted columns, exact zeros dropped
  std::int64_t out_blocks = -1;       // bmSparse kernels: non-empty 8x8 blocks of C; -1 otherwise
  std::int64_t tasks = -1;            // bmSparse kernels: block products A(i,j) B(j,k) (the task list)
  std::string detail;                 // e.g. "segmented sort", "radix sort (tasks < threshold)"
};

// Scalar multiply-adds of the product: sum over stored a_ij of the stored entries of row j of B.
// GFLOPS of every kernel = 2 * intermediate_products / time (true products, never block padding).
template <class T>
std::int64_t spgemm_intermediate_products(const Csr<T>& a, const Csr<T>& b);

template <class T>
using SpgemmFn = std::function<SpgemmResult<T>(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts)>;

struct SpgemmKernelInfo {
  std::string name;         // dotted: backend.format.variant (cpu.csr.gustavson, cuda.bmsparse.tc_fp16, ...)
  Format format = Format::csr;  // the format the product runs in (csr or bmsparse)
  Backend backend = Backend::cpu;
  bool parallel = false;    // uses SpgemmOptions::threads
  bool comparison = false;  // a vendor baseline (cuda.cusparse.spgemm, ref.mkl.sp2m)
  // Precision of the block products when it differs from the value type (e.g. "fp16 in, fp32 acc"),
  // empty when the kernel computes in T; errors are reported against the fp64 reference either way.
  std::string arithmetic;
  // Unit roundoff of that arithmetic, used to validate against the fp64 reference (check_spgemm):
  // 0 means "the value type's" (2^-24 float, 2^-53 double); 2^-11 for fp16 inputs, 2^-11 for tf32.
  double unit_roundoff = 0;
  // Absolute rounding of an input that falls below the arithmetic's normal range (fp16 inputs: values
  // under 2^-14 are subnormal, rounded to a multiple of 2^-24, so the error is up to 2^-25 whatever
  // their size); 0 for arithmetics with the value type's exponent range. Passed to check_spgemm.
  double input_underflow = 0;
  std::string description;  // one line, naming the algorithm and its paper or library
  // A kernel that does not exist for a value type leaves that factory empty (e.g. FP64 tensor cores
  // have no float form); one that does not apply to a matrix throws NotApplicable.
  SpgemmFn<float> run_f32;
  SpgemmFn<double> run_f64;

  template <class T>
  const SpgemmFn<T>& fn() const {
    if constexpr (sizeof(T) == 4) return run_f32; else return run_f64;
  }
};

using SpgemmRegistry = RegistryOf<SpgemmKernelInfo>;

// The process-wide SpGEMM registry, filled on first use by src/spgemm/registry.cpp.
const SpgemmRegistry& spgemm_registry();

// `--variant auto`: the kernel to run on a backend for C = A B, from A's statistics (compute_stats) and
// B's width, by the crossovers measured in docs/perf/spgemm*.md (tuning::spgemm); reason is one readable line. Throws
// NotApplicable when the pick is not in this build (e.g. CUDA kernels without CUDA).
struct SpgemmSelection {
  std::string kernel;
  std::string reason;
};
SpgemmSelection select_spgemm_kernel(const MatrixStats& a, std::int64_t b_cols, Backend backend, Precision precision);

// The serial reference: row-by-row Gustavson with a dense accumulator, products and sums in double,
// result rounded to T once; columns sorted, exact zeros dropped. Throws spkit::Error when a.cols != b.rows.
template <class T>
Csr<double> spgemm_reference(const Csr<T>& a, const Csr<T>& b);

// Validation of C against the fp64 reference C_ref (the CPU Gustavson product of the same rounded
// inputs): same pattern after dropping exact zeros, except entries whose reference magnitude is
// below the row's tolerance (cancellation), and each value within
// tol_i = k * u * sum_j |a_ij| * max|b_j*| (k small, u the unit roundoff of `arithmetic`).
struct SpgemmCheck {
  bool ok = false;
  double rel_error = 0;       // ||C - C_ref||_F / ||C_ref||_F
  double max_abs_error = 0;
  std::int64_t pattern_mismatches = 0;
  std::string message;        // why it failed, empty when ok
};
// unit_roundoff: 2^-24 (fp32), 2^-53 (fp64), 2^-11 (fp16 inputs), 2^-11 (tf32: 10-bit mantissa)
template <class T>
// input_underflow (eta): each input may also carry an absolute error up to eta (subnormal inputs), so each
// product a*b adds eta*(|a| + |b|) + eta^2 to the row's tolerance.
SpgemmCheck check_spgemm(const Csr<T>& a, const Csr<T>& b, const Csr<T>& c, double unit_roundoff,
                         double input_underflow = 0);

}  // namespace spkit
