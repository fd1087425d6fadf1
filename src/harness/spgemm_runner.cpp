// run_spgemm: the one place where SpGEMM kernels are run, timed and validated for `spkit spgemm` and
// `spkit bench`, as run_spmv is for SpMV.
#include "spkit/harness/spgemm_runner.hpp"

#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <cstdio>
#include <new>
#include <nlohmann/json.hpp>

#include "harness/bench_entries.hpp"
#include <set>
#include <sstream>

#include "spkit/harness/results.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "harness/row_failure.hpp"
#include "median.hpp"
#include "platform/memory.hpp"
#include "spkit/stats.hpp"

namespace spkit::harness {
namespace {

using harness_detail::join_note;


constexpr int kMinGpuReps = 10;
constexpr const char* kCusparse = "cuda.cusparse.spgemm";
constexpr const char* kMkl = "ref.mkl.sp2m";  // and ref.mkl.sp2m_1stage: vs_mkl takes the faster of MKL's two modes
constexpr const char* kCusparsePrefix = "cuda.cusparse.";
constexpr const char* kMklPrefix = "ref.mkl";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
// The vendor libraries' entries: every algorithm of each counts for "cuSPARSE best" / "MKL best".
bool is_cusparse(const SpgemmKernelInfo& k) { return k.comparison && starts_with(k.name, kCusparsePrefix); }
bool is_mkl(const SpgemmKernelInfo& k) { return k.comparison && starts_with(k.name, kMklPrefix); }

// The columns of a row that follow from the kernel alone.
template <class T>
SpgemmRow row_of(const SpgemmKernelInfo& k, std::int64_t products, const SpgemmRunOptions& opts) {
  SpgemmRow r;
  r.kernel = k.name;
  r.format = std::string(to_string(k.format));
  r.backend = std::string(to_string(k.backend));
  r.precision = std::string(to_string(precision_of<T>()));
  r.arithmetic = k.arithmetic;
  r.threads = k.backend == Backend::cpu && k.parallel ? std::max(1, opts.run.threads) : 1;
  r.comparison = k.comparison;
  r.products = products;
  return r;
}

// Times k (or `product`, its batched form) as run_spgemm does: the kernel's threads, GPU kernels at
// least kMinGpuReps timed runs. Throws what the kernel throws.
template <class T>
SpgemmTiming<T> time_kernel(const SpgemmKernelInfo& k, const SpgemmFn<T>& product, const Csr<T>& a, const Csr<T>& b,
                            SpgemmOptions run, const SpgemmRunOptions& opts) {
  SpgemmKernelInfo timed = k;
  if constexpr (sizeof(T) == 4) timed.run_f32 = product; else timed.run_f64 = product;
  run.threads = k.backend == Backend::cpu && k.parallel ? std::max(1, opts.run.threads) : 1;
  SpgemmTimingOptions timing = opts.timing;
  if (k.backend == Backend::cuda) timing.reps = std::max(timing.reps, kMinGpuReps);
  return time_spgemm(timed, a, b, run, timing);
}

// A product run in row batches reports "batch i/n: <stage>" per batch (spgemm_batched): one stage
// "batches: <stage>" each, summed over the batches, in the order they first ran.
std::vector<SpgemmStage> merge_batch_stages(const std::vector<SpgemmStage>& stages) {
  std::vector<SpgemmStage> out;
  for (const SpgemmStage& st : stages) {
    const std::size_t colon = st.name.find(": ");
    const bool batch = st.name.rfind("batch ", 0) == 0 && colon != std::string::npos;
    const std::string name = batch ? "batches: " + st.name.substr(colon + 2) : st.name;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const SpgemmStage& o) { return o.name == name && o.in_total == st.in_total; });
    if (batch && same != out.end()) same->ms += st.ms;
    else out.push_back({name, st.ms, st.in_total});
  }
  return out;
}

// Fills a row from a timed run: stages, totals, C's sizes, validation against the fp64 reference.
template <class T>
void finish_row(SpgemmRow& r, const SpgemmKernelInfo& k, SpgemmTiming<T>& timed, const Csr<T>& a, const Csr<T>& b,
                const SpgemmRunOptions& opts) {
  const SpgemmResult<T>& res = timed.result;
  r.stages = merge_batch_stages(timed.stages);
  r.total_ms = detail::median(timed.total_ms);
  if (!timed.total_ms.empty()) r.min_total_ms = *std::min_element(timed.total_ms.begin(), timed.total_ms.end());
  r.out_nnz = res.c.nnz();
  r.peak_bytes = timed.peak_bytes;
  r.out_blocks = res.out_blocks;
  r.tasks = res.tasks;
  r.note = join_note(r.note, res.detail);
  const double u = k.unit_roundoff > 0 ? k.unit_roundoff : (sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
  SpgemmCheck v;
  try {
    v = check_spgemm(a, b, res.c, u, k.input_underflow);
  } catch (const std::exception& e) {
    v.ok = false, v.message = e.what();
  }
  r.rel_error = v.rel_error;
  r.max_abs_error = v.max_abs_error;
  if (!v.ok) {
    r.status = "FAILED";  // never reported as a success: no GFLOPS, no ratios
    r.note = join_note(r.note, std::to_string(v.pattern_mismatches) + " entries wrong, first: " + v.message);
    return;
  }
  r.status = "ok";
  if (r.total_ms > 0) r.gflops = 2.0 * static_cast<double>(r.products) / (r.total_ms * 1e-3) * 1e-9;
  if (opts.on_result) opts.on_result(k, precision_of<T>(), csr_cast<double>(res.c));
}

constexpr const char* kOom = "out of memory (the allocation size was not known in advance)";

template <class T>
SpgemmRow run_one(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b, std::int64_t products,
                  const SpgemmRunOptions& opts) {
  SpgemmRow r = row_of<T>(k, products, opts);
  if (k.backend == Backend::cuda && gpu_count() == 0) {
    r.status = "skipped";
    r.note = no_gpu_reason();
    return r;
  }
  if (!k.fn<T>()) {
    r.status = "skipped", r.note = "no " + r.precision + " form of this kernel";
    return r;
  }
  if (opts.skip_reason) {
    const std::string why = opts.skip_reason(k);
    if (!why.empty()) {
      r.status = "skipped", r.note = why;
      return r;
    }
  }
  SpgemmTiming<T> timed;
  try {
    timed = time_kernel(k, k.fn<T>(), a, b, opts.run, opts);
  } catch (...) {
    auto failure = harness_detail::current_row_failure("run", kOom);
    r.status = std::move(failure.status), r.note = std::move(failure.note);
    return r;
  }
  finish_row(r, k, timed, a, b, opts);
  return r;
}

// The row "auto" of one backend: spgemm() with its candidates, fallbacks and row batches, each attempt
// timed like any kernel; the note says what ran, what refused and why.
template <class T>
SpgemmRow run_auto(const SpgemmRegistry& reg, Backend backend, const Csr<T>& a, const Csr<T>& b, std::int64_t products,
                   const SpgemmRunOptions& opts, std::size_t index, std::size_t total) {
  SpgemmRequest request;
  request.backend = backend;
  request.threads = opts.run.threads;
  request.device = opts.run.device;
  request.stream = opts.run.stream;
  request.memory_limit = opts.run.memory_limit;
  SpgemmTiming<T> timed;
  const SpgemmExecutor<T> execute = [&](const SpgemmKernelInfo& k, const SpgemmFn<T>& product, const SpgemmOptions& o) {
    if (opts.on_kernel) opts.on_kernel(k, precision_of<T>(), index, total);  // each candidate tried
    timed = time_kernel(k, product, a, b, o, opts);
    return std::move(timed.result);
  };
  SpgemmRow row;
  try {
    SpgemmRun<T> run = spgemm(reg, a, b, request, execute);
    timed.result = std::move(run.result);
    const SpgemmKernelInfo& k = *reg.find(run.kernel);
    row = row_of<T>(k, products, opts);
    row.note = "picked " + run.summary();
    finish_row(row, k, timed, a, b, opts);
  } catch (...) {
    row.backend = std::string(to_string(backend)), row.precision = std::string(to_string(precision_of<T>()));
    row.products = products;
    auto failure = harness_detail::current_row_failure("auto", kOom);
    row.status = std::move(failure.status), row.note = std::move(failure.note);
  }
  row.kernel = "auto";
  row.comparison = false;
  return row;
}

void fill_ratios(std::vector<SpgemmRow>& rows, std::size_t begin, const SpgemmRegistry& reg) {
  double cusparse_ms = 0, mkl_ms = 0;
  const SpgemmRow *cusparse_best = nullptr, *mkl_best = nullptr;
  for (std::size_t i = begin; i < rows.size(); ++i) {
    const SpgemmRow& r = rows[i];
    if (r.status != "ok" || r.total_ms <= 0) continue;
    if (r.kernel == kCusparse) cusparse_ms = r.total_ms;
    if (r.kernel.rfind(kMkl, 0) == 0) mkl_ms = mkl_ms > 0 ? std::min(mkl_ms, r.total_ms) : r.total_ms;
    const SpgemmKernelInfo* k = reg.find(r.kernel);
    if (k && is_cusparse(*k) && (!cusparse_best || r.total_ms < cusparse_best->total_ms)) cusparse_best = &r;
    if (k && is_mkl(*k) && (!mkl_best || r.total_ms < mkl_best->total_ms)) mkl_best = &r;
  }
  const std::string cusparse_name = cusparse_best ? cusparse_best->kernel : "";
  const std::string mkl_name = mkl_best ? mkl_best->kernel : "";
  const double cusparse_best_ms = cusparse_best ? cusparse_best->total_ms : 0;
  const double mkl_best_ms = mkl_best ? mkl_best->total_ms : 0;
  for (std::size_t i = begin; i < rows.size(); ++i) {
    SpgemmRow& r = rows[i];
    r.cusparse_best = cusparse_name, r.mkl_best = mkl_name;
    if (r.status != "ok" || r.total_ms <= 0) continue;
    if (cusparse_ms > 0) r.vs_cusparse = cusparse_ms / r.total_ms;
    if (mkl_ms > 0) r.vs_mkl = mkl_ms / r.total_ms;
    if (cusparse_best_ms > 0) r.vs_cusparse_best = cusparse_best_ms / r.total_ms;
    if (mkl_best_ms > 0) r.vs_mkl_best = mkl_best_ms / r.total_ms;
  }
}

}  // namespace

std::vector<SpgemmRow> run_spgemm(const Csr<double>& a, const Csr<double>& b, const SpgemmRunOptions& opts) {
  return run_spgemm(spgemm_registry(), a, b, opts);
}

std::vector<SpgemmRow> run_spgemm(const SpgemmRegistry& reg, const Csr<double>& a, const Csr<double>& b,
                                  const SpgemmRunOptions& opts) {
  if (a.cols != b.rows)
    throw Error("SpGEMM: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols) + " (A's columns must equal B's rows)");
  // check_spgemm keeps three arrays over B's columns (two double, one int64): refuse up front, naming
  // the bytes, rather than run every kernel and then fail (or be killed) validating.
  const std::uint64_t check_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(b.cols, 0)) * 24;
  if (check_bytes > available_memory_bytes() / 2)
    throw TooLarge("validating C = A B against the fp64 reference keeps 24 bytes per column of B (" +
                       std::to_string(b.cols) + " columns), more than half the memory available",
                   check_bytes);
  if (opts.run.threads < 1) throw Error("thread count must be at least 1 (got " + std::to_string(opts.run.threads) + ")");
  // "auto" among the globs: one extra row per backend, the kernel select_spgemm_kernel picks, run and
  // validated like any other and labelled "auto" (its note says which kernel and why).
  std::string globs;
  bool want_auto = false;
  for (std::size_t start = 0; start <= opts.kernels.size();) {
    std::size_t end = opts.kernels.find(',', start);
    if (end == std::string::npos) end = opts.kernels.size();
    const std::string g = opts.kernels.substr(start, end - start);
    if (g == "auto" || g == "all") want_auto = true;  // "all" is every kernel and the auto row
    if (g != "auto" && !g.empty()) globs += (globs.empty() ? "" : ",") + g;
    start = end + 1;
  }
  std::vector<Backend> auto_backends;
  if (want_auto) {
    if (opts.device != DeviceSelect::gpu) auto_backends.push_back(Backend::cpu);
    if (opts.device != DeviceSelect::cpu && gpu_count() > 0) auto_backends.push_back(Backend::cuda);
  }
  std::set<std::string> chosen;
  bool any_cpu = false, any_cuda = false;
  for (Backend be : auto_backends) (be == Backend::cpu ? any_cpu : any_cuda) = true;
  for (const SpgemmKernelInfo* k : reg.match(globs)) {
    if (opts.device == DeviceSelect::cpu && k->backend != Backend::cpu) continue;
    if (opts.device == DeviceSelect::gpu && k->backend != Backend::cuda) continue;
    chosen.insert(k->name);
    any_cpu = any_cpu || k->backend == Backend::cpu;
    any_cuda = any_cuda || k->backend == Backend::cuda;
  }
  if (chosen.empty() && opts.device == DeviceSelect::gpu && !cuda_compiled())
    throw Error("no GPU SpGEMM kernel to run: this spkit was built without CUDA");
  if (chosen.empty() && auto_backends.empty())
    throw Error("no registered SpGEMM kernel matches '" + opts.kernels + "' on device " +
                (opts.device == DeviceSelect::cpu ? "cpu" : opts.device == DeviceSelect::gpu ? "gpu" : "all") +
                " (see `spkit kernels`)");
  if (opts.add_baselines) {
    for (const SpgemmKernelInfo& k : reg.all()) {  // every algorithm of each, for cuSPARSE best and MKL best
      if (any_cpu && is_mkl(k)) chosen.insert(k.name);
      if (any_cuda && gpu_count() > 0 && is_cusparse(k)) chosen.insert(k.name);
    }
  }

  const std::int64_t products = spgemm_intermediate_products(a, b);
  std::size_t total = auto_backends.size() * opts.precisions.size();
  for (const auto& k : reg.all()) total += chosen.count(k.name) * opts.precisions.size();
  std::vector<SpgemmRow> rows;
  std::size_t index = 0;
  for (Precision p : opts.precisions) {
    const std::size_t begin = rows.size();
    // One cast per precision, outside every kernel's time; B stays the same object as A when it
    // is A, so kernels can convert it once (what A * A costs a user).
    Csr<float> a32, b32;
    if (p == Precision::f32) {
      a32 = csr_cast<float>(a);
      if (&a != &b) b32 = csr_cast<float>(b);
    }
    for (const auto& k : reg.all()) {
      if (!chosen.count(k.name)) continue;
      if (opts.on_kernel) opts.on_kernel(k, p, index, total);
      ++index;
      if (p == Precision::f64)
        rows.push_back(run_one<double>(k, a, b, products, opts));
      else
        rows.push_back(run_one<float>(k, a32, &a != &b ? b32 : a32, products, opts));
    }
    for (Backend be : auto_backends) {
      rows.push_back(p == Precision::f64 ? run_auto<double>(reg, be, a, b, products, opts, index, total)
                                         : run_auto<float>(reg, be, a32, &a != &b ? b32 : a32, products, opts, index, total));
      ++index;
    }
    fill_ratios(rows, begin, reg);
  }
  return rows;
}

std::string spgemm_rows_to_json(const std::vector<SpgemmRow>& rows, int indent) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json stages = nlohmann::json::array();
    for (const auto& s : r.stages) stages.push_back({{"name", s.name}, {"ms", s.ms}, {"in_total", s.in_total}});
    out.push_back({{"kernel", r.kernel},
                   {"format", r.format},
                   {"backend", r.backend},
                   {"precision", r.precision},
                   {"arithmetic", r.arithmetic},
                   {"threads", r.threads},
                   {"comparison", r.comparison},
                   {"stages", stages},
                   {"total_ms", r.total_ms},
                   {"min_total_ms", r.min_total_ms},
                   {"out_nnz", r.out_nnz},
                   {"out_blocks", r.out_blocks},
                   {"tasks", r.tasks},
                   {"products", r.products},
                   {"gflops", r.gflops},
                   {"vs_cusparse", r.vs_cusparse},
                   {"vs_mkl", r.vs_mkl},
                   {"rel_error", r.rel_error},
                   {"max_abs_error", r.max_abs_error},
                   {"peak_bytes", r.peak_bytes},
                   {"status", r.status},
                   {"note", r.note},
                   {"cusparse_best", r.cusparse_best},
                   {"vs_cusparse_best", r.vs_cusparse_best},
                   {"mkl_best", r.mkl_best},
                   {"vs_mkl_best", r.vs_mkl_best}});
  }
  return out.dump(indent);
}

std::string spgemm_rows_to_csv(const std::vector<SpgemmRow>& rows, const std::string& matrix_column, bool header) {
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  std::ostringstream out;
  out.precision(9);
  if (header && !matrix_column.empty()) out << "matrix,";
  if (header)
    out << "kernel,format,backend,precision,arithmetic,threads,comparison,stages,total_ms,min_total_ms,out_nnz,out_blocks,tasks,"
         "products,gflops,vs_cusparse,vs_mkl,rel_error,max_abs_error,status,note,cusparse_best,vs_cusparse_best,mkl_best,"
         "vs_mkl_best,peak_bytes\n";
  for (const auto& r : rows) {
    std::string stages;
    for (const auto& s : r.stages) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s=%.6g%s", stages.empty() ? "" : ";", s.name.c_str(), s.ms,
                    s.in_total ? "" : "*");
      stages += buf;
    }
    if (!matrix_column.empty()) out << quoted(matrix_column) << ",";
    out << quoted(r.kernel) << "," << r.format << "," << r.backend << "," << r.precision << "," << quoted(r.arithmetic)
        << "," << r.threads << "," << (r.comparison ? 1 : 0) << "," << quoted(stages) << "," << r.total_ms << "," << r.min_total_ms << ","
        << r.out_nnz << "," << r.out_blocks << "," << r.tasks << "," << r.products << "," << r.gflops << ","
        << r.vs_cusparse << "," << r.vs_mkl << "," << r.rel_error << "," << r.max_abs_error << "," << r.status << ","
        << quoted(r.note) << "," << quoted(r.cusparse_best) << "," << r.vs_cusparse_best << "," << quoted(r.mkl_best)
        << "," << r.vs_mkl_best << "," << r.peak_bytes << "\n";
  }
  return out.str();
}

void write_spgemm_bench(const std::string& dir, const std::vector<SpgemmBenchEntry>& entries,
                        std::int64_t max_products, bool keep_existing) {
  namespace fs = std::filesystem;
  const std::string json_path = (fs::path(dir) / "spgemm.json").string();
  std::set<std::string> names;
  for (const auto& e : entries) names.insert(e.matrix);
  nlohmann::json list = keep_existing ? kept_section_entries(json_path, names) : nlohmann::json::array();
  std::string csv = spgemm_rows_to_csv({}, "matrix", true);
  for (const auto& e : entries) {
    list.push_back({{"matrix", e.matrix},
                    {"rows", e.rows},
                    {"cols", e.cols},
                    {"nnz", e.nnz},
                    {"products", e.products},
                    {"skipped", e.skipped},
                    {"instance", e.instance},
                    {"results", nlohmann::json::parse(spgemm_rows_to_json(e.results, -1))}});
  }
  for (const auto& e : list) {
    // CSV from the JSON, so kept entries appear in it too.
    std::vector<SpgemmRow> rows;
    for (const auto& r : e["results"]) {
      SpgemmRow x;
      x.kernel = r.value("kernel", ""), x.format = r.value("format", ""), x.backend = r.value("backend", "");
      x.precision = r.value("precision", ""), x.arithmetic = r.value("arithmetic", "");
      x.threads = r.value("threads", 1), x.comparison = r.value("comparison", false);
      for (const auto& s : r.value("stages", nlohmann::json::array()))
        x.stages.push_back({s.value("name", ""), s.value("ms", 0.0), s.value("in_total", true)});
      x.total_ms = r.value("total_ms", 0.0), x.min_total_ms = r.value("min_total_ms", 0.0), x.out_nnz = r.value("out_nnz", std::int64_t{-1});
      x.out_blocks = r.value("out_blocks", std::int64_t{-1}), x.tasks = r.value("tasks", std::int64_t{-1});
      x.products = r.value("products", std::int64_t{0}), x.gflops = r.value("gflops", 0.0);
      x.vs_cusparse = r.value("vs_cusparse", 0.0), x.vs_mkl = r.value("vs_mkl", 0.0);
      x.rel_error = r.value("rel_error", 0.0), x.max_abs_error = r.value("max_abs_error", 0.0);
      x.peak_bytes = r.value("peak_bytes", std::int64_t{-1});
      x.status = r.value("status", ""), x.note = r.value("note", "");
      x.cusparse_best = r.value("cusparse_best", ""), x.vs_cusparse_best = r.value("vs_cusparse_best", 0.0);
      x.mkl_best = r.value("mkl_best", ""), x.vs_mkl_best = r.value("vs_mkl_best", 0.0);
      rows.push_back(std::move(x));
    }
    csv += spgemm_rows_to_csv(rows, e["matrix"].get<std::string>(), false);
  }
  const nlohmann::json doc = {{"schema", "spkit-spgemm/1"}, {"max_products", max_products}, {"entries", list}};
  fs::create_directories(dir);
  harness::write_file_atomic(json_path, doc.dump(2));
  harness::write_file_atomic((fs::path(dir) / "spgemm.csv").string(), csv);
}

}  // namespace spkit::harness
