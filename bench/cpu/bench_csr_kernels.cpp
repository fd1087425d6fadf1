// Benchmark of the CPU SpMV kernels on one generated matrix (built by hand, see docs/perf/cpu.md):
//   bench_csr_kernels FAMILY N THREADS REPS [KERNEL_GLOBS] [per_row|points]
// Prints, per kernel: plan ms, median and min ms of REPS runs (after 3 warm-ups), GB/s against the
// bytes CSR must move (fp64: 8(rows+1) + 12 nnz + 8(rows+cols)) and against the kernel's own
// bytes_moved(), and the read bandwidth of a plain parallel sum over 1 GiB for comparison.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

using namespace spkit;
using clk = std::chrono::steady_clock;

// CPU time of the whole process (all threads), in ms: less sensitive to preemption than wall time.
static double cpu_ms_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double read_bandwidth(int threads) {
  const std::size_t n = (1ull << 30) / sizeof(double);
  std::vector<double> a(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) a[i] = 1.0 + static_cast<double>(i & 7);
  double best = 1e30, sink = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = clk::now();
    double s = 0;
#pragma omp parallel for simd num_threads(threads) schedule(static) reduction(+ : s)
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    best = std::min(best, std::chrono::duration<double>(clk::now() - t0).count());
    sink += s;
  }
  if (sink == 42) std::puts("");
  return static_cast<double>(n * sizeof(double)) / best / 1e9;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s FAMILY N THREADS REPS [KERNEL_GLOBS] [per_row|points]\n", argv[0]);
    return 2;
  }
  GenOptions g;
  g.family = argv[1];
  g.n = std::atoll(argv[2]);
  const int threads = std::atoi(argv[3]), reps = std::atoi(argv[4]);
  const std::string globs = argc > 5 ? argv[5] : "cpu.csr.omp.*";
  if (argc > 6) { g.points = std::atoi(argv[6]); g.per_row = std::atoi(argv[6]); }
  auto t0 = clk::now();
  Csr<double> a = generate(g);
  if (std::getenv("BENCH_UNSYMMETRIC")) {  // break numerical symmetry: scale the strict upper triangle
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        if (a.col_idx[k] > i) a.values[k] *= 1.0009765625;
    std::printf("(values of the strict upper triangle scaled: numerically unsymmetric)\n");
  }
  std::printf("matrix %s n=%lld: %lld x %lld, nnz %lld (generated in %.1f s)\n", argv[1], (long long)g.n,
              (long long)a.rows, (long long)a.cols, (long long)a.nnz(),
              std::chrono::duration<double>(clk::now() - t0).count());
  const double csr_bytes = 8.0 * (a.rows + 1) + 12.0 * a.nnz() + 8.0 * (a.rows + a.cols);
  std::printf("read bandwidth (sum over 1 GiB, %d threads): %.1f GB/s\n", threads, read_bandwidth(threads));
  std::printf("%-28s %9s %9s %9s %9s %9s %9s  %s\n", "kernel", "plan_ms", "median", "min", "cpu_med", "GB/s_csr", "GB/s_own",
              "detail");
  std::vector<double> x(static_cast<std::size_t>(a.cols));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 / (1.0 + static_cast<double>(i % 97));
  std::vector<double> y(static_cast<std::size_t>(a.rows));
  // All plans first, then the runs interleaved (one run of each kernel per round), so that every kernel
  // sees the same background load on this shared machine.
  struct Entry { const KernelInfo* k; std::unique_ptr<SpmvPlan<double>> plan; double plan_ms; std::vector<double> ms, cpu_ms; };
  std::vector<Entry> entries;
  for (const KernelInfo* k : registry().match(globs)) {
    PlanOptions po;
    po.threads = threads;
    try {
      auto p0 = clk::now();
      auto plan = k->make_f64(a, po);
      const double plan_ms = std::chrono::duration<double, std::milli>(clk::now() - p0).count();
      for (int w = 0; w < 3; ++w) plan->run(x.data(), y.data());
      const Validation v = validate_spmv(a, x, y.data());
      if (!v.valid) { std::printf("%-28s FAILED VALIDATION\n", k->name.c_str()); continue; }
      entries.push_back({k, std::move(plan), plan_ms, {}});
    } catch (const Error& e) {
      std::printf("%-28s skipped: %s\n", k->name.c_str(), e.what());
    }
  }
  for (int r = 0; r < reps; ++r)
    for (auto& e : entries) {
      const double c0 = cpu_ms_now();
      auto t1 = clk::now();
      e.plan->run(x.data(), y.data());
      e.ms.push_back(std::chrono::duration<double, std::milli>(clk::now() - t1).count());
      e.cpu_ms.push_back(cpu_ms_now() - c0);
    }
  // Per round, each kernel's time over MKL's time in the same round (when ref.mkl.csr ran): the
  // median of these ratios is robust to the background load drifting between rounds.
  const Entry* mkl = nullptr;
  for (auto& e : entries)
    if (e.k->name == "ref.mkl.csr") mkl = &e;
  std::vector<double> ratio_to_mkl(entries.size(), 0.0);
  if (mkl)
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::vector<double> r;
      for (int q = 0; q < reps; ++q) r.push_back(entries[i].ms[q] / mkl->ms[q]);
      std::sort(r.begin(), r.end());
      ratio_to_mkl[i] = r[r.size() / 2];
    }
  std::size_t idx = 0;
  for (auto& e : entries) {
    if (mkl) std::printf("%-28s time / MKL time, median over rounds: %.3f\n", e.k->name.c_str(), ratio_to_mkl[idx]);
    ++idx;
  }
  for (auto& e : entries) {
    std::sort(e.ms.begin(), e.ms.end());
    std::sort(e.cpu_ms.begin(), e.cpu_ms.end());
    const double med = e.ms[e.ms.size() / 2];
    std::printf("%-28s %9.1f %9.2f %9.2f %9.2f %9.2f %9.2f  %s\n", e.k->name.c_str(), e.plan_ms, med, e.ms.front(),
                e.cpu_ms[e.cpu_ms.size() / 2],
                csr_bytes / med / 1e6, static_cast<double>(e.plan->bytes_moved()) / med / 1e6, e.plan->detail().c_str());
  }
}
