#pragma once
// The benchmark's results: one row per matrix x kernel x precision x threads, with the matrix's
// statistics, the machine and the spkit build. Saved as results.json (the full record) and
// results.csv (the same rows, flat), both written atomically (temporary file + rename).
// `spkit compare` reads two results.json and compares them cell by cell.
#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "spkit/harness/machine.hpp"
#include "spkit/harness/runner.hpp"
#include "spkit/stats.hpp"

namespace spkit::harness {

// One matrix of the run: where it came from, its statistics, and (files only) how fast it parses.
struct MatrixRecord {
  std::string name, family, source;
  bool generated = true;
  MatrixStats stats;
  double load_ms = 0;          // generate or load (parse + CSR)
  double file_mb = 0;          // Matrix Market text size (uncompressed), 0 for generated / .spkb
  double parse_mb_s = 0;       // our reader (read_matrix_market), text MB per second; 0: n/a
  double fmm_parse_mb_s = 0;   // fast_matrix_market's read_coo from Python; 0: not available
  bool headline = false;       // sized for the headline: working set >= 4x the last-level cache
  int reps = 0;                // timed repetitions per cell on this matrix (0: not recorded)
};

// How a row's working set (CSR in its precision + x + y: csr_effective_bytes) compares with the cache
// of its device (CPU: MachineInfo::llc_bytes, GPU: gpu_l2_bytes). ratio 0: the cache size is unknown.
struct CacheFit {
  std::uint64_t working_set_bytes = 0, cache_bytes = 0;
  double ratio = 0;  // working set / cache
  bool in_cache() const { return ratio > 0 && ratio <= 1.0; }
  bool beyond_4x() const { return ratio >= 4.0; }
};
CacheFit cache_fit(const MatrixStats& s, const std::string& precision, const std::string& backend, const MachineInfo& m);

struct BenchRow {
  std::string matrix;  // MatrixRecord::name
  SpmvResult result;
};

struct BenchResults {
  std::string schema = "spkit-bench/1";
  std::string spkit_version, git_commit, created_utc, command;
  std::vector<std::pair<std::string, std::string>> options;  // what the run was asked (for the report)
  MachineInfo machine;
  std::vector<MatrixRecord> matrices;
  std::vector<BenchRow> rows;
  double wall_s = 0;
  bool complete = false;  // false while running and after an interruption

  const MatrixRecord* find_matrix(const std::string& name) const;
};

// (matrix, kernel, precision, threads): the identity of a cell across runs. A CUDA row measured with
// L2 flushed between runs is its own cell: its kernel part reads "<kernel> [L2-flushed]".
using CellKey = std::tuple<std::string, std::string, std::string, int>;
CellKey cell_key(const BenchRow& row);
std::set<CellKey> finished_cells(const BenchResults& r);

// The flat row keys, in CSV column order (documented in docs/BENCH.md).
const std::vector<std::string>& row_keys();

std::string results_to_json(const BenchResults& r);  // pretty-printed
// The rows of one `spkit spmv` run as a JSON array (the same keys as a results.json row, less the
// matrix's and machine's).
std::string spmv_results_to_json(const std::vector<SpmvResult>& rows);
BenchResults results_from_json(const std::string& text, const std::string& source = "<json>");
std::string results_to_csv(const BenchResults& r);   // header + one line per row
BenchResults read_results(const std::string& path);  // throws spkit::Error naming the file
// Writes dir/results.json and dir/results.csv, each via a temporary file and rename (creates dir).
void write_results(const std::string& dir, const BenchResults& r);
// Writes `text` to `path` through `path.tmp.<pid>` + rename, so readers never see a partial file.
void write_file_atomic(const std::string& path, const std::string& text);

// spkit compare: new/old median time per cell.
struct CompareCell {
  std::string matrix, kernel, precision;
  int threads = 1;
  double old_ms = 0, new_ms = 0, ratio = 0;  // ratio = new / old median time (> 1: slower)
  bool old_valid = false, new_valid = false;
  bool slower = false;           // ratio > 1 + threshold
  bool lost_validation = false;  // valid before, not now
};
struct CompareKernel {
  std::string kernel;
  int cells = 0, slower = 0, lost_validation = 0;
  double geomean_ratio = 0;  // over cells timed in both (0 when none)
};
struct CompareReport {
  double threshold = 0.10;
  std::vector<CompareCell> cells;      // cells present in both
  std::vector<CompareKernel> kernels;  // sorted by name
  int only_old = 0, only_new = 0;
  int slower = 0, lost_validation = 0;
  double geomean_ratio = 0;
  bool regression() const { return slower > 0 || lost_validation > 0; }
};
CompareReport compare_results(const BenchResults& old_results, const BenchResults& new_results, double threshold);
std::string compare_to_json(const CompareReport& c);

}  // namespace spkit::harness
