// The benchmark suite: generated matrices per family and size class, matrix files, kernel cells.
#include "spkit/harness/suite.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"
#include "tuning.hpp"

namespace spkit::harness {

namespace fs = std::filesystem;

SuiteSize parse_suite_size(const std::string& name) {
  if (name == "tiny") return SuiteSize::tiny;
  if (name == "small") return SuiteSize::small;
  if (name == "medium") return SuiteSize::medium;
  if (name == "large") return SuiteSize::large;
  if (name == "default" || name == "standard") return SuiteSize::standard;
  throw Error("unknown suite size '" + name + "' (use default, small, medium or large)");
}

std::string to_string(SuiteSize s) {
  switch (s) {
    case SuiteSize::tiny: return "tiny";
    case SuiteSize::small: return "small";
    case SuiteSize::medium: return "medium";
    case SuiteSize::large: return "large";
    case SuiteSize::standard: return "default";
  }
  return "?";
}

std::int64_t target_nnz(SuiteSize s) {
  switch (s) {
    // small: the whole default suite (every kernel, both precisions, the thread sweep) in minutes
    // on 2 cores; medium and large take the matrices well past most last-level caches.
    case SuiteSize::tiny: return 20'000;  // tests: every kernel in milliseconds
    case SuiteSize::small: return 1'000'000;
    // standard: the matrices beside the headline are cache-resident on most CPUs at either size; half
    // of small keeps the default run within ten minutes on 2 busy cores.
    case SuiteSize::standard: return 500'000;
    case SuiteSize::medium: return 4'000'000;
    case SuiteSize::large: return 16'000'000;
  }
  return 0;
}

std::int64_t headline_nnz(std::uint64_t llc_bytes) {
  if (llc_bytes == 0) return target_nnz(SuiteSize::large);
  const double nnz = 1.05 * 4.0 * static_cast<double>(llc_bytes) / 8.0;
  return std::min<std::int64_t>(kMaxHeadlineNnz, static_cast<std::int64_t>(nnz));
}

std::vector<SuiteMatrix> generated_suite(SuiteSize size, std::uint64_t seed, std::uint64_t llc_bytes) {
  struct Variant {
    const char* name;
    const char* family;
    int points;
    bool headline;  // in the standard suite: sized past the last-level cache
    const char* ordering = "";  // node numbering of the node-graph families ("": the family's default)
  };
  // Every family of SPEC §6; lap3d in both stencils (7 points like thermal, 27 like ML_Laplace); the
  // families with the structure of real matrices, three of them (FEM, web graph, road) the headline.
  const Variant variants[] = {{"fem_mesh", "fem_mesh", 0, true}, {"rmat", "rmat", 0, true},
                              {"road_planar", "road_planar", 0, true}, {"geometric", "geometric", 0, false},
                              {"lap2d", "lap2d", 0, false},       {"lap3d7", "lap3d", 7, false},
                              {"lap3d27", "lap3d", 27, false},    {"fem", "fem", 0, false},
                              {"random", "random", 0, false},     {"powerlaw", "powerlaw", 0, false},
                              {"road", "road", 0, false},         {"circuit", "circuit", 0, false},
                              {"banded", "banded", 0, false},
                              // The same meshes, roads and point graphs numbered at random, as matrices from a
                              // mesher or a graph dump often are: what a kernel (and auto) does without a
                              // locality-friendly numbering. Not in the tiny and standard suites, which stay
                              // short on small machines.
                              {"fem_mesh_random", "fem_mesh", 0, false, "random"},
                              {"road_planar_random", "road_planar", 0, false, "random"},
                              {"geometric_random", "geometric", 0, false, "random"}};
  std::vector<SuiteMatrix> out;
  for (const auto& v : variants) {
    if (*v.ordering && (size == SuiteSize::tiny || size == SuiteSize::standard)) continue;
    SuiteMatrix m;
    m.name = v.name;
    m.family = v.family;
    m.generated = true;
    m.gen.family = v.family;
    m.gen.seed = seed;
    if (v.points) m.gen.points = v.points;
    if (*v.ordering) m.gen.ordering = v.ordering;
    m.headline = size == SuiteSize::standard && v.headline;
    m.gen.n = size_for_nnz(v.family, m.headline ? headline_nnz(llc_bytes) : target_nnz(size), m.gen);
    // A lattice side rounds to the nearest: one more keeps a headline matrix above its target.
    if (m.headline && (m.gen.family == "fem_mesh" || m.gen.family == "road_planar")) ++m.gen.n;
    m.source = "generated: " + m.gen.family + " n=" + std::to_string(m.gen.n);
    if (m.gen.family == "lap3d") m.source += " points=" + std::to_string(m.gen.points);
    if (m.gen.family == "fem" || m.gen.family == "fem_mesh") m.source += " dof=" + std::to_string(m.gen.dof);
    const std::string ordering = *v.ordering ? v.ordering : "";
    if (m.gen.family == "fem_mesh") m.source += " dims=3 P1 ordering=" + (ordering.empty() ? "sfc" : ordering);
    if (m.gen.family == "geometric") m.source += " dims=2 ordering=" + (ordering.empty() ? "sfc" : ordering);
    if (m.gen.family == "road_planar") m.source += " ordering=" + (ordering.empty() ? "bfs" : ordering);
    if (m.gen.family == "rmat") m.source += " edge_factor=16 a=0.57 b=0.19 c=0.19";
    if (m.gen.family == "random" || m.gen.family == "powerlaw" || m.gen.family == "circuit" || m.gen.family == "geometric")
      m.source += " per_row=" + std::to_string(m.gen.per_row);
    if (m.gen.family == "banded") m.source += " bandwidth=" + std::to_string(m.gen.bandwidth);
    m.source += " seed=" + std::to_string(seed);
    if (m.headline && llc_bytes > 0 && headline_nnz(llc_bytes) == kMaxHeadlineNnz)
      m.source += " (capped: 4x the LLC would need " +
                  std::to_string(static_cast<long long>(1.05 * 4.0 * static_cast<double>(llc_bytes) / 8.0)) + " nnz)";
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool is_matrix_file(const std::string& name) {
  return ends_with(name, ".mtx") || ends_with(name, ".mtx.gz") || ends_with(name, ".spkb");
}
std::string matrix_stem(const std::string& filename) {
  for (const char* ext : {".mtx.gz", ".mtx", ".spkb"})
    if (ends_with(filename, ext)) return filename.substr(0, filename.size() - std::string(ext).size());
  return filename;
}

SuiteMatrix file_entry(const fs::path& p) {
  SuiteMatrix m;
  m.generated = false;
  m.family = "file";
  m.path = p.string();
  m.source = p.string();
  m.name = matrix_stem(p.filename().string());
  return m;
}

}  // namespace

std::vector<SuiteMatrix> matrix_files(const std::vector<std::string>& paths) {
  std::vector<SuiteMatrix> out;
  for (const auto& arg : paths) {
    fs::path p(arg);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(p, ec))
        if (e.is_regular_file() && is_matrix_file(e.path().filename().string())) found.push_back(e.path());
      if (found.empty()) throw Error("no matrix files (.mtx, .mtx.gz, .spkb) in folder " + arg);
      std::sort(found.begin(), found.end());
      for (const auto& f : found) out.push_back(file_entry(f));
    } else if (fs::is_regular_file(p, ec)) {
      out.push_back(file_entry(p));
    } else {
      throw Error("matrix path does not exist: " + arg);
    }
  }
  return out;
}

void make_names_unique(std::vector<SuiteMatrix>& suite) {
  std::map<std::string, int> generated_names;
  for (const auto& m : suite)
    if (m.generated) generated_names[m.name] = 1;
  for (auto& m : suite)
    if (!m.generated && generated_names.count(m.name)) m.name = "file:" + m.name;
  std::map<std::string, int> seen;
  for (auto& m : suite) {
    int k = ++seen[m.name];
    if (k > 1) m.name += "#" + std::to_string(k);
  }
}

std::uint64_t matrix_text_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (!(magic[0] == 0x1f && magic[1] == 0x8b) || size < 18) return size;
  // gzip ISIZE: the uncompressed size mod 2^32, little endian, in the last 4 bytes (single member).
  unsigned char t[4];
  in.seekg(-4, std::ios::end);
  in.read(reinterpret_cast<char*>(t), 4);
  return std::uint64_t(t[0]) | std::uint64_t(t[1]) << 8 | std::uint64_t(t[2]) << 16 | std::uint64_t(t[3]) << 24;
}

LoadedMatrix load_suite_matrix(const SuiteMatrix& m, bool measure_parse) {
  using clock = std::chrono::steady_clock;
  auto seconds_since = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
  LoadedMatrix out;
  auto t0 = clock::now();
  if (m.generated) {
    out.a = generate(m.gen);
    out.load_ms = 1e3 * seconds_since(t0);
    return out;
  }
  out.a = load_matrix(m.path);
  out.load_ms = 1e3 * seconds_since(t0);
  if (!measure_parse || is_spkb_file(m.path)) return out;
  out.file_mb = static_cast<double>(matrix_text_bytes(m.path)) / 1e6;
  // Best of up to 3 parses, stopping early on big files (a parse over a second is steady enough).
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto p0 = clock::now();
    MmMatrix parsed = read_matrix_market(m.path);
    double s = seconds_since(p0);
    best = rep == 0 ? s : std::min(best, s);
    if (s > 1.0) break;
  }
  out.parse_s = best;
  out.parse_mb_s = best > 0 ? out.file_mb / best : 0;
  return out;
}

std::vector<int> default_thread_sweep(int cores) {
  cores = std::max(cores, 1);
  std::vector<int> t;
  for (int k = 1; k < cores; k *= 2) t.push_back(k);
  t.push_back(cores);
  return t;
}

DeviceSelect parse_device_select(const std::string& text) {
  if (text == "cpu") return DeviceSelect::cpu;
  if (text == "gpu" || text == "cuda") return DeviceSelect::gpu;
  if (text == "all") return DeviceSelect::all;
  throw Error("unknown device '" + text + "' (use cpu, gpu or all)");
}

std::vector<const KernelInfo*> select_kernels(const std::string& patterns, DeviceSelect device, bool gpu_available) {
  std::vector<const KernelInfo*> out;
  for (const KernelInfo* k : registry().match(patterns.empty() ? "all" : patterns)) {
    if (k->backend == Backend::cpu && device == DeviceSelect::gpu) continue;
    if (k->backend == Backend::cuda && (device == DeviceSelect::cpu || !gpu_available)) continue;
    out.push_back(k);
  }
  return out;
}

std::string degenerate_format_reason(const KernelInfo& k, const MatrixStats& s) {
  if (k.comparison || s.nnz == 0) return {};
  char buf[200];
  auto padded = [&](const char* name, const MatrixStats::Bytes& b) -> std::string {
    const double ratio = static_cast<double>(b.f64) / static_cast<double>(std::max<std::uint64_t>(1, s.bytes_csr.f64));
    if (ratio <= tuning::kMaxPaddedBytesRatio) return {};
    std::snprintf(buf, sizeof buf, "not timed: %s would move %.1fx the bytes of CSR (padding; limit %.0fx), "
                  "--all-cells times it", name, ratio, tuning::kMaxPaddedBytesRatio);
    return buf;
  };
  if (k.format == Format::ell) return padded("ELL", s.bytes_ell);
  if (k.format == Format::hll) return padded("HLL", s.bytes_hll);
  if (k.format == Format::bmsparse && s.bm_nnz_per_block < tuning::kMinBmNnzPerBlock) {
    std::snprintf(buf, sizeof buf, "not timed: bmSparse blocks hold %.2f non-zeros on average (limit %.1f), "
                  "--all-cells times it", s.bm_nnz_per_block, tuning::kMinBmNnzPerBlock);
    return buf;
  }
  return {};
}

std::vector<Cell> cells_of(const KernelInfo& k, const std::vector<Precision>& precisions, const std::vector<int>& threads) {
  std::vector<Cell> out;
  for (Precision p : precisions) {
    if (k.parallel && k.backend == Backend::cpu) {
      for (int t : threads) out.push_back({k.name, std::string(to_string(p)), t});
    } else {
      out.push_back({k.name, std::string(to_string(p)), 1});
    }
  }
  return out;
}

}  // namespace spkit::harness
