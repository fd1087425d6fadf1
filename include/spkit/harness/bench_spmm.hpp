#pragma once
// The SpMM section of the bench suite (bench_loop.hpp): Y = A X with row-major X of k = 4, 16, 64 columns
// for each suite matrix, the auto-selector's pick on each backend against the vendor SpMM (cuSPARSE's CSR
// algorithms, MKL) in the same run and against k SpMVs with spkit's SpMV pick. Written to spmm.json and
// spmm.csv beside results.json; the report draws its table from spmm.json.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/harness/device_select.hpp"
#include "spkit/harness/spmm_runner.hpp"

namespace spkit::harness {

struct SpmmBenchOptions {
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions;
  int threads = 1;
  int reps = 3;
  int warmup = 1;
  std::vector<std::int64_t> ks{4, 16, 64};
};

struct SpmmBenchEntry {
  std::string matrix;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::string skipped;               // why the section left this matrix out ("" when it ran)
  std::vector<SpmmResult> results;   // auto rows and the vendor rows, per precision and k
};

// The widths of X the section runs: 4, 16, 64; the tiny suite (tests, quick looks) only 4.
std::vector<std::int64_t> spmm_bench_ks(bool tiny_suite);

// Runs the section on one matrix (progress through `log`) and returns its entry.
SpmmBenchEntry bench_spmm_matrix(const std::string& name, const Csr<double>& a, const SpmmBenchOptions& opts,
                                 const std::function<void(const std::string&)>& log);

// A one-line summary per backend, precision and k of an entry ("auto 12.3 GFLOPS, 3.10x k SpMVs, 1.20x
// cuSPARSE best"), for the bench's log.
std::vector<std::string> spmm_bench_summary(const SpmmBenchEntry& e);

// spmm.json ({"schema": "spkit-spmm/1", "entries": [...]}) and spmm.csv in `dir`, atomically; with
// keep_existing, entries of other matrices already in spmm.json stay (--resume).
void write_spmm_bench(const std::string& dir, const std::vector<SpmmBenchEntry>& entries, bool keep_existing);

}  // namespace spkit::harness
