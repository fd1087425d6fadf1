// results.json / results.csv: writing, reading and comparing benchmark results.
#include "spkit/harness/results.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "spkit/error.hpp"

namespace spkit::harness {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// JSON has no NaN/inf: write them as null, read null back as NaN.
json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
double get_num(const json& j, const char* key, double fallback = 0) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!it->is_number()) return fallback;
  return it->get<double>();
}
std::int64_t get_int(const json& j, const char* key, std::int64_t fallback = 0) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<std::int64_t>() : fallback;
}
std::string get_str(const json& j, const char* key) {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string();
}
bool get_bool(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

// The bandwidth sweep that decided llc_bytes (null when none ran): its points and its decision.
json cache_sweep_json(const CacheSweep& c) {
  if (!c.measured()) return json(nullptr);
  json points = json::array();
  for (const auto& p : c.points) points.push_back({{"working_set_bytes", p.working_set_bytes}, {"gbs", num(p.gbs)}});
  return json{{"method", "copy b = a, best repetition, working set = both arrays"},
              {"threads", c.threads},
              {"points", points},
              {"plateau_gbs", num(c.plateau_gbs)},
              {"tolerance", num(c.tolerance)},
              {"out_of_cache_bytes", c.out_of_cache_bytes},
              {"flattened", c.flattened},
              {"seconds", num(c.seconds)},
              {"summary", c.summary()}};
}
CacheSweep cache_sweep_from(const json& j) {
  CacheSweep c;
  if (!j.is_object()) return c;
  if (j.contains("points") && j["points"].is_array())
    for (const auto& p : j["points"])
      c.points.push_back({static_cast<std::uint64_t>(get_int(p, "working_set_bytes")), get_num(p, "gbs")});
  c.threads = static_cast<int>(get_int(j, "threads"));
  c.plateau_gbs = get_num(j, "plateau_gbs");
  c.tolerance = get_num(j, "tolerance");
  c.out_of_cache_bytes = static_cast<std::uint64_t>(get_int(j, "out_of_cache_bytes"));
  c.flattened = get_bool(j, "flattened");
  c.seconds = get_num(j, "seconds");
  return c;
}

json machine_json(const MachineInfo& m) {
  return json{{"cpu_model", m.cpu_model},       {"logical_cpus", m.logical_cpus},
              {"physical_cores", m.physical_cores}, {"memory_bytes", m.memory_bytes},
              {"os", m.os},                     {"hostname", m.hostname},
              {"gpu_count", m.gpu_count},       {"gpu_name", m.gpu_name},
              {"cpu_read_gbs", num(m.cpu_read_gbs)}, {"cpu_copy_gbs", num(m.cpu_copy_gbs)},
              {"cpu_triad_gbs", num(m.cpu_triad_gbs)}, {"gpu_read_gbs", num(m.gpu_read_gbs)},
              {"gpu_copy_gbs", num(m.gpu_copy_gbs)},   {"gpu_triad_gbs", num(m.gpu_triad_gbs)},
              {"llc_bytes", m.llc_bytes},       {"llc_source", m.llc_source},
              {"gpu_l2_bytes", m.gpu_l2_bytes}, {"cache_sweep", cache_sweep_json(m.cache_sweep)}};
}
MachineInfo machine_from(const json& j) {
  MachineInfo m;
  m.cpu_model = get_str(j, "cpu_model");
  m.logical_cpus = static_cast<int>(get_int(j, "logical_cpus"));
  m.physical_cores = static_cast<int>(get_int(j, "physical_cores"));
  m.memory_bytes = static_cast<std::uint64_t>(get_int(j, "memory_bytes"));
  m.os = get_str(j, "os");
  m.hostname = get_str(j, "hostname");
  m.gpu_count = static_cast<int>(get_int(j, "gpu_count"));
  m.gpu_name = get_str(j, "gpu_name");
  m.cpu_read_gbs = get_num(j, "cpu_read_gbs");
  m.cpu_copy_gbs = get_num(j, "cpu_copy_gbs");
  m.cpu_triad_gbs = get_num(j, "cpu_triad_gbs");
  m.gpu_read_gbs = get_num(j, "gpu_read_gbs");
  m.gpu_copy_gbs = get_num(j, "gpu_copy_gbs");
  m.gpu_triad_gbs = get_num(j, "gpu_triad_gbs");
  m.llc_bytes = static_cast<std::uint64_t>(get_int(j, "llc_bytes"));
  m.llc_source = get_str(j, "llc_source");
  m.gpu_l2_bytes = static_cast<std::uint64_t>(get_int(j, "gpu_l2_bytes"));
  if (j.contains("cache_sweep")) m.cache_sweep = cache_sweep_from(j["cache_sweep"]);
  return m;
}

json matrix_json(const MatrixRecord& m) {
  const MatrixStats& s = m.stats;
  json hist = json::array();
  for (int k = 1; k <= 64; ++k) hist.push_back(s.bm_block_histogram[static_cast<std::size_t>(k)]);
  return json{{"name", m.name},
              {"family", m.family},
              {"source", m.source},
              {"generated", m.generated},
              {"load_ms", num(m.load_ms)},
              {"file_mb", num(m.file_mb)},
              {"parse_mb_s", num(m.parse_mb_s)},
              {"fmm_parse_mb_s", num(m.fmm_parse_mb_s)},
              {"rows", s.rows},
              {"cols", s.cols},
              {"nnz", s.nnz},
              {"row_nnz_min", s.row_nnz_min},
              {"row_nnz_max", s.row_nnz_max},
              {"row_nnz_mean", num(s.row_nnz_mean)},
              {"row_nnz_std", num(s.row_nnz_std)},
              {"empty_rows", s.empty_rows},
              {"max_diag_distance", s.max_diag_distance},
              {"hub_column_share", num(s.hub_column_share)},
              {"ell_width", s.ell_width},
              {"ell_padding_ratio", num(s.ell_padding_ratio)},
              {"hack_size", s.hack_size},
              {"hll_padding_ratio", num(s.hll_padding_ratio)},
              {"bm_blocks", s.bm_blocks},
              {"bm_nnz_per_block", num(s.bm_nnz_per_block)},
              {"bm_block_histogram", hist},
              {"bytes_csr_f64", s.bytes_csr.f64},
              {"bytes_csr_f32", s.bytes_csr.f32},
              {"diagonals", s.diagonals},
              {"symmetric", s.symmetric},
              {"headline", m.headline},
              {"reps", m.reps}};
}
MatrixRecord matrix_from(const json& j) {
  MatrixRecord m;
  m.name = get_str(j, "name");
  m.family = get_str(j, "family");
  m.source = get_str(j, "source");
  m.generated = get_bool(j, "generated");
  m.load_ms = get_num(j, "load_ms");
  m.file_mb = get_num(j, "file_mb");
  m.parse_mb_s = get_num(j, "parse_mb_s");
  m.fmm_parse_mb_s = get_num(j, "fmm_parse_mb_s");
  m.headline = get_bool(j, "headline");
  m.reps = static_cast<int>(get_int(j, "reps"));
  MatrixStats& s = m.stats;
  s.rows = get_int(j, "rows");
  s.cols = get_int(j, "cols");
  s.nnz = get_int(j, "nnz");
  s.row_nnz_min = get_int(j, "row_nnz_min");
  s.row_nnz_max = get_int(j, "row_nnz_max");
  s.row_nnz_mean = get_num(j, "row_nnz_mean");
  s.row_nnz_std = get_num(j, "row_nnz_std");
  s.empty_rows = get_int(j, "empty_rows");
  s.max_diag_distance = get_int(j, "max_diag_distance");
  s.hub_column_share = get_num(j, "hub_column_share");
  s.diagonals = get_int(j, "diagonals");
  s.symmetric = get_bool(j, "symmetric");
  s.ell_width = get_int(j, "ell_width");
  s.ell_padding_ratio = get_num(j, "ell_padding_ratio");
  s.hack_size = static_cast<int>(get_int(j, "hack_size", 32));
  s.hll_padding_ratio = get_num(j, "hll_padding_ratio");
  s.bm_blocks = get_int(j, "bm_blocks");
  s.bm_nnz_per_block = get_num(j, "bm_nnz_per_block");
  auto h = j.find("bm_block_histogram");
  if (h != j.end() && h->is_array())
    for (std::size_t k = 0; k < h->size() && k < 64; ++k) s.bm_block_histogram[k + 1] = (*h)[k].get<std::int64_t>();
  s.bytes_csr.f64 = static_cast<std::uint64_t>(get_int(j, "bytes_csr_f64"));
  s.bytes_csr.f32 = static_cast<std::uint64_t>(get_int(j, "bytes_csr_f32"));
  return m;
}

// The bandwidth this row's backend is held against (0 when not measured).
double machine_bandwidth(const MachineInfo& m, const std::string& backend) {
  return backend == "cuda" ? m.gpu_copy_gbs : m.cpu_read_gbs;
}

// The keys of one `spkit spmv` row (shared by `spkit spmv --json` and results.json).
json spmv_row_json(const SpmvResult& r) {
  return json{{"kernel", r.kernel},
         {"format", r.format},
         {"backend", r.backend},
         {"precision", r.precision},
         {"threads", r.threads},
         {"comparison", r.comparison},
         {"status", r.status},
         {"valid", r.valid},
         {"conversion_ms", num(r.conversion_ms)},
         {"conversion_spmvs", num(r.median_ms > 0 ? r.conversion_ms / r.median_ms : 0.0)},
         {"optimize_ms", num(r.optimize_ms)},
         {"median_ms", num(r.median_ms)},
         {"mean_ms", num(r.mean_ms)},
         {"min_ms", num(r.min_ms)},
         {"gflops", num(r.gflops)},
         {"gbytes_per_s", num(r.gbytes_per_s)},
         {"own_gbytes_per_s", num(r.own_gbytes_per_s)},
         {"bytes_moved", r.bytes_moved},
         {"speedup", num(r.speedup)},
         {"speedup_over", r.speedup_over},
         {"l2_flushed", r.l2_flushed},
         {"efficiency", num(r.efficiency)},
         {"rel_l2_error", num(r.rel_l2_error)},
         {"max_abs_error", num(r.max_abs_error)},
         {"note", r.note},
         {"picked", r.picked},
         {"pick_reason", r.pick_reason},
         {"ordering", r.ordering},
         {"tuning", r.tuning},
         {"tuning_ms", num(r.tuning_ms)},
         {"model_pick", r.model_pick},
         {"model_pick_won", r.model_pick_won}};
}

// One flat row: the spmv keys, then the matrix's statistics and parse throughput.
json row_json(const BenchRow& row, const MatrixRecord* m, const MachineInfo& machine) {
  const SpmvResult& r = row.result;
  const double bw = machine_bandwidth(machine, r.backend);
  json j = spmv_row_json(r);
  j["matrix"] = row.matrix;
  j["bandwidth_fraction"] = num(bw > 0 ? r.gbytes_per_s / bw : 0.0);
  const MatrixStats empty{};
  const MatrixStats& s = m ? m->stats : empty;
  j["family"] = m ? m->family : std::string();
  j["rows"] = s.rows;
  j["cols"] = s.cols;
  j["nnz"] = s.nnz;
  j["row_nnz_mean"] = num(s.row_nnz_mean);
  j["row_nnz_std"] = num(s.row_nnz_std);
  j["row_nnz_max"] = s.row_nnz_max;
  j["empty_rows"] = s.empty_rows;
  j["ell_width"] = s.ell_width;
  j["ell_padding_ratio"] = num(s.ell_padding_ratio);
  j["hll_padding_ratio"] = num(s.hll_padding_ratio);
  j["bm_nnz_per_block"] = num(s.bm_nnz_per_block);
  j["parse_mb_s"] = num(m ? m->parse_mb_s : 0.0);
  j["fmm_parse_mb_s"] = num(m ? m->fmm_parse_mb_s : 0.0);
  const CacheFit fit = cache_fit(s, r.precision, r.backend, machine);
  j["working_set_bytes"] = fit.working_set_bytes;
  j["cache_bytes"] = fit.cache_bytes;
  j["cache_ratio"] = num(fit.ratio);
  j["in_cache"] = fit.in_cache();
  return j;
}

BenchRow row_from(const json& j) {
  BenchRow row;
  row.matrix = get_str(j, "matrix");
  SpmvResult& r = row.result;
  r.kernel = get_str(j, "kernel");
  r.format = get_str(j, "format");
  r.backend = get_str(j, "backend");
  r.precision = get_str(j, "precision");
  r.threads = static_cast<int>(get_int(j, "threads", 1));
  r.comparison = get_bool(j, "comparison");
  r.status = get_str(j, "status");
  r.valid = get_bool(j, "valid");
  r.conversion_ms = get_num(j, "conversion_ms");
  r.optimize_ms = get_num(j, "optimize_ms");
  r.median_ms = get_num(j, "median_ms");
  r.mean_ms = get_num(j, "mean_ms");
  r.min_ms = get_num(j, "min_ms");
  r.gflops = get_num(j, "gflops");
  r.gbytes_per_s = get_num(j, "gbytes_per_s");
  r.own_gbytes_per_s = get_num(j, "own_gbytes_per_s");
  r.bytes_moved = static_cast<std::uint64_t>(get_int(j, "bytes_moved"));
  r.speedup = get_num(j, "speedup");
  r.speedup_over = get_str(j, "speedup_over");
  r.l2_flushed = get_bool(j, "l2_flushed");
  r.efficiency = get_num(j, "efficiency");
  r.rel_l2_error = get_num(j, "rel_l2_error");
  r.max_abs_error = get_num(j, "max_abs_error");
  r.note = get_str(j, "note");
  r.picked = get_str(j, "picked");
  r.pick_reason = get_str(j, "pick_reason");
  r.ordering = get_str(j, "ordering");
  r.tuning = get_str(j, "tuning");
  r.tuning_ms = get_num(j, "tuning_ms");
  r.model_pick = get_str(j, "model_pick");
  r.model_pick_won = get_bool(j, "model_pick_won");
  return row;
}

std::string csv_field(const json& v) {
  if (v.is_null()) return "";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v.get<double>());
    return buf;
  }
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

}  // namespace

CacheFit cache_fit(const MatrixStats& s, const std::string& precision, const std::string& backend, const MachineInfo& m) {
  CacheFit f;
  const std::uint64_t value = precision == "float" ? 4 : 8;
  const auto nnz = static_cast<std::uint64_t>(s.nnz), rows = static_cast<std::uint64_t>(s.rows),
             cols = static_cast<std::uint64_t>(s.cols);
  f.working_set_bytes = (value + 4) * nnz + 4 * rows + value * (rows + cols);  // as csr_effective_bytes
  f.cache_bytes = backend == "cuda" ? m.gpu_l2_bytes : m.llc_bytes;
  if (f.cache_bytes > 0) f.ratio = static_cast<double>(f.working_set_bytes) / static_cast<double>(f.cache_bytes);
  return f;
}

const MatrixRecord* BenchResults::find_matrix(const std::string& name) const {
  for (const auto& m : matrices)
    if (m.name == name) return &m;
  return nullptr;
}

CellKey cell_key(const BenchRow& row) {
  return {row.matrix, row.result.kernel + (row.result.l2_flushed ? " [L2-flushed]" : ""), row.result.precision,
          row.result.threads};
}

std::set<CellKey> finished_cells(const BenchResults& r) {
  std::set<CellKey> out;
  for (const auto& row : r.rows) out.insert(cell_key(row));
  return out;
}

const std::vector<std::string>& row_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"matrix",        "kernel",        "format",       "backend",          "precision",
         "threads",       "comparison",    "status",       "valid",            "conversion_ms",
         "conversion_spmvs", "median_ms",  "mean_ms",      "min_ms",           "gflops",
         "gbytes_per_s",  "own_gbytes_per_s", "bandwidth_fraction", "bytes_moved", "speedup",
         "speedup_over", "l2_flushed", "efficiency",    "rel_l2_error",  "max_abs_error", "note",            "family",
         "rows",          "cols",          "nnz",          "row_nnz_mean",     "row_nnz_std",
         "row_nnz_max",   "empty_rows",    "ell_width",    "ell_padding_ratio", "hll_padding_ratio",
         "bm_nnz_per_block", "parse_mb_s", "fmm_parse_mb_s", "optimize_ms", "working_set_bytes", "cache_bytes",
         "cache_ratio", "in_cache"};
    k.insert(k.end(), {"picked", "pick_reason"});  // auto rows: the kernel the selector picked, and why
    // auto rows: the renumbering kept, model or measure, the time measuring, the model's first pick and
    // whether it was the fastest measured
    k.insert(k.end(), {"ordering", "tuning", "tuning_ms", "model_pick", "model_pick_won"});
    return k;
  }();
  return keys;
}

std::string spmv_results_to_json(const std::vector<SpmvResult>& rows) {
  json out = json::array();
  for (const auto& r : rows) out.push_back(spmv_row_json(r));
  return out.dump(2);
}

std::string results_to_json(const BenchResults& r) {
  json opts = json::object();
  for (const auto& [k, v] : r.options) opts[k] = v;
  json matrices = json::array();
  for (const auto& m : r.matrices) matrices.push_back(matrix_json(m));
  json rows = json::array();
  for (const auto& row : r.rows) rows.push_back(row_json(row, r.find_matrix(row.matrix), r.machine));
  json j{{"schema", r.schema},
         {"spkit_version", r.spkit_version},
         {"git_commit", r.git_commit},
         {"created_utc", r.created_utc},
         {"command", r.command},
         {"complete", r.complete},
         {"wall_s", num(r.wall_s)},
         {"options", opts},
         {"machine", machine_json(r.machine)},
         {"matrices", matrices},
         {"results", rows}};
  return j.dump(1) + "\n";
}

BenchResults results_from_json(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(source + ": not valid JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array())
    throw Error(source + ": not a spkit bench results file (no \"results\" array)");
  BenchResults r;
  r.schema = get_str(j, "schema");
  r.spkit_version = get_str(j, "spkit_version");
  r.git_commit = get_str(j, "git_commit");
  r.created_utc = get_str(j, "created_utc");
  r.command = get_str(j, "command");
  r.complete = get_bool(j, "complete");
  r.wall_s = get_num(j, "wall_s");
  if (j.contains("options") && j["options"].is_object())
    for (auto& [k, v] : j["options"].items()) r.options.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  if (j.contains("machine") && j["machine"].is_object()) r.machine = machine_from(j["machine"]);
  if (j.contains("matrices") && j["matrices"].is_array())
    for (const auto& m : j["matrices"]) r.matrices.push_back(matrix_from(m));
  for (const auto& row : j["results"]) r.rows.push_back(row_from(row));
  return r;
}

std::string results_to_csv(const BenchResults& r) {
  const auto& keys = row_keys();
  const std::vector<std::string> machine_keys{"cpu_model", "gpu_name", "spkit_version", "git_commit"};
  std::ostringstream out;
  for (std::size_t i = 0; i < keys.size(); ++i) out << (i ? "," : "") << keys[i];
  for (const auto& k : machine_keys) out << ',' << k;
  out << '\n';
  for (const auto& row : r.rows) {
    json j = row_json(row, r.find_matrix(row.matrix), r.machine);
    for (std::size_t i = 0; i < keys.size(); ++i) out << (i ? "," : "") << csv_field(j[keys[i]]);
    out << ',' << csv_field(r.machine.cpu_model) << ',' << csv_field(r.machine.gpu_name) << ','
        << csv_field(r.spkit_version) << ',' << csv_field(r.git_commit) << '\n';
  }
  return out.str();
}

BenchResults read_results(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open results file " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return results_from_json(ss.str(), path);
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp);
    out << text;
    out.flush();
    if (!out) throw Error("failed writing " + tmp + " (disk full?)");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error("cannot rename " + tmp + " to " + path);
  }
}

void write_results(const std::string& dir, const BenchResults& r) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error("cannot create output folder " + dir + ": " + ec.message());
  write_file_atomic((fs::path(dir) / "results.json").string(), results_to_json(r));
  write_file_atomic((fs::path(dir) / "results.csv").string(), results_to_csv(r));
}

CompareReport compare_results(const BenchResults& old_results, const BenchResults& new_results, double threshold) {
  CompareReport c;
  c.threshold = threshold;
  std::map<CellKey, const BenchRow*> old_cells;
  for (const auto& row : old_results.rows) old_cells[cell_key(row)] = &row;
  std::set<CellKey> seen;
  std::map<std::string, std::pair<double, int>> log_sum;  // kernel -> (sum log ratio, timed cells)
  std::map<std::string, CompareKernel> kernels;
  double all_log = 0;
  int all_timed = 0;
  for (const auto& row : new_results.rows) {
    CellKey key = cell_key(row);
    auto it = old_cells.find(key);
    if (it == old_cells.end()) {
      ++c.only_new;
      continue;
    }
    seen.insert(key);
    const SpmvResult& o = it->second->result;
    const SpmvResult& n = row.result;
    CompareCell cell;
    cell.matrix = row.matrix;
    cell.kernel = std::get<1>(key);
    cell.precision = n.precision;
    cell.threads = n.threads;
    cell.old_ms = o.median_ms;
    cell.new_ms = n.median_ms;
    cell.old_valid = o.valid && o.status == "ok";
    cell.new_valid = n.valid && n.status == "ok";
    cell.lost_validation = cell.old_valid && !cell.new_valid;
    bool timed = cell.old_valid && cell.new_valid && o.median_ms > 0 && n.median_ms > 0 &&
                 std::isfinite(o.median_ms) && std::isfinite(n.median_ms);
    if (timed) {
      cell.ratio = n.median_ms / o.median_ms;
      cell.slower = cell.ratio > 1.0 + threshold;
    }
    CompareKernel& k = kernels[cell.kernel];
    k.kernel = cell.kernel;
    ++k.cells;
    k.slower += cell.slower;
    k.lost_validation += cell.lost_validation;
    if (timed) {
      log_sum[cell.kernel].first += std::log(cell.ratio);
      ++log_sum[cell.kernel].second;
      all_log += std::log(cell.ratio);
      ++all_timed;
    }
    c.slower += cell.slower;
    c.lost_validation += cell.lost_validation;
    c.cells.push_back(cell);
  }
  for (const auto& [key, row] : old_cells)
    if (!seen.count(key)) ++c.only_old;
  for (auto& [name, k] : kernels) {
    auto ls = log_sum.find(name);
    if (ls != log_sum.end() && ls->second.second > 0) k.geomean_ratio = std::exp(ls->second.first / ls->second.second);
    c.kernels.push_back(k);
  }
  if (all_timed > 0) c.geomean_ratio = std::exp(all_log / all_timed);
  return c;
}

std::string compare_to_json(const CompareReport& c) {
  json cells = json::array();
  for (const auto& x : c.cells)
    cells.push_back({{"matrix", x.matrix}, {"kernel", x.kernel}, {"precision", x.precision},
                     {"threads", x.threads}, {"old_median_ms", num(x.old_ms)}, {"new_median_ms", num(x.new_ms)},
                     {"ratio", x.ratio > 0 ? json(x.ratio) : json(nullptr)}, {"old_valid", x.old_valid},
                     {"new_valid", x.new_valid}, {"slower", x.slower}, {"lost_validation", x.lost_validation}});
  json kernels = json::array();
  for (const auto& k : c.kernels)
    kernels.push_back({{"kernel", k.kernel}, {"cells", k.cells}, {"slower", k.slower},
                       {"lost_validation", k.lost_validation},
                       {"geomean_ratio", k.geomean_ratio > 0 ? json(k.geomean_ratio) : json(nullptr)}});
  json j{{"threshold", c.threshold},
         {"geomean_ratio", c.geomean_ratio > 0 ? json(c.geomean_ratio) : json(nullptr)},
         {"cells_compared", c.cells.size()},
         {"only_old", c.only_old},
         {"only_new", c.only_new},
         {"slower", c.slower},
         {"lost_validation", c.lost_validation},
         {"regression", c.regression()},
         {"kernels", kernels},
         {"cells", cells}};
  return j.dump(1) + "\n";
}

}  // namespace spkit::harness
