#pragma once
// The suite loop of `spkit bench` and Python's spkit.bench(), written once: measure the machine, build the
// suite (headline matrices sized past where the bandwidth sweep saw memory), then per matrix every
// selected kernel x precision x thread count through run_spmv, the auto-selector's rows and the SpGEMM
// and SpMM sections, saving results.json/results.csv atomically after every kernel group. Progress and
// interruption go through callbacks; printing is the caller's.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/harness/bench_spgemm.hpp"
#include "spkit/harness/bench_spmm.hpp"
#include "spkit/harness/results.hpp"
#include "spkit/harness/runner.hpp"

namespace spkit::harness {

// Before each cell run (also the auto rows').
struct SuiteCellEvent {
  std::string matrix;
  std::size_t matrix_index = 0, matrices = 0;  // 0-based index, suite size
  const KernelInfo* kernel = nullptr;          // what runs (for an auto row: the pick)
  Precision precision = Precision::f64;
  int threads = 1;
  bool auto_row = false;
  std::size_t cell = 0;   // 1-based, within this matrix (baselines the runner adds can pass `cells`)
  std::size_t cells = 0;  // the selected cells this matrix still had to run
  std::string label;      // "[i/n] name (nnz nnz)", for progress lines
};

struct SuiteRunOptions {
  // The suite: generated families at `size` (unless !generated) plus matrix files and folders.
  std::string size = "default";
  bool generated = true;
  std::vector<std::string> files;
  std::uint64_t seed = 42;  // generated matrices and x
  // The cells.
  std::string kernels = "all";
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions{Precision::f64, Precision::f32};
  std::vector<int> threads;  // empty: default_thread_sweep(cores)
  // false: headline matrices run the parallel kernels at the largest thread count only (the sweep runs
  // on the other matrices); true (the counts were asked for): every matrix runs every count.
  bool threads_given = false;
  int reps = 20;
  bool reps_fixed = false;  // false: matrices past tuning::kFullRepsNnz get fewer (suite_reps)
  int warmup = 2;
  bool all_cells = false;   // also time formats that degenerate on a matrix (degenerate_format_reason)
  bool auto_rows = true;    // the selector's pick per matrix, precision and thread count (kernel "auto")
  std::int64_t expected_products = 1000000;
  bool spgemm = true;       // the SpGEMM section (C = A A)
  std::string spgemm_variants = "all";
  std::int64_t spgemm_max_products = default_spgemm_max_products();
  bool spmm = true;         // the SpMM section (Y = A X, k = 4, 16, 64; bench_spmm.hpp)
  bool measure_bandwidth = true;         // the sweep and the roofline bandwidths (else the OS's cache size)
  bool time_fast_matrix_market = true;   // Matrix Market files: also fast_matrix_market's parse rate
  // Output: results.{json,csv} (and spgemm.{json,csv}, spmm.{json,csv}) in `out` after every kernel group;
  // "" writes nothing.
  std::string out;
  bool resume = false;  // keep the cells already in out/results.json, run the rest
  // Callbacks, each optional. log: a line to keep; status: a transient progress line (new_item: a new
  // matrix or kernel starts); on_cell: before every cell; stop: polled before every cell and matrix,
  // true ends the run with what is done (results marked incomplete). fraction: work done so far (0..1).
  std::function<void(const std::string& line)> log;
  std::function<void(const std::string& text, bool new_item, double fraction)> status;
  std::function<void(const SuiteCellEvent& event, double fraction)> on_cell;
  std::function<bool()> stop;
};

struct SuiteRun {
  BenchResults results;
  std::vector<SpgemmBenchEntry> spgemm;
  std::vector<SpmmBenchEntry> spmm;
  // One line per backend or comparison library that is not there ("GPU kernels not run: ..."), printed
  // once instead of a row per kernel.
  std::vector<std::string> absent;
  bool interrupted = false;
};

// Timed repetitions for a matrix of `nnz` non-zeros: `reps` up to tuning::kFullRepsNnz, proportionally
// fewer beyond, never under tuning::kMinSuiteReps (nor over `reps`); `reps` itself when fixed.
int suite_reps(int reps, bool fixed, double nnz);

// Lines naming what this build or machine lacks for the selected kernels: CUDA kernels with no device
// (or no CUDA in the build; counted over the SpMV patterns and, when not empty, the SpGEMM ones) and
// comparison libraries not found at build time.
std::vector<std::string> absent_backends(const std::string& kernel_patterns, DeviceSelect device,
                                         const std::string& spgemm_patterns = "");

// Runs the suite. `header` carries what the caller records (command, options, version, commit); the loop
// fills machine, matrices, rows, wall_s and complete. Throws spkit::Error for options that select nothing.
SuiteRun run_suite(const SuiteRunOptions& opts, BenchResults header);

}  // namespace spkit::harness
