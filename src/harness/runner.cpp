// run_spmv: the one place where kernels are planned, timed and validated for `spkit spmv` and
// `spkit bench`. Each cell (kernel x precision x threads) is independent: a kernel that does not
// apply is reported "skipped", one that gives a wrong y is reported "FAILED"; neither stops the run.
#include "spkit/harness/runner.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <new>
#include <set>

#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "harness/row_failure.hpp"
#include "median.hpp"
#include "spkit/plan.hpp"
#include "spkit/reorder.hpp"
#include "spkit/select.hpp"
#include "spkit/stats.hpp"
#include "spkit/validate.hpp"
#include "tuning.hpp"

namespace spkit::harness {

std::uint64_t csr_effective_bytes(const Csr<double>& a, Precision p) {
  const std::uint64_t value = p == Precision::f32 ? 4 : 8;
  const auto nnz = static_cast<std::uint64_t>(a.nnz());
  const auto m = static_cast<std::uint64_t>(a.rows);
  const auto n = static_cast<std::uint64_t>(a.cols);
  return (value + 4) * nnz + 4 * m + value * (m + n);
}

std::vector<double> random_x(std::int64_t n, std::uint64_t seed) {
  // splitmix64: the same x for the same seed on every platform and standard library.
  std::vector<double> x(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
  std::uint64_t state = seed;
  for (auto& v : x) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    v = 2.0 * (static_cast<double>(z >> 11) * 0x1.0p-53) - 1.0;  // [-1, 1)
  }
  return x;
}

namespace {

using harness_detail::join_note;

bool is_cusparse(const KernelInfo& k) { return k.name.rfind("cuda.cusparse.", 0) == 0; }

// The kernel a CPU kernel's speedup is measured against: the first cpu.<format>.serial* kernel;
// for third-party baselines (ref.*, which all take CSR) and formats without a serial kernel of
// their own (e.g. HYB) the first cpu.csr.serial*. SpmvResult::speedup_over names the one used.
const KernelInfo* serial_baseline(const Registry& reg, const KernelInfo& k) {
  if (k.backend != Backend::cpu) return nullptr;
  auto first_matching = [&](const std::string& pattern) -> const KernelInfo* {
    for (const auto& c : reg.all())
      if (c.backend == Backend::cpu && !c.comparison && glob_match(pattern, c.name)) return &c;
    return nullptr;
  };
  const KernelInfo* own = k.comparison ? nullptr : first_matching("cpu." + std::string(to_string(k.format)) + ".serial*");
  return own ? own : first_matching("cpu.csr.serial*");
}

struct Cell {
  const KernelInfo* kernel;
  int threads;
  bool flush;    // CUDA, L2-resident matrix: the cold-cache run
  bool l2_fits;  // CUDA: the matrix fits in L2 (both runs)
  // An "auto" row: `kernel` is what the model picked (for the progress line); the row plans with
  // plan_auto from `settings` and `stats`, whose time (selection_ms) is added to its plan time.
  const Selection* selection = nullptr;
  double selection_ms = 0;
  PlanSettings settings = {};
  const MatrixStats* stats = nullptr;
};

std::string mb(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

template <class T>
SpmvResult run_cell(const Csr<double>& a, const Csr<T>& a_t, const std::vector<T>& x_t,
                    const std::vector<double>& y_exact, const Cell& cell, const SpmvRunOptions& opts,
                    std::uint64_t csr_bytes, std::uint64_t l2_bytes) {
  const KernelInfo& k = *cell.kernel;
  SpmvResult r;
  r.kernel = k.name;
  if (cell.selection) {  // an auto row keeps its label whatever happens to the pick below
    r.kernel = "auto";
    r.picked = k.name;
    r.pick_reason = cell.selection->reason;
  }
  r.format = std::string(to_string(k.format));
  r.backend = std::string(to_string(k.backend));
  r.precision = std::string(to_string(precision_of<T>()));
  r.threads = cell.threads;
  r.comparison = k.comparison;
  r.l2_flushed = cell.flush;

  if (k.backend == Backend::cuda && gpu_count() == 0) {
    r.status = "skipped";
    r.note = no_gpu_reason();
    return r;
  }

  PlanOptions po;
  po.threads = cell.threads;
  po.hack_size = opts.hack_size;
  po.memory_budget_bytes = opts.memory_budget_bytes;
  std::unique_ptr<SpmvPlan<T>> plan;
  // An auto cell builds what Plan<T> would (spkit/plan.hpp: plan_auto): the pick, renumbered or not, the
  // next candidate should it refuse, or the fastest measured when the row's tuning measures.
  Selection picked;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    plan = cell.selection ? plan_auto<T>(a_t, cell.settings, picked, cell.stats) : k.factory<T>()(a_t, po);
  } catch (...) {
    auto failure = harness_detail::current_row_failure("plan", "out of memory while planning");
    r.status = std::move(failure.status), r.note = std::move(failure.note);
    return r;
  }
  r.conversion_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.bytes_moved = plan->bytes_moved();
  r.optimize_ms = plan->optimize_ms();
  r.note = plan->detail();
  if (cell.selection) {
    r.picked = picked.kernel;
    if (const KernelInfo* planned = registry().find(picked.kernel)) r.format = std::string(to_string(planned->format));
    r.pick_reason = picked.reason;
    r.ordering = picked.ordering;
    r.tuning = picked.tuning;
    r.tuning_ms = picked.tuning_ms;
    if (!picked.measured.empty()) {
      const MeasuredCandidate& first = picked.measured.front();
      r.model_pick = first.kernel + " (" + first.ordering + ")";
      r.model_pick_won = first.kernel == picked.kernel && first.ordering == picked.ordering;
    } else {
      r.model_pick = picked.kernel + " (" + picked.ordering + ")";
      r.model_pick_won = true;  // model mode: the pick is the model's
    }
    r.conversion_ms += cell.selection_ms;
    r.note = join_note("picked " + picked.kernel, r.note);
  }
  if (cell.l2_fits)
    r.note = join_note(r.note, cell.flush ? "L2-flushed"
                                          : "fits in L2 (" + mb(csr_bytes) + " of " + mb(l2_bytes) + "), warm");

  // Poisoned y: a kernel that skips rows leaves NaN, which validation rejects.
  std::vector<T> y(static_cast<std::size_t>(a.rows), std::numeric_limits<T>::quiet_NaN());
  TimingOptions timing = opts.timing;
  timing.flush_cache = cell.flush;
  // GPU medians need many samples (launch jitter is large against sub-millisecond kernels) and they
  // are cheap: never fewer than tuning::kMinGpuSpmvReps, whatever the CPU-oriented default.
  if (k.backend == Backend::cuda) timing.reps = std::max(timing.reps, tuning::kMinGpuSpmvReps);
  std::vector<double> ms;
  try {
    ms = time_spmv(*plan, a.rows, a.cols, x_t.data(), y.data(), timing);
  } catch (const std::exception& e) {
    r.status = "FAILED", r.note = join_note(r.note, std::string("run failed: ") + e.what());
    return r;
  }
  if (timing.batch > 1 && !timing.flush_cache)
    r.note = join_note(r.note, "per product of " + std::to_string(timing.batch) + " back-to-back");
  if (!ms.empty()) {
    r.median_ms = detail::median(ms);
    double sum = 0;
    for (double v : ms) sum += v;
    r.mean_ms = sum / static_cast<double>(ms.size());
    r.min_ms = *std::min_element(ms.begin(), ms.end());
  }

  const Validation v = validate_spmv(a_t, x_t, y.data(), &y_exact);
  r.rel_l2_error = v.rel_l2_error;
  r.max_abs_error = v.max_abs_error;
  r.valid = v.valid;
  if (!v.valid) {
    // Never reported as a success: no rates, no speedup; the raw times stay for diagnosis.
    r.status = "FAILED";
    r.note = join_note(r.note, std::to_string(v.bad_rows) + " rows over tolerance, first row " +
                                   std::to_string(v.first_bad_row));
    return r;
  }
  r.status = "ok";
  if (r.median_ms > 0) {
    const double seconds = r.median_ms * 1e-3;
    r.gflops = 2.0 * static_cast<double>(a.nnz()) / seconds * 1e-9;
    r.gbytes_per_s = static_cast<double>(csr_bytes) / seconds * 1e-9;
    r.own_gbytes_per_s = static_cast<double>(r.bytes_moved) / seconds * 1e-9;
  }
  if (opts.on_result_y) {
    std::vector<double> yd(y.begin(), y.end());
    opts.on_result_y(r, yd);
  }
  return r;
}

template <class T>
void run_precision(const Csr<double>& a, const Csr<T>& a_t, const std::vector<double>& x,
                   const std::vector<double>& y_exact, const std::vector<Cell>& cells,
                   const SpmvRunOptions& opts, std::size_t& index, std::size_t total,
                   std::vector<SpmvResult>& out) {
  const std::vector<T> x_t(x.begin(), x.end());
  const std::uint64_t csr_bytes = csr_effective_bytes(a, precision_of<T>());
  std::uint64_t l2 = 0;
  if (gpu_count() > 0) l2 = gpu_info().l2_bytes;
  // Timed narrowest team first (harness/timing.hpp), reported in the cells' order.
  std::vector<int> threads;
  for (const Cell& c : cells) threads.push_back(c.kernel->backend == Backend::cpu ? c.threads : 0);
  std::vector<SpmvResult> done(cells.size());
  run_narrowest_first(threads, [&](std::size_t i) {
    const Cell& c = cells[i];
    if (opts.on_cell) opts.on_cell(*c.kernel, precision_of<T>(), c.threads, index, total);
    ++index;
    done[i] = run_cell<T>(a, a_t, x_t, y_exact, c, opts, csr_bytes, l2);
  });
  for (SpmvResult& r : done) out.push_back(std::move(r));
}

// Fills speedup, efficiency and speedup_over once every cell of one precision has run.
void fill_speedups(const Registry& reg, std::vector<SpmvResult>& rows, std::size_t begin) {
  for (std::size_t i = begin; i < rows.size(); ++i) {
    SpmvResult& r = rows[i];
    if (r.status != "ok" || r.median_ms <= 0) continue;
    const KernelInfo* k = r.picked.empty() ? reg.find(r.kernel) : registry().find(r.picked);
    if (!k) continue;
    double base_ms = 0;
    std::string base_name;
    if (k->backend == Backend::cpu) {
      const KernelInfo* b = serial_baseline(reg, *k);
      if (!b) continue;
      for (std::size_t j = begin; j < rows.size(); ++j)
        if (rows[j].kernel == b->name && rows[j].status == "ok" && rows[j].median_ms > 0) {
          base_ms = rows[j].median_ms, base_name = b->name;
          break;
        }
    } else {
      // GPU: over the fastest cuSPARSE baseline of this run (same precision, same L2 state).
      for (std::size_t j = begin; j < rows.size(); ++j) {
        const SpmvResult& c = rows[j];
        if (c.status != "ok" || c.median_ms <= 0 || c.l2_flushed != r.l2_flushed) continue;
        if (c.kernel.rfind("cuda.cusparse.", 0) != 0) continue;
        if (base_ms == 0 || c.median_ms < base_ms) base_ms = c.median_ms, base_name = c.kernel;
      }
    }
    if (base_ms <= 0) continue;
    r.speedup = base_ms / r.median_ms;
    r.speedup_over = base_name;
    // Parallel efficiency is a CPU notion; a GPU row keeps speedup only.
    r.efficiency = k->backend == Backend::cpu ? r.speedup / std::max(r.threads, 1) : 0.0;
  }
}

}  // namespace

namespace {

// --reorder: every kernel runs on P A P^T (cuSPARSE included), x renumbered with it, y handed back in the
// given numbering; each row's note says so.
std::vector<SpmvResult> run_spmv_reordered(const Registry& reg, const Csr<double>& a, const SpmvRunOptions& opts) {
  const Ordering ordering = parse_ordering(opts.reorder);
  const auto t0 = std::chrono::steady_clock::now();
  const Permutation p = compute_ordering(a, ordering);
  const Csr<double> b = permute_symmetric(a, p);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  SpmvRunOptions inner = opts;
  inner.reorder = "none";
  std::vector<double> x = opts.x ? *opts.x : random_x(a.cols, opts.seed);
  if (static_cast<std::int64_t>(x.size()) != a.cols)
    throw Error("x has " + std::to_string(x.size()) + " entries but the matrix has " + std::to_string(a.cols) + " columns");
  std::vector<double> xb(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xb[i] = x[p.old_of_new[i]];
  inner.x = &xb;
  if (opts.on_result_y)
    inner.on_result_y = [&](const SpmvResult& row, const std::vector<double>& yb) {
      std::vector<double> y(yb.size());
      for (std::size_t i = 0; i < yb.size(); ++i) y[p.old_of_new[i]] = yb[i];
      opts.on_result_y(row, y);
    };
  std::vector<SpmvResult> rows = run_spmv(reg, b, inner);
  char buf[96];
  std::snprintf(buf, sizeof buf, "on the %s-renumbered matrix (%.3g ms to renumber)", opts.reorder.c_str(), ms);
  for (SpmvResult& r : rows) r.note = join_note(r.note, buf);
  return rows;
}

}  // namespace

std::vector<SpmvResult> run_spmv(const Csr<double>& a, const SpmvRunOptions& opts) {
  return run_spmv(registry(), a, opts);
}

std::vector<SpmvResult> run_spmv(const Registry& reg, const Csr<double>& a, const SpmvRunOptions& opts) {
  if (opts.reorder != "none") return run_spmv_reordered(reg, a, opts);
  // "auto" among the patterns: rows picked by the selector (not a glob over names).
  bool with_auto = false;
  std::string patterns;
  {
    std::size_t pos = 0;
    while (pos <= opts.kernels.size()) {
      const std::size_t comma = std::min(opts.kernels.find(',', pos), opts.kernels.size());
      const std::string part = opts.kernels.substr(pos, comma - pos);
      if (part == "auto") with_auto = true;
      else if (!part.empty()) patterns += (patterns.empty() ? "" : ",") + part;
      pos = comma + 1;
    }
  }
  // Which kernels: the globs, the device, comparison or not, plus the baselines speedups need.
  std::set<std::string> chosen;
  bool any_cuda_own = false;
  for (const KernelInfo* k : (patterns.empty() ? std::vector<const KernelInfo*>{} : reg.match(patterns))) {
    if (opts.device == DeviceSelect::cpu && k->backend != Backend::cpu) continue;
    if (opts.device == DeviceSelect::gpu && k->backend != Backend::cuda) continue;
    if (!opts.include_comparison && k->comparison) continue;
    chosen.insert(k->name);
    if (k->backend == Backend::cuda && !is_cusparse(*k)) any_cuda_own = true;
  }
  if (chosen.empty() && opts.device == DeviceSelect::gpu && !cuda_compiled())
    throw Error("no GPU kernel to run: this spkit was built without CUDA");
  if (chosen.empty() && !with_auto)
    throw Error("no registered kernel matches '" + opts.kernels + "' (see `spkit kernels`)");
  if (opts.add_baselines) {
    std::set<std::string> extra;
    for (const auto& name : chosen)
      if (const KernelInfo* b = serial_baseline(reg, *reg.find(name))) extra.insert(b->name);
    if (any_cuda_own && opts.include_comparison && gpu_count() > 0)
      for (const auto& k : reg.all())
        if (is_cusparse(k)) extra.insert(k.name);
    chosen.insert(extra.begin(), extra.end());
  }

  std::vector<int> thread_counts = opts.threads;
  if (thread_counts.empty()) thread_counts.push_back(omp_get_max_threads());
  for (int t : thread_counts)
    if (t < 1) throw Error("thread counts must be at least 1 (got " + std::to_string(t) + ")");

  std::vector<double> x;
  if (opts.x) {
    if (static_cast<std::int64_t>(opts.x->size()) != a.cols)
      throw Error("x has " + std::to_string(opts.x->size()) + " entries but the matrix has " +
                  std::to_string(a.cols) + " columns");
    x = *opts.x;
  } else {
    x = random_x(a.cols, opts.seed);
  }
  const std::vector<double> y_exact = reference_spmv(a, x);

  // Cells in registry order (baselines first within a format, as the registry lists them).
  const bool have_gpu = gpu_count() > 0;
  const std::uint64_t l2 = have_gpu ? gpu_info().l2_bytes : 0;
  auto cells_for = [&](Precision p) {
    std::vector<Cell> cells;
    const bool fits = have_gpu && csr_effective_bytes(a, p) <= l2;
    for (const auto& k : reg.all()) {
      if (!chosen.count(k.name)) continue;
      if (k.backend == Backend::cuda) {
        cells.push_back({&k, 1, false, fits});
        if (fits) cells.push_back({&k, 1, true, fits});
      } else if (k.parallel) {
        for (int t : thread_counts) cells.push_back({&k, t, false, false});
      } else {
        cells.push_back({&k, 1, false, false});
      }
    }
    return cells;
  };
  // Auto rows: the selector reads the matrix's statistics once (timed, and charged to every auto row
  // as part of its plan time) and picks per precision, backend and thread count.
  std::vector<Backend> auto_backends;
  if (with_auto) {
    if (opts.device != DeviceSelect::gpu) auto_backends.push_back(Backend::cpu);
    if (opts.device == DeviceSelect::gpu || (opts.device == DeviceSelect::all && have_gpu))
      auto_backends.push_back(Backend::cuda);
  }
  MatrixStats auto_stats;
  double stats_ms = 0;
  if (!auto_backends.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    auto_stats = compute_stats(a, opts.hack_size);
    stats_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::vector<std::unique_ptr<Selection>> selections;  // owned here, pointed to by the auto cells
  auto auto_cells_for = [&](Precision p) {
    std::vector<Cell> cells;
    for (Backend b : auto_backends) {
      const std::vector<int> threads = b == Backend::cpu ? thread_counts : std::vector<int>{1};
      for (int t : threads) {
        PlanSettings so;
        so.backend = b;
        so.threads = t;
        so.expected_products = opts.expected_products;
        so.ordering = opts.ordering;
        so.tuning = opts.tuning;
        so.tuning_budget_ms = opts.tuning_budget_ms;
        auto sel = std::make_unique<Selection>(select_kernel(auto_stats, so, p));
        const KernelInfo* k = reg.find(sel->kernel);
        if (!k) k = registry().find(sel->kernel);
        if (!k) throw Error("the selector picked '" + sel->kernel + "', which is not registered");
        const bool fits = b == Backend::cuda && have_gpu && csr_effective_bytes(a, p) <= l2;
        Cell c{k, t, false, fits};
        c.selection = sel.get();
        c.selection_ms = stats_ms;  // the selection itself is timed inside plan_auto
        c.settings = so;
        c.stats = &auto_stats;
        selections.push_back(std::move(sel));
        cells.push_back(c);
      }
    }
    return cells;
  };
  std::vector<std::vector<Cell>> auto_cells;
  for (Precision p : opts.precisions) auto_cells.push_back(auto_cells_for(p));

  std::size_t total = 0;
  for (std::size_t i = 0; i < opts.precisions.size(); ++i) total += cells_for(opts.precisions[i]).size() + auto_cells[i].size();

  std::vector<SpmvResult> rows;
  std::size_t index = 0;
  for (std::size_t pi = 0; pi < opts.precisions.size(); ++pi) {
    const Precision p = opts.precisions[pi];
    const std::size_t begin = rows.size();
    auto cells = cells_for(p);
    cells.insert(cells.end(), auto_cells[pi].begin(), auto_cells[pi].end());
    if (p == Precision::f64) {
      run_precision<double>(a, a, x, y_exact, cells, opts, index, total, rows);
    } else {
      const Csr<float> a32 = csr_cast<float>(a);  // once per precision, outside every plan's time
      run_precision<float>(a, a32, x, y_exact, cells, opts, index, total, rows);
    }
    fill_speedups(reg, rows, begin);
  }
  return rows;
}

}  // namespace spkit::harness
