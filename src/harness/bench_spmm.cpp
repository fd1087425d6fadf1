// The SpMM section of the bench suite: see bench_spmm.hpp.
#include "spkit/harness/bench_spmm.hpp"

#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/bench_entries.hpp"

#include "spkit/error.hpp"
#include "spkit/harness/results.hpp"

namespace spkit::harness {

namespace {

bool is_vendor(const SpmmResult& r) { return r.comparison; }

// The CSV's text field, quoted when it holds a comma or a quote.
std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::vector<std::int64_t> spmm_bench_ks(bool tiny_suite) {
  return tiny_suite ? std::vector<std::int64_t>{4} : std::vector<std::int64_t>{4, 16, 64};
}

SpmmBenchEntry bench_spmm_matrix(const std::string& name, const Csr<double>& a, const SpmmBenchOptions& opts,
                                 const std::function<void(const std::string&)>& log) {
  SpmmBenchEntry e;
  e.matrix = name;
  e.rows = a.rows, e.cols = a.cols, e.nnz = a.nnz();
  if (a.nnz() == 0) {
    e.skipped = "no non-zeros";
    return e;
  }
  SpmmRunOptions o;
  // auto on each backend, and every vendor algorithm: the runner's speedup column is over the fastest
  // cuSPARSE one; the report takes MKL's best the same way.
  o.kernels = "auto,cuda.cusparse.*,ref.mkl.*";
  o.device = opts.device;
  o.precisions = opts.precisions;
  o.threads = {opts.threads};
  o.ks = opts.ks;
  o.layouts = {DenseLayout::row_major};
  o.timing.reps = opts.reps;
  o.timing.warmup = opts.warmup;
  o.on_cell = [&](const SpmmKernelInfo& k, Precision p, const SpmmShape& s, int, std::size_t i, std::size_t n) {
    char line[256];
    std::snprintf(line, sizeof line, "  spmm %s: [%zu/%zu] %s %s k=%lld", name.c_str(), i + 1, n, k.name.c_str(),
                  std::string(to_string(p)).c_str(), static_cast<long long>(s.k));
    log(line);
  };
  try {
    e.results = run_spmm(a, o);
  } catch (const Error& err) {
    e.skipped = err.what();
    log("  spmm " + name + ": " + err.what());
  }
  return e;
}

std::vector<std::string> spmm_bench_summary(const SpmmBenchEntry& e) {
  std::vector<std::string> out;
  for (const SpmmResult& r : e.results) {
    if (r.kernel != "auto" || r.status != "ok") continue;
    double best = 0;
    std::string best_name;
    for (const SpmmResult& v : e.results)
      if (is_vendor(v) && v.status == "ok" && v.backend == r.backend && v.precision == r.precision && v.k == r.k &&
          v.median_ms > 0 && (best == 0 || v.median_ms < best))
        best = v.median_ms, best_name = v.kernel;
    char line[320], vendor[96] = "";
    if (best > 0) std::snprintf(vendor, sizeof vendor, ", %.2fx %s", best / r.median_ms, best_name.c_str());
    std::snprintf(line, sizeof line, "  spmm %s %s %s k=%lld: auto (%s) %.1f GFLOPS, %.2fx k SpMVs%s", e.matrix.c_str(),
                  r.backend.c_str(), r.precision.c_str(), static_cast<long long>(r.k), r.picked.c_str(), r.gflops,
                  r.vs_spmv, vendor);
    out.emplace_back(line);
  }
  return out;
}

void write_spmm_bench(const std::string& dir, const std::vector<SpmmBenchEntry>& entries, bool keep_existing) {
  namespace fs = std::filesystem;
  const std::string json_path = (fs::path(dir) / "spmm.json").string();
  std::set<std::string> names;
  for (const auto& e : entries) names.insert(e.matrix);
  nlohmann::json list = keep_existing ? kept_section_entries(json_path, names) : nlohmann::json::array();
  for (const auto& e : entries)
    list.push_back({{"matrix", e.matrix},
                    {"rows", e.rows},
                    {"cols", e.cols},
                    {"nnz", e.nnz},
                    {"skipped", e.skipped},
                    {"results", nlohmann::json::parse(spmm_results_to_json(e.results))}});
  // The CSV from the JSON, so that kept entries appear in it too.
  static const char* const kColumns[] = {"kernel", "picked", "backend", "precision", "layout", "k", "threads",
                                         "median_ms", "gflops", "gbytes_per_s", "vs_spmv", "spmv_kernel", "speedup",
                                         "speedup_over", "rel_l2_error", "status", "note"};
  std::ostringstream csv;
  csv << "matrix";
  for (const char* c : kColumns) csv << "," << c;
  csv << "\n";
  for (const auto& e : list)
    for (const auto& r : e["results"]) {
      csv << csv_text(e["matrix"].get<std::string>());
      for (const char* c : kColumns) {
        csv << ",";
        if (!r.contains(c)) continue;
        const auto& v = r[c];
        if (v.is_string()) csv << csv_text(v.get<std::string>());
        else csv << v.dump();
      }
      csv << "\n";
    }
  const nlohmann::json doc = {{"schema", "spkit-spmm/1"}, {"entries", list}};
  fs::create_directories(dir);
  write_file_atomic(json_path, doc.dump(2));
  write_file_atomic((fs::path(dir) / "spmm.csv").string(), csv.str());
}

}  // namespace spkit::harness
