// spkit spmv FILE [--kernel NAME|GLOB|all] [--device cpu|gpu|all] [--precision float|double|both|LIST]
//                 [--threads N[,N...]] [--reps R] [--warmup W] [--batch N] [--x XFILE] [--y-out YFILE] [--seed S]
//                 [--json]
//                 [--ordering auto|none|rcm|hubsort|community] [--tuning model|measure|auto] [--tuning-budget-ms MS]
//                 [--reorder none|rcm|hubsort|community]
// One row per kernel x precision x threads: timing, rates, speedup, validation. Exit code 2 when any
// kernel FAILED validation (1 for errors, as everywhere).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "spkit/harness/results.hpp"
#include "spkit/harness/runner.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/vector.hpp"
#include "spkit/precision.hpp"

namespace spkit::cli {

using namespace spkit::harness;  // the measuring runner and its options

namespace {

struct SpmvArgs {
  std::string file;
  std::string kernel = "all";
  std::string device = "all";
  std::string precision = "double";
  std::string threads;
  int reps = 30;
  int warmup = 3;
  int batch = 1;
  std::string x_file;
  std::string y_out;
  std::uint64_t seed = 1;
  bool json = false;
  bool quiet = false;
  // For --kernel auto. spmv measures the per-product speed, so by default the selector is told a plan
  // serves many products (the conversion is amortised); a small number shows the trade-off.
  std::int64_t expected_products = 1000000;
  // --kernel auto: the renumbering the plan may keep and how it decides (PlanSettings), by default as a
  // Plan decides: measuring its top candidates when the expected products justify it; "model" gives a
  // pick that does not depend on the clock.
  std::string ordering = "auto";
  std::string tuning = "auto";
  double tuning_budget_ms = 0;
  // Every kernel on the renumbered matrix (cuSPARSE on the matrix as given vs renumbered: run twice).
  std::string reorder = "none";
};

std::vector<int> parse_threads(const std::string& s) {
  std::vector<int> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    char* end = nullptr;
    const long v = std::strtol(part.c_str(), &end, 10);
    if (*end != '\0' || v < 1 || v > 4096) throw Error("--threads: '" + part + "' is not a thread count");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

// The precisions of --precision (every spelling spkit::parse_precisions accepts), float rows first as
// spmv has always printed them, whatever order the list names them in.
std::vector<Precision> spmv_precisions(const std::string& text) {
  std::vector<Precision> precisions = parse_precisions(text);
  std::stable_partition(precisions.begin(), precisions.end(), [](Precision p) { return p == Precision::f32; });
  return precisions;
}

void print_table(const std::vector<SpmvResult>& rows) {
  std::printf("%-30s %-8s %-4s %-6s %3s %10s %10s %10s %8s %8s %7s %6s %9s %9s %-7s %s\n", "kernel", "format",
              "bknd", "prec", "thr", "conv_ms", "median_ms", "mean_ms", "GFLOPS", "eff_GB/s", "speedup", "eff",
              "rel_L2", "max_abs", "status", "note");
  for (const auto& r : rows) {
    if (r.status == "skipped") {
      std::printf("%-30s %-8s %-4s %-6s %3d %10s %10s %10s %8s %8s %7s %6s %9s %9s %-7s %s\n", r.kernel.c_str(),
                  r.format.c_str(), r.backend.c_str(), r.precision.c_str(), r.threads, "-", "-", "-", "-", "-", "-",
                  "-", "-", "-", "skipped", r.note.c_str());
      continue;
    }
    char speedup[16] = "-", eff[16] = "-";
    if (r.speedup > 0) std::snprintf(speedup, sizeof speedup, "%.2f", r.speedup);
    if (r.efficiency > 0) std::snprintf(eff, sizeof eff, "%.2f", r.efficiency);
    std::printf("%-30s %-8s %-4s %-6s %3d %10.4g %10.4g %10.4g %8.2f %8.2f %7s %6s %9.2e %9.2e %-7s %s\n",
                r.kernel.c_str(), r.format.c_str(), r.backend.c_str(), r.precision.c_str(), r.threads,
                r.conversion_ms, r.median_ms, r.mean_ms, r.gflops, r.gbytes_per_s, speedup, eff, r.rel_l2_error,
                r.max_abs_error, r.status == "ok" ? "ok" : r.status.c_str(), r.note.c_str());
  }
}

int run_spmv_command(const SpmvArgs& args) {
  MmHeader header;
  const Csr<double> a = load_matrix(args.file, &header);

  SpmvRunOptions opts;
  opts.kernels = args.kernel;
  opts.device = args.device == "cpu" ? DeviceSelect::cpu : args.device == "gpu" ? DeviceSelect::gpu : DeviceSelect::all;
  opts.precisions = spmv_precisions(args.precision);
  opts.threads = parse_threads(args.threads);
  opts.timing.reps = args.reps;
  opts.timing.warmup = args.warmup;
  opts.timing.batch = args.batch;
  opts.seed = args.seed;
  opts.expected_products = args.expected_products;
  opts.ordering = args.ordering;
  opts.tuning = args.tuning;
  opts.tuning_budget_ms = args.tuning_budget_ms;
  opts.reorder = args.reorder;
  std::vector<double> x;
  if (!args.x_file.empty()) {
    x = read_vector(args.x_file);
    opts.x = &x;
  }

  std::vector<double> y_written;
  bool y_captured = false, y_is_double = false;
  if (!args.y_out.empty()) {
    // y of exactly one kernel: --kernel names one registered kernel, or auto (the y of the kernel the
    // selector picked and ran, not of the baselines run beside it).
    if (args.kernel != "auto" && !registry().find(args.kernel))
      throw Error("--y-out needs --kernel to name one kernel exactly, or auto (got '" + args.kernel + "')");
    // With several precisions, thread counts or backends: the first double result, else the first valid one.
    opts.on_result_y = [&](const SpmvResult& row, const std::vector<double>& y) {
      if (row.kernel != args.kernel) return;
      const bool is_double = row.precision == to_string(Precision::f64);
      if (!y_captured || (is_double && !y_is_double)) y_written = y, y_captured = true, y_is_double = is_double;
    };
  }
  if (!args.quiet)
    opts.on_cell = [&](const KernelInfo& k, Precision p, int threads, std::size_t index, std::size_t total) {
      std::fprintf(stderr, "[%zu/%zu] %s %s threads=%d\n", index + 1, total, k.name.c_str(),
                   std::string(to_string(p)).c_str(), threads);
    };

  const std::string x_source = args.x_file.empty() ? "random in [-1,1), seed " + std::to_string(args.seed)
                                                   : "from " + args.x_file;
  if (!args.json)
    std::printf("matrix %s: %lld x %lld, %lld non-zeros; x %s; %d warm-up + %d timed runs%s\n", args.file.c_str(),
                static_cast<long long>(a.rows), static_cast<long long>(a.cols), static_cast<long long>(a.nnz()),
                x_source.c_str(), args.warmup, args.reps,
                args.batch > 1 ? (" of " + std::to_string(args.batch) + " back-to-back products").c_str() : "");
  else
    std::fprintf(stderr, "x %s\n", x_source.c_str());

  const std::vector<SpmvResult> rows = run_spmv(a, opts);

  if (args.json) {
    std::cout << harness::spmv_results_to_json(rows) << "\n";
  } else {
    print_table(rows);
    // --kernel auto: what the selector picked for each row, and why (one line each).
    for (const auto& r : rows)
      if (!r.picked.empty())
        std::printf("auto (%s, %s, %d threads): %s\n", r.backend.c_str(), r.precision.c_str(), r.threads,
                    r.pick_reason.c_str());
  }

  if (!args.y_out.empty()) {
    if (!y_captured) throw Error("--y-out: kernel " + args.kernel + " produced no valid y (see its row)");
    write_vector(args.y_out, y_written);
  }
  bool failed = false;
  for (const auto& r : rows) failed = failed || r.status == "FAILED";
  if (failed) std::fprintf(stderr, "spkit spmv: at least one kernel FAILED validation\n");
  return failed ? 2 : 0;
}

}  // namespace

void add_spmv_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("spmv", "Run, time and validate SpMV kernels on one matrix");
  auto args = std::make_shared<SpmvArgs>();
  cmd->add_option("file", args->file, "matrix (.mtx, .mtx.gz, .spkb)")->required();
  cmd->add_option("--kernel", args->kernel,
                  "kernel name, comma-separated globs, all, or auto (the selector's pick, with its reason)")
      ->capture_default_str();
  cmd->add_option("--expected-products", args->expected_products,
                  "--kernel auto: products the plan will serve (a conversion must pay for itself within them)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--ordering", args->ordering,
                  "--kernel auto: renumbering kept inside the plan (auto: when it pays, by the model or the clock)")
      ->check(CLI::IsMember({"auto", "none", "rcm", "hubsort", "community"}))
      ->capture_default_str();
  cmd->add_option("--tuning", args->tuning,
                  "--kernel auto: model (cost model only), measure (time the top candidates), auto (measure from "
                  "1000 expected products)")
      ->check(CLI::IsMember({"model", "measure", "auto"}))
      ->capture_default_str();
  cmd->add_option("--tuning-budget-ms", args->tuning_budget_ms, "--kernel auto: bound on measuring (0: the default)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--reorder", args->reorder,
                  "renumber the matrix before every kernel (cuSPARSE included): none, rcm (reverse Cuthill-McKee), "
                  "hubsort (hub sorting), community (modularity communities after Rabbit Order)")
      ->check(CLI::IsMember({"none", "rcm", "hubsort", "community"}))
      ->capture_default_str();
  cmd->add_option("--device", args->device, "cpu, gpu or all")
      ->check(CLI::IsMember({"cpu", "gpu", "all"}))
      ->capture_default_str();
  cmd->add_option("--precision", args->precision,
                  "float, double or both (also f32/fp32/single, f64/fp64, or a comma-separated list)")
      ->check([](const std::string& text) {  // refused at parse time, before the matrix is read
        try {
          parse_precisions(text);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      })
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "thread counts for parallel kernels, e.g. 1,2,4 (default: all)");
  cmd->add_option("--reps", args->reps, "timed runs")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "untimed runs first")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--batch", args->batch,
                  "products per timed run: each run's time is that of N back-to-back products / N (GPU: launched "
                  "without waiting, as vendor benchmarks time; 1 = one product the caller waits for). L2-flushed "
                  "cells keep 1")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--x", args->x_file, "x as a Matrix Market array file (default: random)");
  cmd->add_option("--y-out", args->y_out, "write y of the (single) --kernel, or of auto's pick, as a Matrix Market array");
  cmd->add_option("--seed", args->seed, "seed of the random x")->capture_default_str();
  cmd->add_flag("--json", args->json, "JSON array of rows instead of a table");
  cmd->add_flag("--quiet", args->quiet, "no progress lines on stderr");
  cmd->callback([args] { exit_on_failure(run_spmv_command(*args)); });
}

}  // namespace spkit::cli
