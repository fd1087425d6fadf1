// run_spmm: plans, times and validates SpMM kernels for `spkit spmm`, cell by cell (kernel x precision x
// layout x k x threads), as run_spmv does for SpMV: a kernel that does not apply is "skipped", one whose Y
// is wrong "FAILED"; neither stops the run. X(j, c) is the same random value in both layouts, so every
// cell of one k is checked against one double reference.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "harness/row_failure.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "median.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/runner.hpp"
#include "spkit/harness/spmm_runner.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/plan.hpp"
#include "spkit/select.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::harness {

namespace {

using harness_detail::join_note;

bool is_cusparse(const std::string& name) { return name.rfind("cuda.cusparse.", 0) == 0; }
constexpr const char* kSerial = "cpu.csr.spmm_serial";

struct SpmmCell {
  const SpmmKernelInfo* kernel;
  int threads;
  const SpmmSelection* selection = nullptr;  // an "auto" row
};

// spkit::Plan's block apply as an SpmmPlan (row-major), for the auto rows of an ordering other than none.
template <class T>
class PlanBlockSpmm final : public SpmmPlan<T> {
 public:
  PlanBlockSpmm(const Csr<T>& a, const SpmmShape& shape, const PlanSettings& s)
      : plan_(a, s), k_(shape.k), backend_(s.backend), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {}
  void run(T alpha, const T* x, std::int64_t ldx, T beta, T* y, std::int64_t ldy, Stream stream) override {
    plan_.apply(x, ldx, y, ldy, k_, alpha, beta, stream);
  }
  Backend backend() const override { return backend_; }
  // CSR, X and Y once; a renumbered plan also reads and writes X and Y once more (the row passes) and
  // reads its permutation twice.
  std::uint64_t bytes_moved() const override {
    const std::uint64_t vec = static_cast<std::uint64_t>(rows_ + cols_) * static_cast<std::uint64_t>(k_) * sizeof(T);
    const std::uint64_t csr = static_cast<std::uint64_t>(rows_ + 1) * 8 + static_cast<std::uint64_t>(nnz_) * (4 + sizeof(T));
    return csr + vec + (plan_.block_renumbered() ? 2 * vec + static_cast<std::uint64_t>(rows_) * 8 : 0);
  }
  std::string detail() const override {
    const Selection& s = plan_.selection();
    const std::string spmm = plan_.block_kernel().empty() ? "not run yet" : plan_.block_kernel();
    const std::string where = plan_.block_renumbered() ? " on P A P^T (rows of X gathered, of Y scattered)"
                              : plan_.renumbered()     ? " on A as given (rows too short for the row passes)"
                                                       : "";
    return "Plan::apply on " + std::to_string(k_) + " vectors: SpMM " + spmm + where + "; plan ordering " + s.ordering +
           (s.ordering_reason.empty() ? "" : " (" + s.ordering_reason + ")");
  }
  const Plan<T>& plan() const { return plan_; }

 private:
  Plan<T> plan_;
  std::int64_t k_;
  Backend backend_;
  std::int64_t rows_, cols_, nnz_;
};

// k SpMVs with the SpMV kernel spkit's selector picks, timed once per (backend, precision, threads).
class SpmvYardstick {
 public:
  SpmvYardstick(const Csr<double>& a, const SpmmRunOptions& opts) : a_(a), opts_(opts) {}
  // {median ms of one SpMV, kernel name}; {0, ""} when it cannot be measured.
  template <class T>
  std::pair<double, std::string> get(const Csr<T>& a_t, Backend backend, int threads) {
    const auto key = std::make_tuple(static_cast<int>(backend), static_cast<int>(sizeof(T)), threads);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    std::pair<double, std::string> out{0.0, ""};
    try {
      if (!stats_) stats_ = std::make_unique<MatrixStats>(compute_stats(a_));
      PlanSettings so;
      so.backend = backend;
      so.threads = threads;
      so.expected_products = 1000000;
      const Selection sel = select_kernel(*stats_, so, precision_of<T>());
      const KernelInfo* k = registry().find(sel.kernel);
      if (k) {
        PlanOptions po = sel.options;
        po.threads = threads;
        auto plan = k->factory<T>()(a_t, po);
        const std::vector<double> xd = random_x(a_.cols, opts_.seed);
        const std::vector<T> x(xd.begin(), xd.end());
        std::vector<T> y(static_cast<std::size_t>(a_.rows));
        TimingOptions t = opts_.timing;
        if (backend == Backend::cuda) t.reps = std::max(t.reps, tuning::kMinGpuSpmvReps);
        const std::vector<double> ms = time_spmv(*plan, a_.rows, a_.cols, x.data(), y.data(), t);
        if (!ms.empty()) out = {detail::median(ms), sel.kernel};
      }
    } catch (const std::exception&) {
      // No yardstick (the column stays empty); the SpMM rows do not depend on it.
    }
    cache_[key] = out;
    return out;
  }

 private:
  const Csr<double>& a_;
  const SpmmRunOptions& opts_;
  std::unique_ptr<MatrixStats> stats_;
  std::map<std::tuple<int, int, int>, std::pair<double, std::string>> cache_;
};

template <class T>
SpmmResult run_cell(const Csr<double>& a, const Csr<T>& a_t, const SpmmShape& shape, const std::vector<T>& x,
                    std::int64_t ldx, std::int64_t ldy, const std::vector<double>& y_exact, const SpmmCell& cell,
                    const SpmmRunOptions& opts, SpmvYardstick& yardstick) {
  const SpmmKernelInfo& k = *cell.kernel;
  SpmmResult r;
  r.kernel = cell.selection ? "auto" : k.name;
  if (cell.selection) r.picked = k.name, r.pick_reason = cell.selection->reason;
  r.format = std::string(to_string(k.format));
  r.backend = std::string(to_string(k.backend));
  r.precision = std::string(to_string(precision_of<T>()));
  r.layout = std::string(to_string(shape.layout));
  r.k = shape.k;
  r.threads = cell.threads;
  r.comparison = k.comparison;
  if (k.backend == Backend::cuda && gpu_count() == 0) {
    r.status = "skipped";
    r.note = no_gpu_reason();
    return r;
  }
  PlanOptions po;
  po.threads = cell.threads;
  std::unique_ptr<SpmmPlan<T>> plan;
  const bool through_plan = cell.selection && opts.ordering != "none";
  if (through_plan && shape.layout != DenseLayout::row_major) {
    r.status = "skipped";
    r.note = "Plan::apply takes row-major blocks (--ordering " + opts.ordering + ")";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  try {
    if (through_plan) {
      PlanSettings s;
      s.backend = k.backend;
      s.threads = cell.threads;
      s.ordering = opts.ordering;
      s.expected_products = opts.expected_products;
      plan = std::make_unique<PlanBlockSpmm<T>>(a_t, shape, s);
    } else {
      plan = k.factory<T>()(a_t, shape, po);
    }
  } catch (...) {
    auto failure = harness_detail::current_row_failure("plan", "out of memory while planning");
    r.status = std::move(failure.status), r.note = std::move(failure.note);
    return r;
  }
  r.conversion_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.optimize_ms = plan->optimize_ms();
  r.bytes_moved = plan->bytes_moved();
  r.note = cell.selection ? join_note("picked " + k.name, plan->detail()) : plan->detail();

  const std::vector<T> y0(static_cast<std::size_t>(dense_elements(a.rows, shape, ldy)), std::numeric_limits<T>::quiet_NaN());
  // Y on a 64-byte boundary, as an aligned allocation (and Python's Plan.matmat) gives it: where its rows
  // are whole lines the row-major kernels write them with streaming stores (spmm_tiles.hpp).
  cpu::FirstTouchArray<T> y_timed(y0.size());
  std::copy(y0.begin(), y0.end(), y_timed.data());
  TimingOptions timing = opts.timing;
  if (k.backend == Backend::cuda) timing.reps = std::max(timing.reps, tuning::kMinGpuSpmvReps);
  if (through_plan) timing.warmup = std::max(timing.warmup, 1);  // the plan builds its SpMM kernel on the first block
  std::vector<double> ms;
  try {
    ms = time_spmm(*plan, a.rows, a.cols, shape, x.data(), ldx, y_timed.data(), ldy, timing);
  } catch (const std::exception& e) {
    r.status = "FAILED", r.note = join_note(r.note, std::string("run failed: ") + e.what());
    return r;
  }
  if (through_plan) {  // the SpMM kernel is planned on the first block (a warm-up)
    const auto& pb = static_cast<const PlanBlockSpmm<T>&>(*plan);
    r.picked = pb.plan().block_kernel();
    r.pick_reason = "Plan::apply: " + pb.plan().selection().ordering_reason;
    r.ordering = pb.plan().selection().ordering;
    r.bytes_moved = plan->bytes_moved();
    r.note = plan->detail();
  }
  if (!ms.empty()) {
    r.median_ms = detail::median(ms);
    double sum = 0;
    for (double v : ms) sum += v;
    r.mean_ms = sum / static_cast<double>(ms.size());
    r.min_ms = *std::min_element(ms.begin(), ms.end());
  }
  const std::vector<T> y(y_timed.data(), y_timed.data() + y0.size());
  const Validation v = validate_spmm(a_t, shape, x, ldx, T(1), T(0), y0, y, ldy, &y_exact);
  r.rel_l2_error = v.rel_l2_error, r.max_abs_error = v.max_abs_error, r.valid = v.valid;
  if (!v.valid) {
    r.status = "FAILED";
    r.note = join_note(r.note, std::to_string(v.bad_rows) + " entries over tolerance, first in row " +
                                   std::to_string(v.first_bad_row));
    return r;
  }
  r.status = "ok";
  r.bytes_per_column = static_cast<double>(r.bytes_moved) / static_cast<double>(shape.k);
  if (r.median_ms > 0) {
    const double s = r.median_ms * 1e-3;
    r.gflops = 2.0 * static_cast<double>(a.nnz()) * static_cast<double>(shape.k) / s * 1e-9;
    r.gbytes_per_s = static_cast<double>(r.bytes_moved) / s * 1e-9;
    if (opts.compare_spmv) {
      const auto [spmv_ms, spmv_name] = yardstick.get(a_t, k.backend, k.backend == Backend::cpu ? cell.threads : 1);
      if (spmv_ms > 0) r.vs_spmv = static_cast<double>(shape.k) * spmv_ms / r.median_ms, r.spmv_kernel = spmv_name;
    }
  }
  return r;
}

// Speedups within one (precision, layout, k) group: CPU rows over cpu.csr.spmm_serial, GPU rows over the
// fastest cuda.cusparse.* row.
void fill_speedups(std::vector<SpmmResult>& rows, std::size_t begin) {
  for (std::size_t i = begin; i < rows.size(); ++i) {
    SpmmResult& r = rows[i];
    if (r.status != "ok" || r.median_ms <= 0) continue;
    double base = 0;
    std::string name;
    for (std::size_t j = begin; j < rows.size(); ++j) {
      const SpmmResult& c = rows[j];
      if (c.status != "ok" || c.median_ms <= 0 || c.backend != r.backend) continue;
      const bool fits = r.backend == "cpu" ? c.kernel == kSerial : is_cusparse(c.kernel);
      if (fits && (base == 0 || c.median_ms < base)) base = c.median_ms, name = c.kernel;
    }
    if (base > 0) r.speedup = base / r.median_ms, r.speedup_over = name;
  }
}

}  // namespace

std::vector<SpmmResult> run_spmm(const Csr<double>& a, const SpmmRunOptions& opts) {
  return run_spmm(spmm_registry(), a, opts);
}

std::vector<SpmmResult> run_spmm(const SpmmRegistry& reg, const Csr<double>& a, const SpmmRunOptions& opts) {
  bool with_auto = false;
  std::string patterns;
  for (std::size_t pos = 0; pos <= opts.kernels.size();) {
    const std::size_t comma = std::min(opts.kernels.find(',', pos), opts.kernels.size());
    const std::string part = opts.kernels.substr(pos, comma - pos);
    if (part == "auto") with_auto = true;
    else if (!part.empty()) patterns += (patterns.empty() ? "" : ",") + part;
    pos = comma + 1;
  }
  for (std::int64_t k : opts.ks)
    if (k < 1) throw Error("--k: every k must be at least 1 (got " + std::to_string(k) + ")");
  if (opts.ks.empty() || opts.layouts.empty()) throw Error("run_spmm needs at least one k and one layout");
  std::set<std::string> chosen;
  bool any_cpu = false, any_cuda_own = false;
  for (const SpmmKernelInfo* k : patterns.empty() ? std::vector<const SpmmKernelInfo*>{} : reg.match(patterns)) {
    if (opts.device == DeviceSelect::cpu && k->backend != Backend::cpu) continue;
    if (opts.device == DeviceSelect::gpu && k->backend != Backend::cuda) continue;
    if (!opts.include_comparison && k->comparison) continue;
    chosen.insert(k->name);
    any_cpu = any_cpu || k->backend == Backend::cpu;
    any_cuda_own = any_cuda_own || (k->backend == Backend::cuda && !k->comparison);
  }
  if (chosen.empty() && opts.device == DeviceSelect::gpu && !cuda_compiled())
    throw Error("no GPU kernel to run: this spkit was built without CUDA");
  if (chosen.empty() && !with_auto)
    throw Error("no registered SpMM kernel matches '" + opts.kernels + "' (see `spkit kernels`)");
  // The kernels the speedup column is measured against.
  if (any_cpu && reg.find(kSerial)) chosen.insert(kSerial);
  if (any_cuda_own && opts.include_comparison && gpu_count() > 0)
    for (const auto& k : reg.all())
      if (is_cusparse(k.name)) chosen.insert(k.name);

  std::vector<int> thread_counts = opts.threads;
  if (thread_counts.empty()) thread_counts.push_back(omp_get_max_threads());
  for (int t : thread_counts)
    if (t < 1) throw Error("thread counts must be at least 1 (got " + std::to_string(t) + ")");
  std::vector<Backend> auto_backends;
  if (with_auto) {
    if (opts.device != DeviceSelect::gpu) auto_backends.push_back(Backend::cpu);
    if (opts.device == DeviceSelect::gpu || (opts.device == DeviceSelect::all && gpu_count() > 0))
      auto_backends.push_back(Backend::cuda);
  }
  MatrixStats stats;
  if (!auto_backends.empty()) stats = compute_stats(a);

  // Cells of one (layout, k): the chosen kernels that handle the layout, then the auto rows.
  std::vector<std::unique_ptr<SpmmSelection>> selections;
  auto cells_for = [&](const SpmmShape& shape, Precision precision) {
    std::vector<SpmmCell> cells;
    for (const auto& k : reg.all()) {
      if (!chosen.count(k.name) || !k.handles(shape.layout)) continue;
      if (k.backend == Backend::cpu && k.parallel)
        for (int t : thread_counts) cells.push_back({&k, t});
      else
        cells.push_back({&k, 1});
    }
    for (Backend b : auto_backends) {
      auto sel = std::make_unique<SpmmSelection>(select_spmm_kernel(stats, shape, b, precision));
      const SpmmKernelInfo* k = reg.find(sel->kernel);
      if (!k) k = spmm_registry().find(sel->kernel);
      if (!k) throw Error("the SpMM selector picked '" + sel->kernel + "', which is not registered");
      for (int t : b == Backend::cpu ? thread_counts : std::vector<int>{1}) cells.push_back({k, t, sel.get()});
      selections.push_back(std::move(sel));
    }
    return cells;
  };
  std::size_t total = 0;
  for (DenseLayout l : opts.layouts)
    for (std::int64_t k : opts.ks)
      for (Precision p : opts.precisions) total += cells_for({k, l}, p).size();

  SpmvYardstick yardstick(a, opts);
  std::vector<SpmmResult> rows;
  std::size_t index = 0;
  auto run_precision = [&](auto tag, const auto& a_t) {
    using T = decltype(tag);
    for (std::int64_t k : opts.ks) {
      // X(j, c) = value j*k + c of one random stream, in either layout; the exact product in double.
      const std::vector<double> xd = random_x(a.cols * k, opts.seed);
      std::vector<double> y_exact(static_cast<std::size_t>(a.rows * k), 0.0);
#pragma omp parallel for schedule(dynamic, 256) if (a.nnz() * k > (std::int64_t(1) << 18))
      for (std::int64_t i = 0; i < a.rows; ++i)
        for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
          for (std::int64_t c = 0; c < k; ++c) y_exact[i * k + c] += a.values[p] * xd[a.col_idx[p] * k + c];
      for (DenseLayout layout : opts.layouts) {
        const SpmmShape shape{k, layout};
        const bool row = layout == DenseLayout::row_major;
        const std::int64_t ldx = row ? k : std::max<std::int64_t>(a.cols, 1), ldy = row ? k : std::max<std::int64_t>(a.rows, 1);
        std::vector<T> x(static_cast<std::size_t>(dense_elements(a.cols, shape, ldx)));
        for (std::int64_t j = 0; j < a.cols; ++j)
          for (std::int64_t c = 0; c < k; ++c) x[row ? j * ldx + c : c * ldx + j] = static_cast<T>(xd[j * k + c]);
        const std::size_t begin = rows.size();
        // Timed narrowest team first (harness/timing.hpp), reported in the cells' order.
        const std::vector<SpmmCell> cells = cells_for(shape, precision_of<T>());
        std::vector<int> threads;
        for (const SpmmCell& cell : cells) threads.push_back(cell.kernel->backend == Backend::cpu ? cell.threads : 0);
        std::vector<SpmmResult> done(cells.size());
        run_narrowest_first(threads, [&](std::size_t i) {
          const SpmmCell& cell = cells[i];
          if (opts.on_cell) opts.on_cell(*cell.kernel, precision_of<T>(), shape, cell.threads, index, total);
          ++index;
          done[i] = run_cell<T>(a, a_t, shape, x, ldx, ldy, y_exact, cell, opts, yardstick);
        });
        for (SpmmResult& r : done) rows.push_back(std::move(r));
        fill_speedups(rows, begin);
      }
    }
  };
  for (Precision p : opts.precisions) {
    if (p == Precision::f64) {
      run_precision(double{}, a);
    } else {
      const Csr<float> a32 = csr_cast<float>(a);
      run_precision(float{}, a32);
    }
  }
  return rows;
}

std::string spmm_results_to_json(const std::vector<SpmmResult>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const SpmmResult& r : rows) {
    nlohmann::json j = {{"kernel", r.kernel},
                        {"format", r.format},
                        {"backend", r.backend},
                        {"precision", r.precision},
                        {"layout", r.layout},
                        {"k", r.k},
                        {"threads", r.threads},
                        {"conversion_ms", r.conversion_ms},
                        {"optimize_ms", r.optimize_ms},
                        {"median_ms", r.median_ms},
                        {"mean_ms", r.mean_ms},
                        {"min_ms", r.min_ms},
                        {"gflops", r.gflops},
                        {"gbytes_per_s", r.gbytes_per_s},
                        {"bytes_moved", r.bytes_moved},
                        {"bytes_per_column", r.bytes_per_column},
                        {"vs_spmv", r.vs_spmv},
                        {"spmv_kernel", r.spmv_kernel},
                        {"speedup", r.speedup},
                        {"speedup_over", r.speedup_over},
                        {"rel_l2_error", r.rel_l2_error},
                        {"max_abs_error", r.max_abs_error},
                        {"valid", r.valid},
                        {"comparison", r.comparison},
                        {"status", r.status},
                        {"note", r.note}};
    if (!r.picked.empty()) j["picked"] = r.picked, j["pick_reason"] = r.pick_reason;
    if (!r.ordering.empty()) j["ordering"] = r.ordering;
    out.push_back(std::move(j));
  }
  return out.dump(2);
}

}  // namespace spkit::harness
