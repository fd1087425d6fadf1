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
  // cuda.csr.binned: hash tables of 2,048 keys tried before 4,096 and numeric tables of 1,536 and 3,072
  // slots, used when many rows are tried in the largest table; -1: that count decides (tuning::spgemm),
  // 0: never, 1: always (tests reach the paths on small products).
  int compact_tables = -1;
  // cuda.csr.binned: its short rows, merged one thread each, sum one product a step (1) or one column of C
  // a step (0); -1: each warp of rows takes the one its products per column favour (tuning::spgemm; tests
  // reach both on small products).
  int merge_step = -1;
  // CUDA kernels: every launch, copy, CUB and cuSPARSE call, and every allocation from the SpGEMM
  // memory pool, is enqueued on this stream (null: the legacy default stream).
  Stream stream{};
  // CUDA kernels: leave the memory this product took from the device's SpGEMM pool in the pool when
  // it returns, so that the next product reuses it rather than mapping it again (the harness does so
  // between its repeated runs); false returns it to the device.
  bool keep_device_pool = false;
  // CUDA kernels that support it (cuda.csr.binned, cuda.csr.hash): compute C on the device and return
  // an empty result instead of downloading it (the harness's repeated timed products: a 489M-entry C
  // would cost a 5.9 GB download and a host pass per repetition; its last product keeps C to check it).
  bool discard_result = false;
  // Stage boundaries go here when set (not owned); nullptr: the kernel just computes.
  SpgemmStageRecorder* recorder = nullptr;
  // Bytes the product may take on its backend (device memory for CUDA kernels, host memory for CPU
  // kernels) on top of what it returns; 0: what is free there, or SPKIT_DEVICE_MEMORY_LIMIT when set
  // (bytes, or with a K/M/G suffix). Read by spgemm() and plan_spgemm_batches(), which split A into row
  // batches so that each batch's C fits (the kernels themselves do not read it).
  std::uint64_t memory_limit = 0;
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
  Format format = Format::csr;  // the format the product runs in (csr, bmsparse; dia and bsr refuse other structures)
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
// Every kernel `auto` may run on a backend, best first (the first is select_spgemm_kernel's pick): when
// one refuses the product (NotApplicable, TooLarge, out of device memory), spgemm() runs the next. Only
// kernels in this build's registry; NotApplicable when there is none.
std::vector<SpgemmSelection> spgemm_candidates(const MatrixStats& a, std::int64_t b_cols, Backend backend,
                                               Precision precision);
// The statistics the SpGEMM selector reads (rows, cols, nnz, mean and longest row, non-zeros per 8x8 block),
// without the rest of compute_stats (so without a copy of a float matrix in double).
template <class T>
MatrixStats spgemm_selector_stats(const Csr<T>& a);

// ---- Memory-bounded products: C computed in row batches of A when it does not fit at once.

// How a product is split: batch i is rows [row_starts[i], row_starts[i + 1]) of A (one batch: the
// whole product in one call).
struct SpgemmBatchPlan {
  std::vector<std::int64_t> row_starts;
  std::uint64_t budget_bytes = 0;    // what the product may take on its backend (SpgemmOptions::memory_limit)
  std::uint64_t c_bytes = 0;         // C's bytes on the host, exact when `counted`, else an upper bound
  std::uint64_t batch_bytes = 0;     // the largest batch's estimated footprint on the backend
  bool counted = false;              // row sizes of C from a symbolic count (the upper bound did not fit)
  std::int64_t batches() const { return static_cast<std::int64_t>(row_starts.size()) - 1; }
};
// Sizes the batches of C = A B for kernel k: each row of C bounded by min(its products, B's columns)
// (counted exactly when that bound does not fit), each batch's C, A slice, B and the kernel's working
// space (tuning::spgemm) within the budget. Throws TooLarge naming the bytes, before any work, when C
// does not fit in host memory, or when B or a single row of C does not fit the budget.
template <class T>
SpgemmBatchPlan plan_spgemm_batches(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b,
                                    const SpgemmOptions& opts);
// C = A B with kernel k, one call per batch of `plan` (C_batch = A[r0:r1, :] B), each batch's C
// appended on the host. With a recorder, each batch's stages are reported prefixed "batch i/n: ".
template <class T>
SpgemmResult<T> spgemm_batched(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts,
                               const SpgemmBatchPlan& plan);
// SPKIT_DEVICE_MEMORY_LIMIT in bytes (0 when unset); Error when it is not what parse_memory_bytes reads.
std::uint64_t spgemm_memory_limit_from_env();
// "1500000", "64K", "1.5M", "2G", "2GiB" (powers of 1024) in bytes; Error naming `what` otherwise.
std::uint64_t parse_memory_bytes(const std::string& text, const std::string& what);

// ---- The product as a user asks for it (the CLI's `spkit spgemm --variant auto` and Python's spkit.spgemm).

struct SpgemmRequest {
  std::string kernel = "auto";  // a registry name, or "auto": spgemm_candidates, next on refusal
  Backend backend = Backend::cpu;
  int threads = 0;              // CPU threads (0: all the process may use)
  int device = 0;               // CUDA device ordinal
  std::uint64_t memory_limit = 0;  // SpgemmOptions::memory_limit
  Stream stream{};
};

// A candidate that refused the product, and why (the exception's message).
struct SpgemmRefusal {
  std::string kernel, reason;
};

template <class T>
struct SpgemmRun {
  SpgemmResult<T> result;                // C and what the kernel reported
  std::string kernel;                    // the kernel that computed C
  std::string reason;                    // why it: the selector's line, or "requested"
  std::vector<SpgemmRefusal> refused;    // candidates tried first, in order
  SpgemmBatchPlan plan;                  // batches it ran in (batches() == 1: the whole product at once)
  // One line: "cuda.csr.hash (cuda.cusparse.spgemm refused: ...), 3 row batches: <reason>".
  std::string summary() const;
};

// Runs one product: the kernel asked for or auto's candidates in order, each in as many row batches as
// its memory needs. A refusal (NotApplicable, TooLarge, std::bad_alloc, a DeviceError for insufficient
// resources or out of memory) moves auto on to the next candidate; the last refusal is rethrown when all
// refuse. `execute` runs the product function of one attempt (default: calls it; the harness times it).
template <class T>
using SpgemmExecutor = std::function<SpgemmResult<T>(const SpgemmKernelInfo& kernel, const SpgemmFn<T>& product,
                                                     const SpgemmOptions& opts)>;
template <class T>
SpgemmRun<T> spgemm(const Csr<T>& a, const Csr<T>& b, const SpgemmRequest& request = {});
template <class T>
SpgemmRun<T> spgemm(const SpgemmRegistry& reg, const Csr<T>& a, const Csr<T>& b, const SpgemmRequest& request,
                    const SpgemmExecutor<T>& execute);
// Whether the exception in flight is a refusal (see spgemm()); call inside a catch block.
bool spgemm_refused_current_exception();

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
