// spkit bench: runs the suite (generated matrices of every family + the given matrix files) through
// every selected kernel x precision x thread count, saves results.json/results.csv after every kernel
// (atomically), and finishes with a summary table and the report (scripts/report.py).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <omp.h>

#include "bench_print.hpp"
#include "commands.hpp"
#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/bench_loop.hpp"
#include "spkit/harness/report.hpp"
#include "spkit/harness/suite.hpp"
#include "spkit/precision.hpp"

#ifndef SPKIT_GIT_COMMIT
#define SPKIT_GIT_COMMIT "unknown"
#endif

namespace spkit::cli {

namespace fs = std::filesystem;
using namespace spkit::harness;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C stops at once
}

struct BenchCli {
  std::vector<std::string> matrices;
  std::string kernels = "all";
  std::string device = "all";
  std::string precision = "both";
  std::string threads;
  int reps = 20;
  bool reps_given = false;  // --reps on the command line: the same count on every matrix
  int warmup = 2;
  std::string size = "default";
  std::string out = "bench-results";
  bool resume = false;
  bool no_generated = false;
  bool no_report = false;
  bool all_cells = false;  // also time formats that degenerate on a matrix (degenerate_format_reason)
  std::uint64_t seed = 42;
  std::string command_line;
  bool no_auto = false;                   // skip the "auto" rows (the selector's pick per matrix)
  // What the selector is told for the auto rows: the bench ranks kernels by per-product speed, so by
  // default a plan serves many products; each auto row still shows its conversion as break-even products.
  std::int64_t expected_products = 1000000;
  bool no_spgemm = false;                 // the SpGEMM section (bench_spgemm.hpp)
  bool no_spmm = false;                   // the SpMM section (bench_spmm.hpp)
  std::string spgemm_variant = "all";
  std::int64_t spgemm_max_products = default_spgemm_max_products();
};

std::string human_duration(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  long t = static_cast<long>(s + 0.5);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}h{:02d}m", t / 3600, (t / 60) % 60);
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<int> parse_threads(const std::string& s, int cores) {
  if (s.empty()) return default_thread_sweep(cores);
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t used = 0;
      int t = std::stoi(item, &used);
      if (used != item.size() || t < 1) throw std::invalid_argument("");
      out.push_back(t);
    } catch (const std::exception&) {
      throw Error("--threads wants a comma-separated list of positive integers, got '" + s + "'");
    }
  }
  return out;
}

std::string join_ints(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// This process's command line as typed (for the record in results.json).
std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string line;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    std::string arg = all.substr(start, end - start);
    if (start == 0) arg = fs::path(arg).filename().string();
    if (arg.find_first_of(" \t'\"") != std::string::npos) arg = "'" + arg + "'";
    line += (line.empty() ? "" : " ") + arg;
    start = end + 1;
  }
  return line;
}

std::string self_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

// Progress on stderr: one line rewritten in place on a terminal, one line per kernel otherwise; the
// remaining time extrapolates the fraction of the suite's work done so far.
class Progress {
 public:
  Progress() : start_(clock::now()), tty_(::isatty(STDERR_FILENO)) {}
  double elapsed() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  void show(const std::string& text, bool kernel_start, double fraction) {
    const std::string eta = fraction > 0 && fraction < 1 ? "~" + human_duration(elapsed() * (1 - fraction) / fraction) : "?";
    std::string line = fmt::format("{} | elapsed {} | remaining {}", text, human_duration(elapsed()), eta);
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.c_str());
    } else if (kernel_start) {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
  }
  void log(const std::string& text) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
  }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point start_;
  bool tty_;
};

void run_bench(const BenchCli& cli) {
  SuiteRunOptions o;
  o.size = cli.size;
  o.generated = !cli.no_generated;
  o.files = cli.matrices;
  o.seed = cli.seed;
  o.kernels = cli.kernels;
  o.device = parse_device_select(cli.device);
  o.precisions = parse_precisions(cli.precision);
  o.threads = parse_threads(cli.threads, omp_get_num_procs());
  o.threads_given = !cli.threads.empty();
  if (cli.reps < 1) throw Error("--reps must be at least 1");
  o.reps = cli.reps;
  o.reps_fixed = cli.reps_given;
  o.warmup = cli.warmup;
  o.all_cells = cli.all_cells;
  o.auto_rows = !cli.no_auto;
  o.expected_products = cli.expected_products;
  o.spgemm = !cli.no_spgemm;
  o.spgemm_variants = cli.spgemm_variant;
  o.spgemm_max_products = cli.spgemm_max_products;
  o.spmm = !cli.no_spmm;
  o.out = cli.out;
  o.resume = cli.resume;

  BenchResults header;
  header.spkit_version = SPKIT_VERSION;
  header.git_commit = SPKIT_GIT_COMMIT;
  header.created_utc = utc_now();
  header.command = cli.command_line;
  header.options = {{"size", cli.no_generated ? "none" : cli.size},
                    {"kernels", cli.kernels},
                    {"device", cli.device},
                    {"precision", cli.precision},
                    {"threads", join_ints(o.threads)},
                    {"reps", std::to_string(cli.reps)},
                    {"warmup", std::to_string(cli.warmup)},
                    {"seed", std::to_string(cli.seed)},
                    {"resume", cli.resume ? "yes" : "no"},
                    {"all_cells", cli.all_cells ? "yes" : "no"}};
  header.options.emplace_back("auto", cli.no_auto ? "no" : "yes");
  header.options.emplace_back("expected_products", std::to_string(cli.expected_products));
  header.options.push_back({"spgemm", cli.no_spgemm ? "off" : cli.spgemm_variant});
  header.options.push_back({"spmm", cli.no_spmm ? "off" : "on"});

  Progress progress;
  progress.log(fmt::format("spkit bench: {} kernels x precisions {}, threads {}, {} reps -> {}",
                           cli.kernels, cli.precision, join_ints(o.threads), cli.reps, cli.out));
  o.log = [&](const std::string& line) { progress.log(line); };
  o.status = [&](const std::string& text, bool new_item, double fraction) { progress.show(text, new_item, fraction); };
  std::string last_kernel;
  o.on_cell = [&](const SuiteCellEvent& e, double fraction) {
    const std::string thr = e.kernel->parallel ? fmt::format(" t={}", e.threads) : "";
    if (e.auto_row) {
      progress.show(fmt::format("{} | auto -> {} {}{}", e.label, e.kernel->name, to_string(e.precision), thr), true,
                    fraction);
      return;
    }
    // Baselines the runner adds for speedups can take the count past the selected cells.
    const std::string count = e.cell <= e.cells ? fmt::format("{}/{}", e.cell, e.cells) : std::to_string(e.cell);
    progress.show(fmt::format("{} | {} {}{} (cell {})", e.label, e.kernel->name, to_string(e.precision), thr, count),
                  e.kernel->name != last_kernel, fraction);
    last_kernel = e.kernel->name;
  };
  o.stop = [] { return g_interrupted != 0; };

  std::signal(SIGINT, on_sigint);
  SuiteRun run = run_suite(o, std::move(header));
  std::signal(SIGINT, SIG_DFL);
  const BenchResults& results = run.results;
  const std::string json_path = (fs::path(cli.out) / "results.json").string();
  if (run.interrupted) {
    progress.log(fmt::format("\ninterrupted: {} cells saved in {} (valid JSON and CSV); rerun the same command with "
                             "--resume to finish, or `spkit report {}` for a report of what is there",
                             results.rows.size(), json_path, json_path));
    std::fflush(stdout);
    std::exit(130);
  }
  progress.log(fmt::format("done in {}: {} cells in {} and {}", human_duration(results.wall_s), results.rows.size(),
                           json_path, (fs::path(cli.out) / "results.csv").string()));
  print_summary(results);
  print_auto_summary(results);
  print_spgemm_summary(run.spgemm);
  print_absent(run.absent);

  if (cli.no_report) return;
  const std::string script = find_report_script({self_dir() + "/../share/spkit/report.py",
                                                 std::string(SPKIT_SOURCE_DIR) + "/scripts/report.py"});
  if (script.empty()) {
    progress.log("warning: scripts/report.py not found (set SPKIT_REPORT_SCRIPT); no report written");
    return;
  }
  int rc = run_report_script(script, json_path, cli.out);
  if (rc != 0)
    progress.log(fmt::format("warning: the report script failed (exit {}); results are in {}. Retry with: spkit report {}",
                             rc, json_path, json_path));
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto cli = std::make_shared<BenchCli>();
  auto* cmd = app.add_subcommand("bench", "Run the benchmark suite and write results and the report");
  cmd->add_option("--matrices", cli->matrices, "Matrix files or folders (.mtx, .mtx.gz, .spkb) to add to the suite");
  cmd->add_option("--kernels", cli->kernels, "Comma-separated globs over kernel names (spkit kernels)")
      ->capture_default_str();
  cmd->add_option("--device", cli->device, "cpu, gpu or all")->capture_default_str();
  cmd->add_option("--precision", cli->precision, "float, double or both")->capture_default_str();
  cmd->add_option("--threads", cli->threads, "Thread counts for the OpenMP kernels, e.g. 1,2,4 (default 1,2,4,.. up to the logical CPUs)");
  cmd->add_option("--reps", cli->reps,
                  "Timed repetitions per cell (after warm-up); unless given, matrices over 2M non-zeros get "
                  "proportionally fewer, at least 5")
      ->capture_default_str();
  cmd->add_option("--warmup", cli->warmup, "Untimed warm-up runs per cell")->capture_default_str();
  cmd->add_option("--size", cli->size,
                  "Generated matrices: default (fem_mesh, rmat, road_planar past where a bandwidth sweep sees memory, "
                  "the other families ~500k nnz), small (every family ~1M nnz), medium (~4M), large (~16M)")
      ->capture_default_str();
  cmd->add_option("--out", cli->out, "Output folder for results.{json,csv} and the report")->capture_default_str();
  cmd->add_flag("--resume", cli->resume, "Keep the cells already in OUT/results.json and run only the rest");
  cmd->add_flag("--no-generated", cli->no_generated, "Only the --matrices files, no generated matrices");
  cmd->add_flag("--no-report", cli->no_report, "Do not run scripts/report.py at the end");
  cmd->add_flag("--all-cells", cli->all_cells,
                "Also time formats that degenerate on a matrix (ELL/HLL padding over 4x CSR's bytes, bmSparse "
                "under 1.5 non-zeros per block); by default they are reported as skipped");
  cmd->add_option("--seed", cli->seed, "Seed of the generated matrices and of x")->capture_default_str();
  cmd->add_flag("--no-spgemm", cli->no_spgemm, "Skip the SpGEMM section (C = A A per square matrix)");
  cmd->add_flag("--no-spmm", cli->no_spmm, "Skip the SpMM section (Y = A X with k = 4, 16, 64 columns per matrix)");
  cmd->add_option("--spgemm-variant", cli->spgemm_variant, "Comma-separated globs over SpGEMM kernel names")
      ->capture_default_str();
  cmd->add_option("--spgemm-max-products", cli->spgemm_max_products,
                  "SpGEMM only where A A has at most this many intermediate products")
      ->capture_default_str();
  cmd->add_flag("--no-auto", cli->no_auto, "Do not add the auto-selector's row (kernel \"auto\") per matrix");
  cmd->add_option("--expected-products", cli->expected_products,
                  "Products the auto-selector is told a plan will serve (conversion must pay for itself)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([cli, cmd] {
    cli->reps_given = cmd->count("--reps") > 0;
    cli->command_line = command_line();
    run_bench(*cli);
  });
}

}  // namespace spkit::cli
