// The suite loop (bench_loop.hpp): one implementation behind `spkit bench` and spkit.bench().
#include "spkit/harness/bench_loop.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "spkit/config.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/machine.hpp"
#include "spkit/harness/report.hpp"
#include "spkit/harness/suite.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::harness {

namespace fs = std::filesystem;

namespace {

// Thrown through run_spmv's progress callback to abandon the rest of a kernel group. Not a
// std::exception, so the runner, which turns kernel errors into FAILED rows, lets it through.
struct Stopped {};

std::string count_text(double n) {
  // Thresholds just under the unit, so that 999,999 reads 1.0M rather than 1000.0k.
  char buf[32];
  if (n >= 0.99995e9) std::snprintf(buf, sizeof buf, "%.1fG", n / 1e9);
  else if (n >= 0.99995e6) std::snprintf(buf, sizeof buf, "%.1fM", n / 1e6);
  else if (n >= 0.99995e3) std::snprintf(buf, sizeof buf, "%.1fk", n / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", n);
  return buf;
}

std::string position(std::size_t i, std::size_t n) { return "[" + std::to_string(i + 1) + "/" + std::to_string(n) + "]"; }

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

// Adds `rows` of matrix `name` to the results: a cell already finished before a --resume is kept, a cell
// run twice (a baseline re-run) replaces its earlier row.
void merge_rows(BenchResults& results, const std::set<CellKey>& finished, const std::string& name,
                std::vector<SpmvResult>&& rows) {
  for (auto& r : rows) {
    BenchRow row{name, std::move(r)};
    if (finished.count(cell_key(row))) continue;
    auto same = std::find_if(results.rows.begin(), results.rows.end(),
                             [&](const BenchRow& x) { return cell_key(x) == cell_key(row); });
    if (same != results.rows.end()) *same = std::move(row); else results.rows.push_back(std::move(row));
  }
}

MatrixRecord record_of(const SuiteMatrix& sm, const LoadedMatrix& loaded) {
  MatrixRecord record;
  record.name = sm.name;
  record.family = sm.family;
  record.source = sm.source;
  record.generated = sm.generated;
  record.headline = sm.headline;
  record.load_ms = loaded.load_ms;
  record.file_mb = loaded.file_mb;
  record.parse_mb_s = loaded.parse_mb_s;
  record.stats = compute_stats(loaded.a);
  return record;
}

}  // namespace

int suite_reps(int reps, bool fixed, double nnz) {
  if (fixed) return reps;
  const int scaled = static_cast<int>(reps * tuning::kFullRepsNnz / std::max(nnz, 1.0));
  return std::clamp(scaled, std::min(tuning::kMinSuiteReps, reps), reps);
}

std::vector<std::string> absent_backends(const std::string& kernel_patterns, DeviceSelect device,
                                         const std::string& spgemm_patterns) {
  std::vector<std::string> out;
  if (device != DeviceSelect::cpu && gpu_count() == 0) {
    std::size_t spmv = 0, spgemm = 0;
    for (const KernelInfo* k : registry().match(kernel_patterns.empty() ? "all" : kernel_patterns))
      spmv += k->backend == Backend::cuda;
    if (!spgemm_patterns.empty())
      for (const SpgemmKernelInfo* k : spgemm_registry().match(spgemm_patterns)) spgemm += k->backend == Backend::cuda;
    std::string counts = std::to_string(spmv) + " SpMV";
    if (spgemm) counts += " and " + std::to_string(spgemm) + " SpGEMM";
    if (!cuda_compiled())
      out.push_back("GPU kernels not run: this spkit was built without CUDA");
    else if (spmv + spgemm > 0)
      out.push_back("GPU kernels not run: no CUDA device on this machine (" + counts + " kernels)");
  }
  std::string missing;
  auto note = [&](bool present, const char* what) {
    if (!present) missing += (missing.empty() ? "" : ", ") + std::string(what);
  };
  bool mkl = false, eigen = false, librsb = false;
#ifdef SPKIT_HAVE_MKL
  mkl = true;
#endif
#ifdef SPKIT_HAVE_EIGEN
  eigen = true;
#endif
#ifdef SPKIT_HAVE_LIBRSB
  librsb = true;
#endif
  if (device != DeviceSelect::gpu) {
    note(mkl, "Intel MKL (ref.mkl.*)");
    note(eigen, "Eigen (ref.eigen.*)");
    note(librsb, "librsb (ref.librsb)");
  }
  if (!missing.empty()) out.push_back("comparison kernels not run: " + missing + " not found when spkit was built");
  return out;
}

SuiteRun run_suite(const SuiteRunOptions& opts, BenchResults header) {
  const auto wall_start = std::chrono::steady_clock::now();
  auto log = [&](const std::string& line) { if (opts.log) opts.log(line); };
  auto stop = [&] { return opts.stop && opts.stop(); };
  if (opts.reps < 1) throw Error("reps must be at least 1");
  if (opts.warmup < 0) throw Error("warmup must be at least 0");
  const int cores = omp_get_num_procs();
  const std::vector<int> threads = opts.threads.empty() ? default_thread_sweep(cores) : opts.threads;
  for (int t : threads)
    if (t < 1) throw Error("thread counts must be positive integers");
  const bool gpu_available = gpu_count() > 0;
  if (opts.device == DeviceSelect::gpu && !gpu_available)
    throw DeviceError("bench", std::string("--device gpu, but no usable GPU (built with CUDA: ") +
                                   (cuda_compiled() ? "yes" : "no") + ")");
  const auto kernels = select_kernels(opts.kernels, opts.device, gpu_available);
  if (kernels.empty())
    throw NotApplicable("no kernel matches '" + opts.kernels + "' on this machine (see spkit kernels)");
  const SuiteSize size = opts.generated ? parse_suite_size(opts.size) : SuiteSize::small;
  std::vector<SuiteMatrix> files = matrix_files(opts.files);
  if (!opts.generated && files.empty()) throw Error("nothing to run: no generated matrices and no matrix files");

  SuiteRun run;
  run.absent = absent_backends(opts.kernels, opts.device, opts.spgemm ? opts.spgemm_variants : "");
  BenchResults& results = run.results;
  const std::string json_path = opts.out.empty() ? "" : (fs::path(opts.out) / "results.json").string();
  if (opts.resume && !json_path.empty() && fs::exists(json_path)) results = read_results(json_path);
  const std::set<CellKey> finished = finished_cells(results);
  const MachineInfo before = results.machine;
  results.spkit_version = header.spkit_version;
  results.git_commit = header.git_commit;
  results.created_utc = header.created_utc;
  results.command = header.command;
  results.options = header.options;
  results.complete = false;

  // The machine first: the bandwidth sweep decides how large the headline matrices are. A resumed run
  // keeps the measurements of the run it resumes (same machine, same suite sizes, same roofline).
  if (opts.resume && before.cpu_read_gbs > 0) {
    results.machine = collect_machine_info(false);
    if (before.cache_sweep.measured()) use_cache_sweep(results.machine, before.cache_sweep);
    results.machine.cpu_read_gbs = before.cpu_read_gbs;
    results.machine.cpu_copy_gbs = before.cpu_copy_gbs;
    results.machine.cpu_triad_gbs = before.cpu_triad_gbs;
    if (results.machine.gpu_name == before.gpu_name) {
      results.machine.gpu_read_gbs = before.gpu_read_gbs;
      results.machine.gpu_copy_gbs = before.gpu_copy_gbs;
      results.machine.gpu_triad_gbs = before.gpu_triad_gbs;
    }
  } else {
    if (opts.measure_bandwidth) log("measuring memory bandwidth: a sweep over working sets, then the roofline...");
    // tiny (tests): smaller roofline arrays, still past the caches, so the measurement takes a second.
    const bool tiny = opts.generated && size == SuiteSize::tiny;
    results.machine = collect_machine_info(opts.measure_bandwidth, 0, tiny ? (std::uint64_t(128) << 20) : 0);
  }
  const MachineInfo& machine = results.machine;
  log("last-level cache: " + (machine.llc_source.empty() ? std::string("unknown") : machine.llc_source));
  char line[256];
  std::snprintf(line, sizeof line, "machine: %s (%d CPUs)%s", machine.cpu_model.c_str(), machine.logical_cpus,
                machine.gpu_name.empty() ? "" : (", GPU " + machine.gpu_name).c_str());
  std::string machine_line = line;
  if (machine.cpu_read_gbs > 0) {
    std::snprintf(line, sizeof line, ", CPU read %.1f GB/s", machine.cpu_read_gbs);
    machine_line += line;
  }
  log(machine_line);
  for (const auto& a : run.absent) log(a);

  std::vector<SuiteMatrix> suite;
  if (opts.generated) suite = generated_suite(size, opts.seed, machine.llc_bytes);
  for (auto& m : files) suite.push_back(std::move(m));
  make_names_unique(suite);
  if (std::any_of(suite.begin(), suite.end(), [](const SuiteMatrix& m) { return m.headline; }))
    log("headline matrices at " + count_text(static_cast<double>(headline_nnz(machine.llc_bytes))) +
        " non-zeros: working set >= 4x the cache used (" + std::to_string(machine.llc_bytes >> 20) +
        " MiB) in float and double");

  // Thread counts per matrix: the headline matrices (the longest runs by far) take the parallel kernels at
  // the largest count only, unless the counts were asked for; the other matrices carry the sweep.
  const std::vector<int> headline_threads{*std::max_element(threads.begin(), threads.end())};
  auto threads_of = [&](std::size_t i) -> const std::vector<int>& {
    return suite[i].headline && !opts.threads_given ? headline_threads : threads;
  };
  // What is left to do, per matrix: kernels with at least one cell not in the results yet.
  std::vector<std::vector<const KernelInfo*>> pending(suite.size());
  std::vector<std::size_t> pending_cells(suite.size(), 0);
  std::size_t all_cells = 0, todo_cells = 0;
  double total_work = 0, done_work = 0;
  const double generated_nnz = static_cast<double>(target_nnz(size));
  std::vector<double> work_per_cell(suite.size());
  // On the headline matrices (default threads) the serial CPU kernels run only as the speedup baselines
  // run_spmv adds (the first cpu.<format>.serial* of each format): at the largest thread count they are
  // not in the running for the best kernel, and each of their cells costs a conversion of a large matrix.
  auto runs_on = [&](std::size_t i, const KernelInfo& k) {
    return !(suite[i].headline && !opts.threads_given && k.backend == Backend::cpu && !k.parallel && !k.comparison);
  };
  for (std::size_t i = 0; i < suite.size(); ++i) {
    for (const KernelInfo* k : kernels) {
      if (!runs_on(i, *k)) continue;
      auto cells = cells_of(*k, opts.precisions, threads_of(i));
      all_cells += cells.size();
      std::size_t left = 0;
      for (const auto& c : cells) left += !finished.count(CellKey{suite[i].name, c.kernel, c.precision, c.threads});
      if (left) pending[i].push_back(k), pending_cells[i] += cells.size();
      todo_cells += left;
    }
    // Work estimate for the ETA: non-zeros (files: ~25 bytes of text per entry) per cell.
    work_per_cell[i] = suite[i].generated
                           ? (suite[i].headline ? static_cast<double>(headline_nnz(machine.llc_bytes)) : generated_nnz)
                           : std::max(1.0, static_cast<double>(matrix_text_bytes(suite[i].path)) / 25.0);
    total_work += work_per_cell[i] * static_cast<double>(pending_cells[i]);
  }
  auto fraction = [&] { return total_work > 0 ? done_work / total_work : 0.0; };
  auto status = [&](const std::string& text, bool new_item) { if (opts.status) opts.status(text, new_item, fraction()); };
  if (opts.resume)
    log("resume: " + std::to_string(all_cells - todo_cells) + " of " + std::to_string(all_cells) + " cells already in " +
        json_path + ", " + std::to_string(todo_cells) + " to run");
  auto save = [&] {
    results.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (!opts.out.empty()) write_results(opts.out, results);
  };
  save();

  SpgemmBenchOptions spgemm_opts;
  spgemm_opts.variants = opts.spgemm_variants;
  // Without a GPU the CUDA SpGEMM kernels are left out (said once in run.absent), not a row each.
  spgemm_opts.device = opts.device == DeviceSelect::all && !gpu_available ? DeviceSelect::cpu : opts.device;
  spgemm_opts.precisions = opts.precisions;
  // One thread count for SpGEMM: the sweep's largest, but no more than the cores.
  spgemm_opts.threads = std::min(*std::max_element(threads.begin(), threads.end()), std::max(cores, 1));
  spgemm_opts.reps = std::min(opts.reps, 3);  // products take far longer than SpMVs: fewer, longer runs
  spgemm_opts.warmup = std::min(opts.warmup, 1);
  spgemm_opts.max_products = opts.spgemm_max_products;

  SpmmBenchOptions spmm_opts;
  spmm_opts.device = spgemm_opts.device;  // without a GPU, no row per cuSPARSE algorithm
  spmm_opts.precisions = opts.precisions;
  spmm_opts.threads = spgemm_opts.threads;
  spmm_opts.reps = std::min(opts.reps, 5);  // k SpMVs' worth of work per product: fewer runs
  spmm_opts.warmup = std::min(opts.warmup, 1);
  spmm_opts.ks = spmm_bench_ks(opts.generated && size == SuiteSize::tiny);

  const std::uint64_t memory_budget = machine.memory_bytes / 4;
  const std::size_t n = suite.size();
  for (std::size_t i = 0; i < n && !run.interrupted; ++i) {
    if ((run.interrupted = stop())) break;
    const SuiteMatrix& sm = suite[i];
    if (pending[i].empty()) {
      log(position(i, n) + " " + sm.name + ": skipped, all cells already done (--resume)");
      continue;
    }
    status(position(i, n) + " " + sm.name + ": " + (sm.generated ? "generating" : "loading"), true);
    LoadedMatrix loaded;
    try {
      loaded = load_suite_matrix(sm, true);
    } catch (const Error& e) {
      log(position(i, n) + " " + sm.name + ": cannot load, skipped: " + e.what());
      done_work += work_per_cell[i] * static_cast<double>(pending_cells[i]);
      continue;
    }
    MatrixRecord record = record_of(sm, loaded);
    if (loaded.parse_s > 0 && opts.time_fast_matrix_market) {
      const double fmm_s = time_fast_matrix_market(sm.path);
      record.fmm_parse_mb_s = fmm_s > 0 ? loaded.file_mb / fmm_s : 0;
    }
    const double nnz = static_cast<double>(record.stats.nnz);
    const int reps = suite_reps(opts.reps, opts.reps_fixed, nnz);
    // Fewer timed runs need fewer warm-ups: one per five reps, at least one (when any was asked).
    const int warmup = opts.reps_fixed ? opts.warmup : std::min(opts.warmup, std::max(reps / 5, 1));
    record.reps = reps;
    auto existing = std::find_if(results.matrices.begin(), results.matrices.end(),
                                 [&](const MatrixRecord& m) { return m.name == sm.name; });
    if (existing != results.matrices.end()) *existing = record; else results.matrices.push_back(record);

    // Formats that degenerate on this matrix (HLL padding on a power-law graph...): recorded as skipped.
    if (!opts.all_cells) {
      std::vector<const KernelInfo*> keep;
      for (const KernelInfo* k : pending[i]) {
        const std::string why = degenerate_format_reason(*k, record.stats);
        if (why.empty()) {
          keep.push_back(k);
          continue;
        }
        std::vector<SpmvResult> skipped;
        for (const Cell& c : cells_of(*k, opts.precisions, threads_of(i))) {
          SpmvResult r;
          r.kernel = k->name;
          r.format = std::string(to_string(k->format));
          r.backend = std::string(to_string(k->backend));
          r.precision = c.precision;
          r.threads = c.threads;
          r.status = "skipped";
          r.note = why;
          skipped.push_back(std::move(r));
        }
        done_work += work_per_cell[i] * static_cast<double>(skipped.size());
        merge_rows(results, finished, sm.name, std::move(skipped));
        log(position(i, n) + " " + sm.name + ": " + k->name + " " + why);
      }
      pending[i] = keep;
    }

    const std::string label = position(i, n) + " " + sm.name + " (" + count_text(nnz) + " nnz)";
    std::size_t cell_in_matrix = 0;
    auto run_cells = [&](SpmvRunOptions& o, bool auto_row) {
      o.device = opts.device;
      o.precisions = opts.precisions;
      o.threads = threads_of(i);
      o.timing.warmup = warmup;
      o.timing.reps = reps;
      o.seed = opts.seed;
      o.memory_budget_bytes = memory_budget;
      o.on_cell = [&](const KernelInfo& info, Precision p, int t, std::size_t, std::size_t) {
        if (stop()) throw Stopped{};
        SuiteCellEvent e;
        e.matrix = sm.name;
        e.matrix_index = i;
        e.matrices = n;
        e.kernel = &info;
        e.precision = p;
        e.threads = t;
        e.auto_row = auto_row;
        e.cell = auto_row ? 0 : ++cell_in_matrix;
        e.cells = pending_cells[i];
        e.label = label;
        if (opts.on_cell) opts.on_cell(e, fraction());
        if (stop()) throw Stopped{};
      };
      try {
        merge_rows(results, finished, sm.name, run_spmv(loaded.a, o));
      } catch (const Stopped&) {
        run.interrupted = true;  // this group's remaining cells are abandoned
      } catch (const Error& e) {
        log(label + " | " + o.kernels + ": " + e.what());
      }
      if (!run.interrupted && stop()) run.interrupted = true;  // a runner that swallowed the stop
      save();
    };
    for (const auto& group : baseline_groups(pending[i])) {
      if (run.interrupted) break;
      SpmvRunOptions o;
      o.kernels.clear();
      std::size_t group_cells = 0;
      for (const KernelInfo* k : group) {
        o.kernels += (o.kernels.empty() ? "" : ",") + k->name;
        group_cells += cells_of(*k, opts.precisions, threads_of(i)).size();
      }
      o.include_comparison = true;
      o.add_baselines = true;  // speedups need the serial kernel / cuSPARSE in the same call
      run_cells(o, false);
      done_work += work_per_cell[i] * static_cast<double>(group_cells);
    }
    // The selector's pick on this matrix, run like any kernel (row "auto").
    if (opts.auto_rows && !run.interrupted) {
      SpmvRunOptions o;
      o.kernels = "auto";
      o.add_baselines = false;
      o.expected_products = opts.expected_products;
      // What a user's Plan does by default: renumber when it pays, time the top candidates when the
      // expected products justify it (plan_auto).
      o.ordering = "auto";
      o.tuning = "auto";
      // The bench's auto rows tune within half a second each (a Plan's default cap is 2 s): the suite has
      // dozens of auto rows and must stay a few minutes long.
      o.tuning_budget_ms = 500;
      run_cells(o, true);
    }
    if (opts.spgemm && !run.interrupted) {
      Csr<double> smaller;
      std::string smaller_source;
      if (spgemm_smaller_instance(sm, loaded.a, spgemm_opts, smaller, smaller_source)) {
        // Every generated family gets an SpGEMM row, on an instance of the family whose A A fits the budget.
        log("  spgemm " + sm.name + ": on a smaller instance, " + smaller_source);
        SpgemmBenchEntry e =
            bench_spgemm_matrix(sm.name, smaller, spgemm_opts, [&](const std::string& text) { status(text, true); });
        e.instance = smaller_source;
        run.spgemm.push_back(std::move(e));
      } else if (sm.headline) {
        // Sized for the SpMV headline, not for A A: its products take minutes (at 4x the LLC they were over
        // the products budget anyway; past a measured, smaller cache they may not be).
        SpgemmBenchEntry e;
        e.matrix = sm.name;
        e.rows = loaded.a.rows, e.cols = loaded.a.cols, e.nnz = loaded.a.nnz();
        e.skipped = "a headline matrix, sized for the SpMV headline; spkit spgemm measures its A A";
        log("  spgemm " + sm.name + ": skipped, " + e.skipped);
        run.spgemm.push_back(std::move(e));
      } else {
        run.spgemm.push_back(
            bench_spgemm_matrix(sm.name, loaded.a, spgemm_opts, [&](const std::string& text) { status(text, true); }));
      }
      if (!opts.out.empty()) write_spgemm_bench(opts.out, run.spgemm, spgemm_opts.max_products, opts.resume);
    }
    if (opts.spmm && !run.interrupted && !(run.interrupted = stop())) {
      SpmmBenchEntry e;
      if (sm.headline) {
        // Sized for the SpMV headline; at k = 64 its X and Y alone are 64 times its vectors.
        e.matrix = sm.name;
        e.rows = loaded.a.rows, e.cols = loaded.a.cols, e.nnz = loaded.a.nnz();
        e.skipped = "a headline matrix, sized for the SpMV headline; spkit spmm measures it";
      } else {
        e = bench_spmm_matrix(sm.name, loaded.a, spmm_opts, [&](const std::string& text) { status(text, true); });
      }
      if (!e.skipped.empty()) log("  spmm " + sm.name + ": skipped, " + e.skipped);
      for (const std::string& line : spmm_bench_summary(e)) log(line);
      run.spmm.push_back(std::move(e));
      if (!opts.out.empty()) write_spmm_bench(opts.out, run.spmm, opts.resume);
    }
  }
  results.complete = !run.interrupted;
  save();
  return run;
}

}  // namespace spkit::harness
