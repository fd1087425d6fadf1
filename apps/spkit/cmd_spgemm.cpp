// spkit spgemm A [B] [--variant GLOBS|all] [--precision float|double|both] [--device cpu|gpu|all]
//                    [--threads N] [--reps R] [--warmup W] [--json] [--c-out FILE] [--quiet]
// C = A B (B defaults to A, the product bmSparse's evaluation measures) with every selected SpGEMM kernel: time per
// stage and total, C's non-zeros and 8x8 blocks, GFLOPS, speed relative to cuSPARSE and MKL, and
// validation against the fp64 reference. Exit code 2 when a kernel FAILED validation, 1 for errors.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "spkit/harness/spgemm_runner.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/precision.hpp"

namespace spkit::cli {

using namespace spkit::harness;  // the measuring runner and its options

namespace {

struct SpgemmArgs {
  std::string a_file, b_file;
  std::string variant = "all";
  std::string device = "all";
  std::string precision = "double";
  int threads = 0;  // 0: all cores
  int reps = 5;
  int warmup = 1;
  bool json = false;
  std::string c_out;
  bool quiet = false;
  std::string memory_limit;  // bytes the product may take on its backend ("": free memory)
  bool no_baselines = false;
};

std::string stages_text(const SpgemmRow& r) {
  std::string s;
  for (const auto& st : r.stages) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.3g%s", s.empty() ? "" : ", ", st.name.c_str(), st.ms,
                  st.in_total ? "" : "*");
    s += buf;
  }
  return s;
}

void print_table(const std::vector<SpgemmRow>& rows) {
  std::printf("%-28s %-6s %3s %10s %11s %10s %10s %8s %7s %7s %9s %9s %9s %8s %-7s %s\n", "kernel", "prec", "thr",
              "total_ms", "C nnz", "C blocks", "tasks", "GFLOPS", "vs_cusp", "vs_mkl", "vs_cusp_b", "vs_mkl_b",
              "rel_err", "peak_MB", "status", "stages (ms; * = not in total) / note");
  auto ratio = [](double v) {
    char b[16] = "-";
    if (v > 0) std::snprintf(b, sizeof b, "%.2fx", v);
    return std::string(b);
  };
  for (const auto& r : rows) {
    if (r.status == "skipped") {
      std::printf("%-28s %-6s %3d %10s %11s %10s %10s %8s %7s %7s %9s %9s %9s %8s %-7s %s\n", r.kernel.c_str(),
                  r.precision.c_str(), r.threads, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "skipped",
                  r.note.c_str());
      continue;
    }
    const std::string blocks = r.out_blocks >= 0 ? std::to_string(r.out_blocks) : "-";
    const std::string tasks = r.tasks >= 0 ? std::to_string(r.tasks) : "-";
    std::string tail = stages_text(r);
    if (!r.note.empty()) tail += " | " + r.note;
    char peak[16] = "-";
    if (r.peak_bytes >= 0) std::snprintf(peak, sizeof peak, "%.1f", static_cast<double>(r.peak_bytes) / 1e6);
    std::printf("%-28s %-6s %3d %10.4g %11lld %10s %10s %8.3f %7s %7s %9s %9s %9.2e %8s %-7s %s\n", r.kernel.c_str(),
                r.precision.c_str(), r.threads, r.total_ms, static_cast<long long>(r.out_nnz), blocks.c_str(),
                tasks.c_str(), r.gflops, ratio(r.vs_cusparse).c_str(), ratio(r.vs_mkl).c_str(),
                ratio(r.vs_cusparse_best).c_str(), ratio(r.vs_mkl_best).c_str(), r.rel_error, peak, r.status.c_str(),
                tail.c_str());
  }
  // Which algorithm was each vendor's best, per precision (the rows of one precision share it).
  std::string said;
  for (const auto& r : rows) {
    for (const auto& [vendor, best] : {std::pair{"cuSPARSE", &r.cusparse_best}, std::pair{"MKL", &r.mkl_best}}) {
      const std::string line = std::string(vendor) + " best (" + r.precision + "): " + *best;
      if (best->empty() || said.find(line + "\n") != std::string::npos) continue;
      said += line + "\n";
      std::printf("%s\n", line.c_str());
    }
  }
  std::printf("(vs_cusp / vs_mkl: the baseline's total time / this kernel's, same precision; > 1 is faster; "
              "vs_cusp_b / vs_mkl_b: the same against the fastest algorithm of cuSPARSE / MKL. "
              "GFLOPS = 2 x intermediate products / total; peak_MB: memory the first product took at its peak, "
              "device pool for GPU kernels, resident set for CPU kernels: a lower bound where a library reuses "
              "memory an earlier product left, as MKL does)\n");
}

int run_spgemm_command(const SpgemmArgs& args) {
  const Csr<double> a = load_matrix(args.a_file);
  Csr<double> b_own;
  if (!args.b_file.empty()) b_own = load_matrix(args.b_file);
  const Csr<double>& b = args.b_file.empty() ? a : b_own;  // the same object: kernels convert it once
  if (a.cols != b.rows)
    throw Error("cannot multiply: A (" + args.a_file + ") is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                " but B (" + args.b_file + ") is " + std::to_string(b.rows) + "x" + std::to_string(b.cols) +
                "; A's columns must equal B's rows");

  SpgemmRunOptions opts;
  opts.kernels = args.variant;
  opts.add_baselines = !args.no_baselines;
  opts.device = args.device == "cpu" ? DeviceSelect::cpu : args.device == "gpu" ? DeviceSelect::gpu : DeviceSelect::all;
  opts.precisions = parse_precisions(args.precision);
  opts.run.threads = args.threads > 0 ? args.threads : omp_get_max_threads();
  opts.timing.reps = args.reps;
  opts.timing.warmup = args.warmup;
  if (!args.memory_limit.empty()) opts.run.memory_limit = parse_memory_bytes(args.memory_limit, "--memory-limit");

  // --c-out: C of the named kernel when --variant names exactly one, else of the first kernel that
  // succeeds (double preferred when both precisions run).
  const bool one_named = spgemm_registry().find(args.variant) != nullptr;
  Csr<double> c_written;
  std::string c_kernel;
  bool c_is_double = false;
  if (!args.c_out.empty())
    opts.on_result = [&](const SpgemmKernelInfo& k, Precision p, const Csr<double>& c) {
      if (one_named && k.name != args.variant) return;
      const bool better = c_kernel.empty() || (p == Precision::f64 && !c_is_double && k.name == c_kernel);
      if (better) c_written = c, c_kernel = k.name, c_is_double = p == Precision::f64;
    };
  if (!args.quiet)
    opts.on_kernel = [&](const SpgemmKernelInfo& k, Precision p, std::size_t index, std::size_t total) {
      std::fprintf(stderr, "[%zu/%zu] %s %s\n", index + 1, total, k.name.c_str(), std::string(to_string(p)).c_str());
      std::fflush(stderr);
    };

  const std::int64_t products = spgemm_intermediate_products(a, b);
  if (!args.json)
    std::printf("C = A B: A %s %lldx%lld (%lld nnz), B %s; %lld intermediate products; %d threads, %d warm-up + %d "
                "timed runs\n",
                args.a_file.c_str(), static_cast<long long>(a.rows), static_cast<long long>(a.cols),
                static_cast<long long>(a.nnz()), args.b_file.empty() ? "= A" : args.b_file.c_str(),
                static_cast<long long>(products), opts.run.threads, args.warmup, args.reps);

  const std::vector<SpgemmRow> rows = run_spgemm(a, b, opts);
  if (args.json)
    std::cout << spgemm_rows_to_json(rows) << "\n";
  else
    print_table(rows);

  if (!args.c_out.empty()) {
    if (c_kernel.empty())
      throw Error("--c-out: " + (one_named ? "kernel " + args.variant : std::string("no kernel")) +
                  " produced a valid C (see its row)");
    write_matrix_market(args.c_out, c_written);
    std::fprintf(stderr, "C of %s (%s) written to %s\n", c_kernel.c_str(), c_is_double ? "double" : "float",
                 args.c_out.c_str());
  }
  bool failed = false, any_ok = false;
  for (const auto& r : rows) failed = failed || r.status == "FAILED", any_ok = any_ok || r.status == "ok";
  // Nothing computed C (e.g. the one kernel asked for needs more memory than there is): an error, with
  // the first reason (TooLarge names the bytes), not a silent table of skipped rows.
  if (!any_ok && !failed) {
    for (const auto& r : rows)
      if (r.status == "skipped") throw Error("no SpGEMM kernel computed C: " + r.kernel + ": " + r.note);
  }
  if (failed) std::fprintf(stderr, "spkit spgemm: at least one kernel FAILED validation\n");
  return failed ? 2 : 0;
}

}  // namespace

void add_spgemm_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("spgemm", "Run, time and validate SpGEMM kernels on C = A B (B defaults to A)");
  auto args = std::make_shared<SpgemmArgs>();
  cmd->add_option("A", args->a_file, "matrix A (.mtx, .mtx.gz, .spkb)")->required();
  cmd->add_option("B", args->b_file, "matrix B (default: A, i.e. C = A A)");
  cmd->add_option("--variant", args->variant, "SpGEMM kernel name, comma-separated globs, auto (the selector's pick per device) or all (every kernel and auto)")->capture_default_str();
  cmd->add_option("--device", args->device, "cpu, gpu or all")
      ->check(CLI::IsMember({"cpu", "gpu", "all"}))
      ->capture_default_str();
  cmd->add_option("--precision", args->precision,
                  "float, double or both (also a comma-separated list; f32/fp32/single, f64/fp64)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "OpenMP threads of the CPU kernels and MKL (default: all cores)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--reps", args->reps, "timed runs (GPU kernels: at least 10)")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "untimed runs first")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_flag("--json", args->json, "JSON array of rows instead of a table");
  cmd->add_option("--c-out", args->c_out,
                  "write C as Matrix Market: of the kernel --variant names, else of the first that succeeds");
  cmd->add_flag("--quiet", args->quiet, "no progress lines on stderr");
  cmd->add_flag("--no-baselines", args->no_baselines,
                "run only the kernels --variant names: not MKL's and cuSPARSE's algorithms beside them (on products "
                "where a baseline takes minutes, e.g. cuSPARSE ALG2 on R-MAT)");
  cmd->add_option("--memory-limit", args->memory_limit,
                  "bytes a product may take on its device (K/M/G suffix; default: what is free, or "
                  "SPKIT_DEVICE_MEMORY_LIMIT): auto computes C in row batches that fit");
  cmd->callback([args] { exit_on_failure(run_spgemm_command(*args)); });
}

}  // namespace spkit::cli
