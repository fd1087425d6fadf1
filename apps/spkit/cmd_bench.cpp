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

#include "bench_spgemm.hpp"
#include "commands.hpp"
#include "spkit/bench/machine.hpp"
#include "spkit/bench/report.hpp"
#include "spkit/bench/results.hpp"
#include "spkit/bench/runner.hpp"
#include "spkit/bench/suite.hpp"
#include "spkit/config.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/stats.hpp"

#ifndef SPKIT_GIT_COMMIT
#define SPKIT_GIT_COMMIT "unknown"
#endif

namespace spkit::cli {

namespace fs = std::filesystem;
using namespace spkit::bench;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C stops at once
}
// Thrown from the runner's progress callback to abandon the rest of a kernel's cells. Not a
// std::exception, so a runner that turns kernel errors into FAILED rows does not swallow it.
struct Interrupted {};

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
  std::string spgemm_variant = "all";
  std::int64_t spgemm_max_products = kSpgemmDefaultMaxProducts;
};

std::string human_duration(double s) {
  if (!(s >= 0) || s > 1e7) return "?";
  long t = static_cast<long>(s + 0.5);
  if (t < 60) return fmt::format("{}s", t);
  if (t < 3600) return fmt::format("{}m{:02d}s", t / 60, t % 60);
  return fmt::format("{}h{:02d}m", t / 3600, (t / 60) % 60);
}

std::string human_count(double n) {
  // Thresholds just under the unit, so that 999,999 reads 1.0M rather than 1000.0k.
  if (n >= 0.99995e9) return fmt::format("{:.1f}G", n / 1e9);
  if (n >= 0.99995e6) return fmt::format("{:.1f}M", n / 1e6);
  if (n >= 0.99995e3) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::vector<Precision> parse_precisions(const std::string& s) {
  if (s == "both" || s == "all") return {Precision::f64, Precision::f32};
  std::vector<Precision> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "double" || item == "f64" || item == "fp64") out.push_back(Precision::f64);
    else if (item == "float" || item == "f32" || item == "fp32" || item == "single") out.push_back(Precision::f32);
    else throw Error("unknown precision '" + item + "' (use float, double or both)");
  }
  if (out.empty()) throw Error("--precision is empty (use float, double or both)");
  return out;
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

DeviceSelect parse_device(const std::string& s) {
  if (s == "cpu") return DeviceSelect::cpu;
  if (s == "gpu" || s == "cuda") return DeviceSelect::gpu;
  if (s == "all") return DeviceSelect::all;
  throw Error("unknown device '" + s + "' (use cpu, gpu or all)");
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

// Kernels grouped so that each group's speedup baseline runs once with it: CPU kernels by format
// (ref.* with csr, whose serial kernel is their baseline), all CUDA kernels together (cuSPARSE).
std::vector<std::vector<const KernelInfo*>> baseline_groups(const std::vector<const KernelInfo*>& kernels) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const KernelInfo*>> groups;
  for (const KernelInfo* k : kernels) {
    // The runner's baseline: cpu.<format>.serial*, else (ref.*, formats without one) cpu.csr.serial*.
    std::string key = "cuda";
    if (k->backend == Backend::cpu) {
      const std::string own = "cpu." + std::string(to_string(k->format));
      bool has_serial = !k->comparison && !registry().match(own + ".serial*").empty();
      key = has_serial ? own : "cpu.csr";
    }
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(k);
  }
  std::vector<std::vector<const KernelInfo*>> out;
  for (const auto& key : order) out.push_back(groups[key]);
  return out;
}

std::string self_dir() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.parent_path().string();
}

// Progress on stderr: one line rewritten in place on a terminal, one line per kernel otherwise.
class Progress {
 public:
  explicit Progress(double total_work) : total_(total_work), start_(clock::now()), tty_(::isatty(STDERR_FILENO)) {}
  double elapsed() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  void add_done(double work) { done_ += work; }
  std::string eta() const {
    if (done_ <= 0 || total_ <= 0) return "?";
    return "~" + human_duration(elapsed() * (total_ - done_) / done_);
  }
  void show(const std::string& text, bool kernel_start) {
    std::string line = fmt::format("{} | elapsed {} | remaining {}", text, human_duration(elapsed()), eta());
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
  double total_, done_ = 0;
  clock::time_point start_;
  bool tty_;
};

void print_summary(const BenchResults& r) {
  // Per matrix, backend and precision: our fastest valid kernel and the fastest vendor kernel (MKL
  // best: any ref.mkl.*; cuSPARSE best: any cuda.cusparse.*), else the fastest other comparison kernel.
  struct Best {
    const SpmvResult* ours = nullptr;
    const SpmvResult* theirs = nullptr;
    const SpmvResult* vendor = nullptr;
    int ok = 0, failed = 0, skipped = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Best> best;
  std::vector<std::string> order;
  for (const auto& m : r.matrices) order.push_back(m.name);
  for (const auto& row : r.rows) {
    const SpmvResult& x = row.result;
    Best& b = best[{row.matrix, x.backend, x.precision}];
    if (x.status == "ok" && x.valid) {
      ++b.ok;
      const bool vendor = x.kernel.rfind("ref.mkl.", 0) == 0 || x.kernel.rfind("cuda.cusparse.", 0) == 0;
      const SpmvResult*& slot = !x.comparison ? b.ours : vendor ? b.vendor : b.theirs;
      if (!slot || x.gflops > slot->gflops) slot = &x;
    } else if (x.status == "skipped") {
      ++b.skipped;
    } else {
      ++b.failed;
    }
  }
  for (auto& [key, b] : best)
    if (b.vendor) b.theirs = b.vendor;
  std::printf("\n%-14s %-6s %-6s %9s %-10s  %-32s %8s  %-26s %8s %7s  %s\n", "matrix", "device", "prec", "nnz", "cache",
              "best spkit kernel", "GFLOPS", "best comparison", "GFLOPS", "ratio", "cells ok/failed/skipped");
  for (const auto& name : order) {
    const MatrixRecord* m = r.find_matrix(name);
    for (const char* backend : {"cpu", "cuda"})
      for (const char* prec : {"double", "float"}) {
        auto it = best.find({name, backend, prec});
        if (it == best.end()) continue;
        const Best& b = it->second;
        std::string ours = b.ours ? b.ours->kernel + (b.ours->threads > 1 ? fmt::format(" t={}", b.ours->threads) : "") : "-";
        std::string theirs = b.theirs ? b.theirs->kernel + (b.theirs->threads > 1 ? fmt::format(" t={}", b.theirs->threads) : "") : "-";
        std::string ratio = b.ours && b.theirs && b.theirs->gflops > 0 ? fmt::format("{:.2f}x", b.ours->gflops / b.theirs->gflops) : "-";
        std::string cache = "?";
        if (m) {
          const CacheFit fit = cache_fit(m->stats, prec, backend, r.machine);
          const char* level = std::string(backend) == "cuda" ? "L2" : "LLC";
          if (fit.ratio > 0) cache = fit.in_cache() ? fmt::format("in {}", level) : fmt::format("{:.1f}x {}", fit.ratio, level);
        }
        std::printf("%-14s %-6s %-6s %9s %-10s  %-32s %8s  %-26s %8s %7s  %d/%d/%d\n", name.c_str(), backend, prec,
                    m ? human_count(static_cast<double>(m->stats.nnz)).c_str() : "?", cache.c_str(), ours.c_str(),
                    b.ours ? fmt::format("{:.2f}", b.ours->gflops).c_str() : "-", theirs.c_str(),
                    b.theirs ? fmt::format("{:.2f}", b.theirs->gflops).c_str() : "-", ratio.c_str(), b.ok, b.failed,
                    b.skipped);
      }
  }
  std::printf("(ratio: our best GFLOPS / the best comparison kernel's, MKL best on the CPU and cuSPARSE best on the GPU "
              "when they ran; > 1 means spkit is faster. cache: working set (CSR + x + y) / the last-level cache "
              "(GPU: L2); the headline counts only matrices at >= 4x)\n");
  std::fflush(stdout);
}

// The auto-selector against running everything: per matrix, backend, precision and thread count of an
// "auto" row, the fastest valid spkit kernel with at most that many threads (the best found by running
// all), the ratio, and the conversion's break-even against the fastest spkit CSR kernel:
// (auto plan ms - CSR plan ms) / (CSR ms - auto ms) products.
struct AutoComparison {
  std::string matrix;
  const SpmvResult* pick = nullptr;
  const SpmvResult* best = nullptr;      // fastest spkit kernel (no baselines)
  const SpmvResult* best_all = nullptr;  // fastest of everything, baselines included
  const SpmvResult* csr = nullptr;       // fastest spkit CSR kernel
  const SpmvResult* own_row = nullptr;   // the picked kernel's own row (same threads), when it ran too
  double ratio = 0;                      // pick / best median time (1 = it picked the best)
  double break_even = 0;                 // products; < 0: never (no faster than CSR)
};

std::vector<AutoComparison> compare_auto(const BenchResults& r) {
  std::vector<AutoComparison> out;
  for (const auto& row : r.rows) {
    const SpmvResult& a = row.result;
    if (a.kernel != "auto" || a.status != "ok" || !a.valid || a.l2_flushed) continue;
    AutoComparison c;
    c.matrix = row.matrix;
    c.pick = &a;
    for (const auto& other : r.rows) {
      const SpmvResult& x = other.result;
      if (other.matrix != row.matrix || x.kernel == "auto" || x.backend != a.backend || x.precision != a.precision ||
          x.threads > a.threads || x.l2_flushed || x.status != "ok" || !x.valid || x.median_ms <= 0)
        continue;
      if (!c.best_all || x.median_ms < c.best_all->median_ms) c.best_all = &x;
      if (x.comparison) continue;
      if (!c.best || x.median_ms < c.best->median_ms) c.best = &x;
      if (x.format == "csr" && (!c.csr || x.median_ms < c.csr->median_ms)) c.csr = &x;
      if (x.kernel == a.picked && x.threads == a.threads) c.own_row = &x;
    }
    if (!c.best) continue;
    c.ratio = a.median_ms / c.best->median_ms;
    if (c.csr) {
      const double saved = c.csr->median_ms - a.median_ms, extra = a.conversion_ms - c.csr->conversion_ms;
      c.break_even = extra <= 0 ? 0 : saved > 0 ? extra / saved : -1;
    }
    out.push_back(c);
  }
  return out;
}

void print_auto_summary(const BenchResults& r) {
  const auto rows = compare_auto(r);
  if (rows.empty()) return;
  std::printf("\nauto-selector (--kernel auto) against the best kernel found by running all:\n");
  std::printf("%-14s %-5s %-6s %3s  %-26s %9s  %-28s %9s %6s %6s  %-26s %6s %10s\n", "matrix", "dev", "prec", "thr",
              "auto picked", "ms", "best spkit kernel", "ms", "ratio", "own", "best incl. baselines", "ratio",
              "break-even");
  int within = 0, within_own = 0, with_own = 0;
  for (const auto& c : rows) {
    within += c.ratio <= 1.10;
    const double own = c.own_row ? c.own_row->median_ms / c.best->median_ms : 0;
    if (c.own_row) ++with_own, within_own += own <= 1.10;
    const std::string be = !c.csr                      ? "-"
                           : c.pick->format == "csr" ? "0 (CSR)"
                           : c.break_even < 0        ? "never"
                                                     : fmt::format("{:.0f}", c.break_even);
    std::printf("%-14s %-5s %-6s %3d  %-26s %9.4g  %-28s %9.4g %6.2f %6s  %-26s %6.2f %10s\n", c.matrix.c_str(),
                c.pick->backend.c_str(), c.pick->precision.c_str(), c.pick->threads, c.pick->picked.c_str(),
                c.pick->median_ms, c.best->kernel.c_str(), c.best->median_ms, c.ratio,
                c.own_row ? fmt::format("{:.2f}", own).c_str() : "-", c.best_all->kernel.c_str(),
                c.pick->median_ms / c.best_all->median_ms, be.c_str());
  }
  std::printf("auto within 10%% of the best spkit kernel: %d of %zu rows (%.0f%%; the target is >= 90%%)", within,
              rows.size(), 100.0 * within / static_cast<double>(rows.size()));
  if (with_own) std::printf("; by the picked kernel's own row: %d of %d", within_own, with_own);
  std::printf("\n(ratio: auto's median time / the best's; own: the same for the picked kernel's own row in the sweep, "
              "free of the noise between two timings of one kernel; break-even: products after which auto's "
              "conversion has paid for itself against the fastest spkit CSR kernel, 'never' when auto is not faster)\n");
  std::fflush(stdout);
}

void run_bench(const BenchCli& cli) {
  const auto wall_start = std::chrono::steady_clock::now();
  const DeviceSelect device = parse_device(cli.device);
  const std::vector<Precision> precisions = parse_precisions(cli.precision);
  const int cores = omp_get_num_procs();
  const std::vector<int> threads = parse_threads(cli.threads, cores);
  if (cli.reps < 1) throw Error("--reps must be at least 1");
  const bool gpu_available = gpu_count() > 0;
  if (device == DeviceSelect::gpu && !gpu_available)
    throw Error("--device gpu, but no usable GPU (built with CUDA: " + std::string(cuda_compiled() ? "yes" : "no") + ")");
  const auto kernels = select_kernels(cli.kernels, device, gpu_available);
  if (kernels.empty()) throw Error("no kernel matches --kernels '" + cli.kernels + "' on this machine (see spkit kernels)");

  // The last-level cache sizes the headline matrices (and marks what fits in cache in the report).
  MachineInfo caches;
  read_llc(caches);
  std::vector<SuiteMatrix> suite;
  if (!cli.no_generated) suite = generated_suite(parse_suite_size(cli.size), cli.seed, caches.llc_bytes);
  for (auto& m : matrix_files(cli.matrices)) suite.push_back(std::move(m));
  make_names_unique(suite);
  if (suite.empty()) throw Error("nothing to run: --no-generated without --matrices");

  const std::string json_path = (fs::path(cli.out) / "results.json").string();
  BenchResults results;
  if (cli.resume && fs::exists(json_path)) results = read_results(json_path);
  const std::set<CellKey> finished = finished_cells(results);
  results.spkit_version = SPKIT_VERSION;
  results.git_commit = SPKIT_GIT_COMMIT;
  results.created_utc = utc_now();
  results.command = cli.command_line;
  results.complete = false;
  results.options = {{"size", cli.no_generated ? "none" : cli.size},
                     {"kernels", cli.kernels},
                     {"device", cli.device},
                     {"precision", cli.precision},
                     {"threads", join_ints(threads)},
                     {"reps", std::to_string(cli.reps)},
                     {"warmup", std::to_string(cli.warmup)},
                     {"seed", std::to_string(cli.seed)},
                     {"resume", cli.resume ? "yes" : "no"},
                     {"all_cells", cli.all_cells ? "yes" : "no"}};
  results.options.emplace_back("auto", cli.no_auto ? "no" : "yes");
  results.options.emplace_back("expected_products", std::to_string(cli.expected_products));
  results.options.push_back({"spgemm", cli.no_spgemm ? "off" : cli.spgemm_variant});

  // What is left to do, per matrix: kernels with at least one cell not in the results yet.
  std::vector<std::vector<const KernelInfo*>> pending(suite.size());
  std::vector<std::size_t> pending_cells(suite.size(), 0);
  std::size_t all_cells = 0, todo_cells = 0;
  double total_work = 0;
  const double generated_nnz = static_cast<double>(target_nnz(cli.no_generated ? SuiteSize::small : parse_suite_size(cli.size)));
  std::vector<double> work_per_cell(suite.size());
  for (std::size_t i = 0; i < suite.size(); ++i) {
    for (const KernelInfo* k : kernels) {
      auto cells = cells_of(*k, precisions, threads);
      all_cells += cells.size();
      std::size_t left = 0;
      for (const auto& c : cells) left += !finished.count(CellKey{suite[i].name, c.kernel, c.precision, c.threads});
      if (left) pending[i].push_back(k), pending_cells[i] += cells.size();
      todo_cells += left;
    }
    // Work estimate for the ETA: non-zeros (files: ~25 bytes of text per entry) per cell.
    double nnz = suite[i].generated ? (suite[i].headline ? static_cast<double>(headline_nnz(caches.llc_bytes)) : generated_nnz)
                                    : std::max(1.0, static_cast<double>(matrix_text_bytes(suite[i].path)) / 25.0);
    work_per_cell[i] = nnz;
    total_work += nnz * static_cast<double>(pending_cells[i]);
  }

  Progress progress(total_work);
  progress.log(fmt::format("spkit bench: {} matrices x {} kernels, precisions {}, threads {}, {} reps -> {}", suite.size(),
                           kernels.size(), cli.precision, join_ints(threads), cli.reps, cli.out));
  progress.log(fmt::format("last-level cache: {}", caches.llc_source.empty() ? "unknown" : caches.llc_source));
  if (std::any_of(suite.begin(), suite.end(), [](const SuiteMatrix& m) { return m.headline; }))
    progress.log(fmt::format("headline matrices at {} non-zeros: working set >= 4x the LLC ({} MiB) in float and double",
                             human_count(static_cast<double>(headline_nnz(caches.llc_bytes))),
                             caches.llc_bytes >> 20));
  if (cli.resume)
    progress.log(fmt::format("resume: {} of {} cells already in {}, {} to run", all_cells - todo_cells, all_cells,
                             json_path, todo_cells));
  if (cli.resume && results.machine.cpu_read_gbs > 0) {
    // Same machine, same roofline: keep the bandwidths measured by the run being resumed.
    MachineInfo before = results.machine;
    results.machine = collect_machine_info(false);
    results.machine.cpu_read_gbs = before.cpu_read_gbs;
    results.machine.cpu_copy_gbs = before.cpu_copy_gbs;
    results.machine.cpu_triad_gbs = before.cpu_triad_gbs;
    if (results.machine.gpu_name == before.gpu_name) {
      results.machine.gpu_read_gbs = before.gpu_read_gbs;
      results.machine.gpu_copy_gbs = before.gpu_copy_gbs;
      results.machine.gpu_triad_gbs = before.gpu_triad_gbs;
    }
  } else {
    progress.log("measuring memory bandwidth for the roofline...");
    // tiny (tests): smaller arrays, still far past the caches, so the measurement takes a second.
    const bool tiny = !cli.no_generated && parse_suite_size(cli.size) == SuiteSize::tiny;
    results.machine = collect_machine_info(true, 0, tiny ? (std::uint64_t(128) << 20) : 0);
  }
  progress.log(fmt::format("machine: {} ({} CPUs){}{}", results.machine.cpu_model, results.machine.logical_cpus,
                           results.machine.gpu_name.empty() ? "" : ", GPU " + results.machine.gpu_name,
                           results.machine.cpu_read_gbs > 0 ? fmt::format(", CPU read {:.1f} GB/s", results.machine.cpu_read_gbs) : ""));
  write_results(cli.out, results);

  std::vector<SpgemmBenchEntry> spgemm_entries;
  SpgemmBenchOptions spgemm_opts;
  spgemm_opts.variants = cli.spgemm_variant;
  spgemm_opts.device = device;
  spgemm_opts.precisions = precisions;
  // One thread count for SpGEMM: the sweep's largest, but no more than the cores (the sweep goes to 2x).
  spgemm_opts.threads = std::min(*std::max_element(threads.begin(), threads.end()), std::max(cores, 1));
  spgemm_opts.reps = std::min(cli.reps, 3);  // products take far longer than SpMVs: fewer, longer runs
  spgemm_opts.warmup = std::min(cli.warmup, 1);
  spgemm_opts.max_products = cli.spgemm_max_products;

  std::signal(SIGINT, on_sigint);
  const std::uint64_t memory_budget = results.machine.memory_bytes / 4;
  const std::size_t n = suite.size();
  for (std::size_t i = 0; i < n && !g_interrupted; ++i) {
    const SuiteMatrix& sm = suite[i];
    if (pending[i].empty()) {
      progress.log(fmt::format("[{}/{}] {}: skipped, all cells already done (--resume)", i + 1, n, sm.name));
      continue;
    }
    progress.show(fmt::format("[{}/{}] {}: {}", i + 1, n, sm.name, sm.generated ? "generating" : "loading"), true);
    LoadedMatrix loaded;
    MatrixRecord record;
    try {
      loaded = load_suite_matrix(sm, true);
    } catch (const Error& e) {
      progress.log(fmt::format("[{}/{}] {}: cannot load, skipped: {}", i + 1, n, sm.name, e.what()));
      progress.add_done(work_per_cell[i] * static_cast<double>(pending_cells[i]));
      continue;
    }
    record.name = sm.name;
    record.family = sm.family;
    record.source = sm.source;
    record.generated = sm.generated;
    record.headline = sm.headline;
    record.load_ms = loaded.load_ms;
    record.file_mb = loaded.file_mb;
    record.parse_mb_s = loaded.parse_mb_s;
    record.stats = compute_stats(loaded.a);
    if (loaded.parse_s > 0) {
      double fmm_s = time_fast_matrix_market(sm.path);
      record.fmm_parse_mb_s = fmm_s > 0 ? loaded.file_mb / fmm_s : 0;
    }
    const double nnz = static_cast<double>(record.stats.nnz);
    // Large matrices need fewer repetitions for a steady median (each run is long): unless --reps was
    // given, 20 reps up to 2M non-zeros, proportionally fewer beyond, never under 5.
    const int reps = cli.reps_given ? cli.reps
                                    : std::clamp(static_cast<int>(cli.reps * 2e6 / std::max(nnz, 1.0)), std::min(5, cli.reps), cli.reps);
    record.reps = reps;
    auto existing = std::find_if(results.matrices.begin(), results.matrices.end(),
                                 [&](const MatrixRecord& m) { return m.name == sm.name; });
    if (existing != results.matrices.end()) *existing = record; else results.matrices.push_back(record);

    // Formats that degenerate on this matrix (HLL padding on a power-law graph...): recorded as skipped.
    if (!cli.all_cells) {
      std::vector<const KernelInfo*> keep;
      for (const KernelInfo* k : pending[i]) {
        const std::string why = degenerate_format_reason(*k, record.stats);
        if (why.empty()) {
          keep.push_back(k);
          continue;
        }
        for (const Cell& c : cells_of(*k, precisions, threads)) {
          BenchRow row;
          row.matrix = sm.name;
          row.result.kernel = k->name;
          row.result.format = std::string(to_string(k->format));
          row.result.backend = std::string(to_string(k->backend));
          row.result.precision = c.precision;
          row.result.threads = c.threads;
          row.result.status = "skipped";
          row.result.note = why;
          if (!finished.count(cell_key(row))) results.rows.push_back(std::move(row));
        }
        progress.log(fmt::format("[{}/{}] {}: {} {}", i + 1, n, sm.name, k->name, why));
        progress.add_done(work_per_cell[i] * static_cast<double>(cells_of(*k, precisions, threads).size()));
      }
      pending[i] = keep;
    }
    const std::string label = fmt::format("[{}/{}] {} ({} nnz)", i + 1, n, sm.name, human_count(nnz));
    std::size_t cell_in_matrix = 0;
    for (const auto& group : baseline_groups(pending[i])) {
      if (g_interrupted) break;
      SpmvRunOptions o;
      std::string names;
      std::size_t group_cells = 0;
      for (const KernelInfo* k : group) {
        names += (names.empty() ? "" : ",") + k->name;
        group_cells += cells_of(*k, precisions, threads).size();
      }
      o.kernels = names;
      o.device = device;
      o.precisions = precisions;
      o.threads = threads;
      o.timing.warmup = cli.warmup;
      o.timing.reps = reps;
      o.include_comparison = true;
      o.add_baselines = true;  // speedups need the serial kernel / cuSPARSE in the same call
      o.seed = cli.seed;
      o.memory_budget_bytes = memory_budget;
      std::string last_kernel;
      o.on_cell = [&](const KernelInfo& info, Precision p, int t, std::size_t, std::size_t) {
        if (g_interrupted) throw Interrupted{};
        ++cell_in_matrix;
        // Baselines the runner adds for speedups can take the count past the selected cells.
        std::string count = cell_in_matrix <= pending_cells[i] ? fmt::format("{}/{}", cell_in_matrix, pending_cells[i])
                                                               : std::to_string(cell_in_matrix);
        progress.show(fmt::format("{} | {} {}{} (cell {})", label, info.name, to_string(p),
                                  info.parallel ? fmt::format(" t={}", t) : "", count),
                      info.name != last_kernel);
        last_kernel = info.name;
      };
      std::vector<SpmvResult> rows;
      try {
        rows = run_spmv(loaded.a, o);
      } catch (const Interrupted&) {
        break;  // abandon this group's remaining cells
      } catch (const Error& e) {
        progress.log(fmt::format("{} | {}: {}", label, names, e.what()));
      }
      if (g_interrupted) break;  // a runner that swallowed the interruption: its rows are incomplete
      progress.add_done(work_per_cell[i] * static_cast<double>(group_cells));
      for (auto& r : rows) {
        BenchRow row{sm.name, std::move(r)};
        if (finished.count(cell_key(row))) continue;  // a baseline re-run on --resume
        // Replace a row of the same cell rather than duplicate it.
        auto same = std::find_if(results.rows.begin(), results.rows.end(),
                                 [&](const BenchRow& x) { return cell_key(x) == cell_key(row); });
        if (same != results.rows.end()) *same = std::move(row); else results.rows.push_back(std::move(row));
      }
      results.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
      write_results(cli.out, results);
    }
    // The selector's pick on this matrix, run like any kernel (row "auto"; see print_auto_summary).
    if (!cli.no_auto && !g_interrupted) {
      SpmvRunOptions o;
      o.kernels = "auto";
      o.device = device;
      o.precisions = precisions;
      o.threads = threads;
      o.timing.warmup = cli.warmup;
      o.timing.reps = cli.reps;
      o.add_baselines = false;
      o.seed = cli.seed;
      o.memory_budget_bytes = memory_budget;
      o.expected_products = cli.expected_products;
      o.on_cell = [&](const KernelInfo& info, Precision p, int t, std::size_t, std::size_t) {
        if (g_interrupted) throw Interrupted{};
        progress.show(fmt::format("{} | auto -> {} {}{}", label, info.name, to_string(p),
                                  info.parallel ? fmt::format(" t={}", t) : ""), true);
      };
      try {
        for (auto& r : run_spmv(loaded.a, o)) {
          BenchRow row{sm.name, std::move(r)};
          if (finished.count(cell_key(row))) continue;
          auto same = std::find_if(results.rows.begin(), results.rows.end(),
                                   [&](const BenchRow& x) { return cell_key(x) == cell_key(row); });
          if (same != results.rows.end()) *same = std::move(row); else results.rows.push_back(std::move(row));
        }
      } catch (const Interrupted&) {
      } catch (const Error& e) {
        progress.log(fmt::format("{} | auto: {}", label, e.what()));
      }
      write_results(cli.out, results);
    }
    if (!cli.no_spgemm && !g_interrupted) {
      spgemm_entries.push_back(bench_spgemm_matrix(sm.name, loaded.a, spgemm_opts,
                                                   [&](const std::string& text) { progress.show(text, true); }));
      write_spgemm_bench(cli.out, spgemm_entries, spgemm_opts.max_products, cli.resume);
    }
  }
  std::signal(SIGINT, SIG_DFL);
  results.complete = !g_interrupted;
  results.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  write_results(cli.out, results);
  if (g_interrupted) {
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
  print_spgemm_summary(spgemm_entries);

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
  cmd->add_option("--threads", cli->threads, "Thread counts for the OpenMP kernels, e.g. 1,2,4 (default 1,2,..,2x cores)");
  cmd->add_option("--reps", cli->reps,
                  "Timed repetitions per cell (after warm-up); unless given, matrices over 2M non-zeros get "
                  "proportionally fewer, at least 5")
      ->capture_default_str();
  cmd->add_option("--warmup", cli->warmup, "Untimed warm-up runs per cell")->capture_default_str();
  cmd->add_option("--size", cli->size,
                  "Generated matrices: default (fem_mesh, rmat, road_planar past 4x the last-level cache, the other "
                  "families ~500k nnz), small (every family ~1M nnz), medium (~4M), large (~16M)")
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
