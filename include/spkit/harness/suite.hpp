#pragma once
// The benchmark suite: which matrices `spkit bench` runs (generated families at a size class, plus
// real matrix files) and which cells (kernel x precision x threads) it runs on each.
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/harness/runner.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

namespace spkit::harness {

// tiny is for tests (seconds); small, medium, large: every family at one size. standard ("default",
// what `spkit bench` runs): the headline families sized past the cache (working set >= 4x the cache
// used in both precisions: headline_nnz; the bench measures that size, see cache_sweep.hpp), every
// other family at standard's own size (often in cache, and marked so).
enum class SuiteSize { tiny, small, medium, large, standard };
SuiteSize parse_suite_size(const std::string& name);  // throws spkit::Error naming the valid sizes
std::string to_string(SuiteSize s);
// Target non-zeros per generated matrix for a size class (standard: its non-headline matrices).
std::int64_t target_nnz(SuiteSize s);
// Non-zeros that put a matrix's working set (CSR + x + y, fp32 at 8 bytes per non-zero at least) at
// 4x `llc_bytes`, plus 5%; capped at kMaxHeadlineNnz (then the report shows the ratio reached).
// llc_bytes 0 (unknown): target_nnz(large).
constexpr std::int64_t kMaxHeadlineNnz = 40'000'000;
std::int64_t headline_nnz(std::uint64_t llc_bytes);

struct SuiteMatrix {
  std::string name;     // short, unique in the suite: "lap3d27", "cage4"
  std::string family;   // generator family, or "file"
  std::string source;   // "generated: lap3d points=27 n=46 seed=42" or the file path
  bool generated = true;
  GenOptions gen;       // when generated
  std::string path;     // when a file
  bool headline = false;  // sized past the last-level cache for the headline (standard suite)
};

// One generated matrix per family of SPEC §6 (lap3d twice: 7 and 27 points) and per family with the
// structure of real matrices (rmat, geometric, fem_mesh, road_planar) at about target_nnz(size);
// standard: the headline families (fem_mesh, rmat, road_planar) at headline_nnz(llc_bytes) instead.
std::vector<SuiteMatrix> generated_suite(SuiteSize size, std::uint64_t seed, std::uint64_t llc_bytes = 0);
// Expands files and folders (non-recursive) into matrix files: .mtx, .mtx.gz, .spkb, sorted by name.
// Throws spkit::Error for a path that does not exist or a folder with no matrix file.
std::vector<SuiteMatrix> matrix_files(const std::vector<std::string>& paths);
// Makes names unique (a file called like a generated family gets a "file:" prefix, repeats get "#2").
void make_names_unique(std::vector<SuiteMatrix>& suite);

// A suite matrix in memory, with how long it took to get there and (Matrix Market files) how fast
// our reader parses it: text MB (uncompressed; gzip's recorded size for .gz) per second of
// read_matrix_market, best of a few parses.
struct LoadedMatrix {
  Csr<double> a;
  double load_ms = 0;     // generate, or load_matrix (parse + CSR)
  double file_mb = 0;     // Matrix Market text size, 0 for generated and .spkb
  double parse_s = 0;     // best read_matrix_market time, 0 when not measured
  double parse_mb_s = 0;
};
LoadedMatrix load_suite_matrix(const SuiteMatrix& m, bool measure_parse);
// Uncompressed size of a Matrix Market file: its size, or for gzip the size its trailer records.
std::uint64_t matrix_text_bytes(const std::string& path);

// Default thread sweep: 1, 2, 4, ... below the logical CPUs, then all of them (1,2 on 2 CPUs). Not past
// them: oversubscribed cells only measure the scheduler, and on a small box they doubled the run.
std::vector<int> default_thread_sweep(int cores);

// One cell of the benchmark table on one matrix.
struct Cell {
  std::string kernel;
  std::string precision;  // "float" / "double" (to_string(Precision))
  int threads = 1;
  bool operator==(const Cell& o) const {
    return kernel == o.kernel && precision == o.precision && threads == o.threads;
  }
};

// Kernels the bench runs: registry names matching `patterns`, on the selected device(s); CUDA
// kernels only when `gpu_available`.
std::vector<const KernelInfo*> select_kernels(const std::string& patterns, DeviceSelect device, bool gpu_available);
// Why timing kernel `k` on a matrix with statistics `s` is pointless, or "" when it is not: its format
// degenerates there (ELL or HLL storing over tuning::kMaxPaddedBytesRatio x the bytes of CSR in padding,
// bmSparse blocks holding under tuning::kMinBmNnzPerBlock non-zeros on average). On an R-MAT graph such
// cells take minutes each and say nothing new; spkit bench skips them (reported, with this reason)
// unless --all-cells. Comparison kernels are never skipped.
std::string degenerate_format_reason(const KernelInfo& k, const MatrixStats& s);

// The cells of one kernel: precisions x (threads when parallel, else {1}).
std::vector<Cell> cells_of(const KernelInfo& k, const std::vector<Precision>& precisions, const std::vector<int>& threads);

}  // namespace spkit::harness
