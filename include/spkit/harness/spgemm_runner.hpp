#pragma once
// Runs registered SpGEMM kernels on one product C = A B the way `spkit spgemm` and `spkit bench` do:
// each kernel x precision runs warm-up + timed products (time_spgemm), is validated against the fp64 reference
// (check_spgemm with the kernel's unit roundoff) and becomes one row. A kernel that does not apply,
// runs out of memory or fails on the device is a "skipped" row with the reason; a wrong C is a
// "FAILED" row; neither stops the run.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/harness/runner.hpp"  // DeviceSelect
#include "spkit/harness/spgemm_timing.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::harness {

struct SpgemmRunOptions {
  std::string kernels = "all";  // comma-separated globs over spgemm_registry() names
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions{Precision::f64};
  SpgemmOptions run;            // threads (device, stream, memory_limit); the recorder is the harness's own
  SpgemmTimingOptions timing;   // warmup, reps (GPU kernels get at least 10 reps)
  // Also run the comparisons the ratios need when the globs left them out: every ref.mkl* comparison next
  // to CPU kernels, every cuda.cusparse.* algorithm next to CUDA kernels (when a GPU is present).
  bool add_baselines = true;
  // Called before each kernel x precision runs (progress output).
  std::function<void(const SpgemmKernelInfo&, Precision, std::size_t index, std::size_t total)> on_kernel;
  // When set and it returns a reason, the kernel is not run and its row is "skipped" with that note
  // (the bench uses it to leave out products that would take minutes, see bench_spgemm.cpp).
  std::function<std::string(const SpgemmKernelInfo&)> skip_reason;
  // Receives C (in double) of each validated run, e.g. for --c-out.
  std::function<void(const SpgemmKernelInfo&, Precision, const Csr<double>& c)> on_result;
};

struct SpgemmRow {
  std::string kernel, format, backend, precision;
  std::string arithmetic;            // block-product precision when it differs from `precision`
  int threads = 1;
  bool comparison = false;
  std::vector<SpgemmStage> stages;   // median ms per stage, pipeline order
  double total_ms = 0;               // median over timed runs of the stages with in_total
  double min_total_ms = 0;           // fastest timed run (on a shared machine, the least disturbed)
  std::int64_t out_nnz = -1, out_blocks = -1, tasks = -1;
  std::int64_t products = 0;         // intermediate products (scalar multiply-adds) of A B
  double gflops = 0;                 // 2 * products / total_ms
  // Speed relative to the baselines of the same precision in this run: their total / this total
  // (> 1: faster than the baseline); 0 when the baseline did not run.
  double vs_cusparse = 0, vs_mkl = 0;
  // The same against the fastest algorithm of each vendor library in this run ("cuSPARSE best": every
  // cuda.cusparse.* comparison kernel; "MKL best": every ref.mkl* one) and which that was ("" when none ran).
  std::string cusparse_best, mkl_best;
  double vs_cusparse_best = 0, vs_mkl_best = 0;
  double rel_error = 0, max_abs_error = 0;  // against the fp64 reference
  // Memory the product took at its peak on its backend (SpgemmTiming::peak_bytes); -1: not read.
  std::int64_t peak_bytes = -1;
  std::string status;                // "ok", "FAILED", "skipped"
  std::string note;                  // the kernel's detail, or why it was skipped / failed
};

std::vector<SpgemmRow> run_spgemm(const Csr<double>& a, const Csr<double>& b, const SpgemmRunOptions& opts);
// The same over any registry (tests use a local one holding a deliberately broken kernel).
std::vector<SpgemmRow> run_spgemm(const SpgemmRegistry& reg, const Csr<double>& a, const Csr<double>& b,
                                  const SpgemmRunOptions& opts);

// Rows as a JSON array (one object per row, stages as an array of {name, ms, in_total}) and as CSV
// (stages flattened into one "name=ms;..." column), for --json and the bench results.
std::string spgemm_rows_to_json(const std::vector<SpgemmRow>& rows, int indent = 2);
std::string spgemm_rows_to_csv(const std::vector<SpgemmRow>& rows, const std::string& matrix_column = "",
                               bool header = true);

// The SpGEMM section of `spkit bench`: C = A A for each suite matrix where it applies.
struct SpgemmBenchEntry {
  std::string matrix;
  std::int64_t rows = 0, cols = 0, nnz = 0, products = 0;  // products: intermediate products of A A
  std::string skipped;            // why this matrix has no SpGEMM rows (empty: it ran)
  // Empty: A is the suite matrix. Otherwise A is a smaller instance of its generated family (the suite's
  // one was sized for SpMV and its A A is over the products budget), described here ("generated: ... n=").
  std::string instance;
  std::vector<SpgemmRow> results;
};
// Writes dir/spgemm.json ({"schema": "spkit-spgemm/1", "max_products", "entries": [{matrix, rows, cols,
// nnz, products, skipped, instance, results: [rows as spgemm_rows_to_json]}]}) and dir/spgemm.csv (one line per
// row, with the matrix), each atomically. keep_existing (--resume): entries already in dir/spgemm.json
// for matrices not in `entries` are kept.
void write_spgemm_bench(const std::string& dir, const std::vector<SpgemmBenchEntry>& entries,
                        std::int64_t max_products, bool keep_existing);

}  // namespace spkit::harness
