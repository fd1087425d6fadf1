// spkit spmm FILE [--k 1,4,16,64] [--layout row,col] [--kernel NAME|GLOB|all|auto] [--device cpu|gpu|all]
//                 [--precision float|double|both|LIST] [--threads N[,N...]] [--reps R] [--warmup W] [--seed S]
//                 [--ordering none|auto|rcm|hubsort|community] [--expected-products N] [--json] [--quiet]
// Y = A X for a block of k random columns: one row per kernel x precision x layout x k x threads with
// timing, GFLOPS (2 nnz k / time), GB/s and bytes per column, the speedup over k SpMVs with spkit's own
// SpMV pick, and validation against the double reference. Exit code 2 when any kernel FAILED validation.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/spmm_runner.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/precision.hpp"

namespace spkit::cli {

using namespace spkit::harness;

namespace {

struct SpmmArgs {
  std::string file;
  std::string ks = "1,4,16,64";
  std::string layouts = "row";
  std::string kernel = "all";
  std::string device = "all";
  std::string precision = "double";
  std::string threads;
  int reps = 30;
  int warmup = 3;
  std::uint64_t seed = 1;
  std::string ordering = "none";
  std::int64_t expected_products = 1000000;
  bool json = false;
  bool quiet = false;
};

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ','))
    if (!part.empty()) out.push_back(part);
  return out;
}

// Whole numbers in [lo, hi] from a comma-separated list; `what` names the option in the error.
std::vector<long> parse_counts(const std::string& s, const char* what, long lo, long hi) {
  std::vector<long> out;
  for (const std::string& part : split_commas(s)) {
    char* end = nullptr;
    const long v = std::strtol(part.c_str(), &end, 10);
    if (*end != '\0' || v < lo || v > hi)
      throw Error(std::string(what) + ": '" + part + "' is not a whole number in " + std::to_string(lo) + ".." +
                  std::to_string(hi));
    out.push_back(v);
  }
  if (out.empty()) throw Error(std::string(what) + ": empty list");
  return out;
}

void print_table(const std::vector<SpmmResult>& rows) {
  std::printf("%-26s %-6s %-4s %-6s %-3s %4s %3s %9s %10s %8s %8s %10s %8s %7s %9s %-7s %s\n", "kernel", "format",
              "bknd", "prec", "lay", "k", "thr", "conv_ms", "median_ms", "GFLOPS", "GB/s", "B/column", "vs_kSpMV",
              "speedup", "rel_L2", "status", "note");
  for (const auto& r : rows) {
    if (r.status != "ok" && r.median_ms <= 0) {
      std::printf("%-26s %-6s %-4s %-6s %-3s %4lld %3d %9s %10s %8s %8s %10s %8s %7s %9s %-7s %s\n", r.kernel.c_str(),
                  r.format.c_str(), r.backend.c_str(), r.precision.c_str(), r.layout.c_str(),
                  static_cast<long long>(r.k), r.threads, "-", "-", "-", "-", "-", "-", "-", "-", r.status.c_str(),
                  r.note.c_str());
      continue;
    }
    char vs[16] = "-", speedup[16] = "-";
    if (r.vs_spmv > 0) std::snprintf(vs, sizeof vs, "%.2f", r.vs_spmv);
    if (r.speedup > 0) std::snprintf(speedup, sizeof speedup, "%.2f", r.speedup);
    std::printf("%-26s %-6s %-4s %-6s %-3s %4lld %3d %9.4g %10.4g %8.2f %8.2f %10.4g %8s %7s %9.2e %-7s %s\n",
                r.kernel.c_str(), r.format.c_str(), r.backend.c_str(), r.precision.c_str(), r.layout.c_str(),
                static_cast<long long>(r.k), r.threads, r.conversion_ms, r.median_ms, r.gflops, r.gbytes_per_s,
                r.bytes_per_column, vs, speedup, r.rel_l2_error, r.status.c_str(), r.note.c_str());
  }
}

int run_spmm_command(const SpmmArgs& args) {
  SpmmRunOptions opts;
  opts.ks.clear();
  for (long k : parse_counts(args.ks, "--k", 1, 1 << 20)) opts.ks.push_back(k);
  opts.layouts.clear();
  for (const std::string& l : split_commas(args.layouts)) opts.layouts.push_back(parse_dense_layout(l));
  if (opts.layouts.empty()) throw Error("--layout: empty list (row, col or row,col)");
  opts.kernels = args.kernel;
  opts.device = args.device == "cpu" ? DeviceSelect::cpu : args.device == "gpu" ? DeviceSelect::gpu : DeviceSelect::all;
  opts.precisions = parse_precisions(args.precision);
  std::stable_partition(opts.precisions.begin(), opts.precisions.end(), [](Precision p) { return p == Precision::f32; });
  if (!args.threads.empty())
    for (long t : parse_counts(args.threads, "--threads", 1, 4096)) opts.threads.push_back(static_cast<int>(t));
  opts.timing.reps = args.reps;
  opts.timing.warmup = args.warmup;
  opts.seed = args.seed;
  opts.ordering = args.ordering;
  opts.expected_products = args.expected_products;
  if (!args.quiet)
    opts.on_cell = [](const SpmmKernelInfo& k, Precision p, const SpmmShape& s, int threads, std::size_t index,
                      std::size_t total) {
      std::fprintf(stderr, "[%zu/%zu] %s %s %s-major k=%lld threads=%d\n", index + 1, total, k.name.c_str(),
                   std::string(to_string(p)).c_str(), std::string(to_string(s.layout)).c_str(),
                   static_cast<long long>(s.k), threads);
    };

  const Csr<double> a = load_matrix(args.file);
  if (!args.json)
    std::printf("matrix %s: %lld x %lld, %lld non-zeros; X random in [-1,1), seed %llu; %d warm-up + %d timed runs\n",
                args.file.c_str(), static_cast<long long>(a.rows), static_cast<long long>(a.cols),
                static_cast<long long>(a.nnz()), static_cast<unsigned long long>(args.seed), args.warmup, args.reps);
  const std::vector<SpmmResult> rows = run_spmm(a, opts);
  if (args.json) {
    std::cout << spmm_results_to_json(rows) << "\n";
  } else {
    print_table(rows);
    for (const auto& r : rows)
      if (!r.picked.empty())
        std::printf("auto (%s, %s, %s-major, k %lld, %d threads): %s\n", r.backend.c_str(), r.precision.c_str(),
                    r.layout.c_str(), static_cast<long long>(r.k), r.threads, r.pick_reason.c_str());
    std::printf("vs_kSpMV: time of k SpMVs with spkit's SpMV pick (same backend, precision, threads) / SpMM time\n");
  }
  bool failed = false;
  for (const auto& r : rows) failed = failed || r.status == "FAILED";
  if (failed) std::fprintf(stderr, "spkit spmm: at least one kernel FAILED validation\n");
  return failed ? 2 : 0;
}

}  // namespace

void add_spmm_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("spmm", "Run, time and validate SpMM kernels (Y = A X, k columns) on one matrix");
  auto args = std::make_shared<SpmmArgs>();
  cmd->add_option("file", args->file, "matrix (.mtx, .mtx.gz, .spkb)")->required();
  cmd->add_option("--k", args->ks, "columns of X, comma-separated")->capture_default_str();
  cmd->add_option("--layout", args->layouts, "row, col or row,col: the layout of X and Y")->capture_default_str();
  cmd->add_option("--kernel", args->kernel, "kernel name, comma-separated globs, all, or auto")->capture_default_str();
  cmd->add_option("--device", args->device, "cpu, gpu or all")
      ->check(CLI::IsMember({"cpu", "gpu", "all"}))
      ->capture_default_str();
  cmd->add_option("--precision", args->precision, "float, double or both (or a comma-separated list)")
      ->check([](const std::string& text) {
        try {
          parse_precisions(text);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      })
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "thread counts for parallel kernels, e.g. 1,2 (default: all)");
  cmd->add_option("--reps", args->reps, "timed runs")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "untimed runs first")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the random X")->capture_default_str();
  cmd->add_option("--ordering", args->ordering,
                  "auto rows: none times auto's SpMM kernel on A as given; auto, rcm, hubsort or community time "
                  "spkit::Plan's block apply (row-major), which renumbers as told (auto: as it decides for "
                  "--expected-products) and gathers X's rows and scatters Y's in every timed product")
      ->check(CLI::IsMember({"none", "auto", "rcm", "hubsort", "community"}))
      ->capture_default_str();
  cmd->add_option("--expected-products", args->expected_products,
                  "products a Plan expects (--ordering auto weighs the renumbering's cost against them)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "JSON array of rows instead of a table");
  cmd->add_flag("--quiet", args->quiet, "no progress lines on stderr");
  cmd->callback([args] { exit_on_failure(run_spmm_command(*args)); });
}

}  // namespace spkit::cli
