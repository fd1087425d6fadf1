// The GPU SpGEMM measurement driver (docs/perf/spgemm-gpu.md): disabled by default, run on the device
// by scripts/gpu-check.sh --spgemm-perf. C = A A for generated matrices rich in 8x8 blocks (3-dof FEM,
// 27-point stencil, banded) and poor in them (road, power-law, random), fp32 and fp64, every GPU
// kernel of the SpGEMM registry with cusparseSpGEMM in the same process. Every result is validated
// against the fp64 reference before it is reported. A second test sweeps task-list sizes with both
// sort paths of T4 (the measurement behind the default sort threshold).
// CSVs: $SPKIT_SPGEMM_CSV (default spgemm_perf.csv), $SPKIT_SORT_CSV (default spgemm_sort.csv),
// written row by row so that a run cut short keeps what it measured.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "spkit/harness/spgemm_timing.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {
using namespace spkit::harness;

struct Spec {
  std::string name;
  GenOptions gen;
};

GenOptions gen(const std::string& family, std::int64_t n) {
  GenOptions o;
  o.family = family;
  o.n = n;
  return o;
}

std::vector<Spec> perf_matrices() {
  std::vector<Spec> s;
  GenOptions fem = gen("fem", 48);  // 3 x 48^3 = 331,776 rows, 21 per row
  fem.dof = 3;
  s.push_back({"fem3_48", fem});
  GenOptions lap = gen("lap3d", 64);  // 262,144 rows, 27-point
  lap.points = 27;
  s.push_back({"lap3d27_64", lap});
  GenOptions band = gen("banded", 1'000'000);
  band.bandwidth = 5;
  s.push_back({"banded5_1M", band});
  s.push_back({"road_1000", gen("road", 1000)});
  GenOptions pl = gen("powerlaw", 200'000);
  pl.per_row = 6;
  s.push_back({"powerlaw_200k", pl});
  GenOptions rnd = gen("random", 200'000);
  rnd.per_row = 6;
  s.push_back({"random_200k", rnd});
  return s;
}

std::string stages_string(const std::vector<SpgemmStage>& st) {
  std::ostringstream os;
  for (std::size_t i = 0; i < st.size(); ++i)
    os << (i ? ";" : "") << st[i].name << (st[i].in_total ? "" : "*") << "=" << st[i].ms;
  return os.str();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

bool wanted(const std::string& name, const char* env) {
  const char* f = std::getenv(env);
  if (!f || !*f) return true;
  return std::string(f).find(name) != std::string::npos;
}

template <class T>
void time_matrix(const std::string& device, const Spec& spec, const Csr<double>& ad, std::ofstream& csv) {
  const Csr<T> a = csr_cast<T>(ad);
  const std::int64_t products = spgemm_intermediate_products(a, a);
  const char* prec = sizeof(T) == 4 ? "fp32" : "fp64";
  double cusparse_ms = 0;
  // cuSPARSE first, so that every other row can state its ratio to it.
  std::vector<const SpgemmKernelInfo*> ks;
  for (const auto& k : spgemm_registry().all())
    if (k.backend == Backend::cuda && k.comparison) ks.push_back(&k);
  for (const auto& k : spgemm_registry().all())
    if (k.backend == Backend::cuda && !k.comparison) ks.push_back(&k);
  // cuSPARSE once more at the end: the spread between its two runs is the noise floor of the ratios.
  for (const auto& k : spgemm_registry().all())
    if (k.backend == Backend::cuda && k.comparison) ks.push_back(&k);
  bool first_comparison = true;
  for (const SpgemmKernelInfo* k : ks) {
    if (!k->fn<T>() || !wanted(k->name, "SPKIT_SPGEMM_KERNELS")) continue;
    SpgemmTimingOptions timing;
    timing.warmup = 2;
    timing.reps = 30;
    std::string status = "ok";
    SpgemmTiming<T> timed;
    const SpgemmResult<T>& r = timed.result;
    SpgemmCheck chk;
    try {
      timed = time_spgemm(*k, a, a, SpgemmOptions{}, timing);
      const double u = k->unit_roundoff > 0 ? k->unit_roundoff : (sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
      chk = check_spgemm(a, a, r.c, u, k->input_underflow);
      if (!chk.ok) status = "FAILED validation: " + chk.message;
    } catch (const std::exception& e) {
      status = std::string("error: ") + e.what();
    }
    const double ms = median(timed.total_ms);
    if (k->comparison && status == "ok" && first_comparison) cusparse_ms = ms;
    const std::string label = k->name + (k->comparison && !first_comparison ? " (again)" : "");
    if (k->comparison) first_comparison = false;
    const double gflops = ms > 0 ? 2.0 * static_cast<double>(products) / (ms * 1e-3) * 1e-9 : 0;
    const double speedup = (cusparse_ms > 0 && ms > 0) ? cusparse_ms / ms : 0;
    std::printf("%-14s %-4s %-26s %9.3f ms %8.1f GF/s x%5.2f vs cuSPARSE  rel.err %.2e  tasks %lld blocks %lld nnzC %lld  %s | %s | %s\n",
                spec.name.c_str(), prec, label.c_str(), ms, gflops, speedup, chk.rel_error,
                static_cast<long long>(r.tasks), static_cast<long long>(r.out_blocks),
                static_cast<long long>(r.c.nnz()), status.c_str(), r.detail.c_str(), stages_string(timed.stages).c_str());
    std::fflush(stdout);
    csv << '"' << device << "\"," << spec.name << ',' << a.rows << ',' << a.nnz() << ',' << products << ',' << prec
        << ',' << label << ",\"" << status << "\"," << r.tasks << ',' << r.out_blocks << ',' << r.c.nnz() << ','
        << ms << ',' << gflops << ',' << speedup << ',' << chk.rel_error << ',' << chk.max_abs_error << ",\""
        << stages_string(timed.stages) << "\",\"" << r.detail << "\"\n";
    csv.flush();
  }
}

TEST(CudaSpgemmPerf, DISABLED_BlockRichAndBlockPoor) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const GpuInfo g = gpu_info(0);
  std::printf("device: %s, %d SMs, L2 %llu bytes\n", g.name.c_str(), g.sm_count,
              static_cast<unsigned long long>(g.l2_bytes));
  const char* path = std::getenv("SPKIT_SPGEMM_CSV");
  std::ofstream csv(path ? path : "spgemm_perf.csv");
  csv << "device,matrix,rows,nnz,products,precision,kernel,status,tasks,out_blocks,c_nnz,median_ms,gflops,"
         "speedup_vs_cusparse,rel_error,max_abs_error,stages_ms,detail\n";
  for (const Spec& s : perf_matrices()) {
    if (!wanted(s.name, "SPKIT_SPGEMM_MATRICES")) continue;
    const Csr<double> a = generate(s.gen);
    std::printf("%s: %lld rows, %lld nz, %lld products\n", s.name.c_str(), static_cast<long long>(a.rows),
                static_cast<long long>(a.nnz()), static_cast<long long>(spgemm_intermediate_products(a, a)));
    time_matrix<float>(g.name, s, a, csv);
    time_matrix<double>(g.name, s, a, csv);
  }
}

// T4 with both paths over task lists from ~10^3 to ~10^7 tasks (cuda.bmsparse.cc, fp32).
TEST(CudaSpgemmPerf, DISABLED_SortThreshold) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const SpgemmKernelInfo* k = spgemm_registry().find("cuda.bmsparse.cc");
  ASSERT_NE(k, nullptr);
  const char* path = std::getenv("SPKIT_SORT_CSV");
  std::ofstream csv(path ? path : "spgemm_sort.csv");
  csv << "matrix,rows,nnz,tasks,segmented_t4_ms,radix_t4_ms,segmented_total_ms,radix_total_ms\n";
  std::vector<Spec> specs;
  for (std::int64_t n : {6, 10, 16, 24, 32, 40, 48, 56, 64}) {
    GenOptions o = gen("lap3d", n);
    o.points = 27;
    specs.push_back({"lap3d27_" + std::to_string(n), o});
  }
  for (std::int64_t n : {8, 16, 24, 32, 40, 48}) {
    GenOptions o = gen("fem", n);
    o.dof = 3;
    specs.push_back({"fem3_" + std::to_string(n), o});
  }
  for (std::int64_t n : {10'000, 50'000, 200'000, 500'000}) {
    GenOptions o = gen("random", n);
    o.per_row = 6;
    specs.push_back({"random_" + std::to_string(n), o});
  }
  for (const Spec& s : specs) {
    const Csr<float> a = csr_cast<float>(generate(s.gen));
    double t4[2] = {0, 0}, total[2] = {0, 0};
    std::int64_t tasks = 0;
    for (int path_i = 0; path_i < 2; ++path_i) {
      SpgemmOptions o;
      o.sort_threshold = path_i == 0 ? 0 : std::numeric_limits<std::int64_t>::max();
      SpgemmTimingOptions timing;
      timing.warmup = 2;
      timing.reps = 15;
      const SpgemmTiming<float> timed = time_spgemm(*k, a, a, o, timing);
      for (const auto& st : timed.stages)
        if (st.name == "T4 sort") t4[path_i] = st.ms;
      total[path_i] = median(timed.total_ms);
      tasks = timed.result.tasks;
    }
    std::printf("sort %-16s tasks %10lld  T4 segmented %8.3f ms  radix %8.3f ms  (totals %8.3f / %8.3f)\n",
                s.name.c_str(), static_cast<long long>(tasks), t4[0], t4[1], total[0], total[1]);
    std::fflush(stdout);
    csv << s.name << ',' << a.rows << ',' << a.nnz() << ',' << tasks << ',' << t4[0] << ',' << t4[1] << ','
        << total[0] << ',' << total[1] << '\n';
    csv.flush();
  }
}

}  // namespace
}  // namespace spkit::test
