// The CUDA measurement driver (docs/perf/cuda.md): disabled by default, run on the device machine by
// scripts/gpu-check.sh with --gtest_also_run_disabled_tests --gtest_filter='*CudaPerf*'.
// Times every CUDA kernel and the cuSPARSE baselines on a 27-point 3-D Laplacian (~2.1M rows, ~56M
// nz) and a power-law matrix (~2M rows, ~5.6 nz/row), fp64 and fp32, plus a small stencil that fits
// in L2 timed warm and with L2 flushed. Every result is validated before it is reported. Writes a
// CSV to $SPKIT_PERF_CSV (default cuda_perf.csv) and prints a table.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/harness/timing.hpp"
#include "spkit/kernel.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

// 27-point stencil on an n^3 grid (rows ordered x fastest), values random in [-1, 1).
Csr<double> laplacian27(std::int64_t n, std::uint64_t seed) {
  Csr<double> a;
  a.rows = a.cols = n * n * n;
  a.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  a.col_idx.reserve(static_cast<std::size_t>(a.rows) * 27);
  a.values.reserve(static_cast<std::size_t>(a.rows) * 27);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x) {
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const std::int64_t xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= n || yy >= n || zz >= n) continue;
              a.col_idx.push_back(static_cast<std::int32_t>((zz * n + yy) * n + xx));
              const double v = val(rng);
              a.values.push_back(dx == 0 && dy == 0 && dz == 0 ? 26.0 + v : v);
            }
        a.row_ptr[(z * n + y) * n + x + 1] = static_cast<std::int64_t>(a.col_idx.size());
      }
  return a;
}

// Power-law row lengths (Pareto, alpha 2, x_min 2.8: mean ~5.6, capped at 20000), uniform columns.
Csr<double> power_law(std::int64_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0), val(-1.0, 1.0);
  std::uniform_int_distribution<std::int32_t> col(0, static_cast<std::int32_t>(rows - 1));
  Csr<double> a;
  a.rows = a.cols = rows;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<std::int32_t> cols;
  for (std::int64_t i = 0; i < rows; ++i) {
    const double len = 2.8 / std::sqrt(1.0 - u(rng));
    const std::int64_t l = std::min<std::int64_t>(static_cast<std::int64_t>(len), 20000);
    cols.clear();
    for (std::int64_t k = 0; k < l; ++k) cols.push_back(col(rng));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (auto c : cols) {
      a.col_idx.push_back(c);
      a.values.push_back(val(rng));
    }
    a.row_ptr[i + 1] = static_cast<std::int64_t>(a.col_idx.size());
  }
  return a;
}

struct Row {
  std::string matrix, precision, kernel, cache, status, detail;
  double median_ms = 0, plan_ms = 0, gflops = 0, eff_gbs = 0, own_gbs = 0, eff_pct = 0, own_pct = 0;
};

template <class T>
void time_all(const std::string& name, const Csr<double>& ad, double copy_gbs, bool flush, int reps,
              const std::string& filter, std::vector<Row>& out) {
  const Csr<T> a = csr_cast<T>(ad);
  const std::uint64_t eff_bytes = static_cast<std::uint64_t>(a.nnz()) * (4 + sizeof(T)) +
                                  static_cast<std::uint64_t>(a.rows) * 4 +
                                  static_cast<std::uint64_t>(a.rows + a.cols) * sizeof(T);
  const auto xd = random_vector(a.cols, fresh_seed());
  const std::vector<T> x(xd.begin(), xd.end());
  for (const KernelInfo* k : registry().match(filter)) {
    if (k->backend != Backend::cuda) continue;
    Row r;
    r.matrix = name;
    r.precision = std::string(to_string(precision_of<T>()));
    r.kernel = k->name;
    r.cache = flush ? "flushed" : "warm";
    try {
      const auto t0 = std::chrono::steady_clock::now();
      auto plan = k->factory<T>()(a, PlanOptions{});
      r.plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::vector<T> y(static_cast<std::size_t>(a.rows), T(0));
      harness::TimingOptions t;
      t.warmup = 5;
      t.reps = reps;
      t.flush_cache = flush;
      auto ms = harness::time_spmv(*plan, a.rows, a.cols, x.data(), y.data(), t);
      const Validation v = validate_spmv(a, x, y.data());
      r.detail = plan->detail();
      if (!v.valid) {
        r.status = "FAILED validation (rel L2 " + std::to_string(v.rel_l2_error) + ")";
      } else {
        std::sort(ms.begin(), ms.end());
        r.median_ms = ms[ms.size() / 2];
        const double s = r.median_ms * 1e-3;
        r.gflops = 2.0 * static_cast<double>(a.nnz()) / s * 1e-9;
        r.eff_gbs = static_cast<double>(eff_bytes) / s * 1e-9;
        r.own_gbs = static_cast<double>(plan->bytes_moved()) / s * 1e-9;
        r.eff_pct = 100.0 * r.eff_gbs / copy_gbs;
        r.own_pct = 100.0 * r.own_gbs / copy_gbs;
        r.status = "ok";
      }
    } catch (const Error& e) {
      r.status = std::string("skipped: ") + e.what();
    }
    out.push_back(r);
    std::printf("%-14s %-6s %-6s %-28s %9.4f ms %8.1f GF/s %7.1f GB/s eff %5.1f%% own %5.1f%% plan %7.0f ms  %s %s\n",
                r.matrix.c_str(), r.precision.c_str(), r.cache.c_str(), r.kernel.c_str(), r.median_ms, r.gflops,
                r.eff_gbs, r.eff_pct, r.own_pct, r.plan_ms, r.status.c_str(), r.detail.c_str());
    std::fflush(stdout);
  }
}

TEST(CudaPerf, DISABLED_StencilAndPowerLaw) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const GpuInfo g = gpu_info(0);
  const GpuBandwidth bw = measure_gpu_bandwidth(0);
  std::printf("device: %s, %d SMs, L2 %llu bytes\n", g.name.c_str(), g.sm_count,
              static_cast<unsigned long long>(g.l2_bytes));
  std::printf("bandwidth: copy %.1f GB/s, triad %.1f GB/s, read %.1f GB/s\n", bw.copy_gbs, bw.triad_gbs, bw.read_gbs);
  const char* f = std::getenv("SPKIT_PERF_FILTER");
  const std::string filter = f ? f : "cuda.*";
  const char* side = std::getenv("SPKIT_PERF_STENCIL_N");
  const std::int64_t n = side ? std::atoll(side) : 128;  // 128^3 = 2.1M rows, 55.7M nz
  const char* pl = std::getenv("SPKIT_PERF_POWERLAW_ROWS");
  const std::int64_t pl_rows = pl ? std::atoll(pl) : 2'000'000;

  std::vector<Row> rows;
  {
    const Csr<double> small = laplacian27(24, 1);  // 13.8k rows, 0.34M nz: a few MB, fits in L2
    for (bool flush : {false, true}) {
      time_all<double>("stencil27_24", small, bw.copy_gbs, flush, 50, filter, rows);
    }
  }
  {
    const Csr<double> st = laplacian27(n, 2);
    std::printf("stencil27_%lld: %lld rows, %lld nz\n", (long long)n, (long long)st.rows, (long long)st.nnz());
    time_all<double>("stencil27_" + std::to_string(n), st, bw.copy_gbs, false, 30, filter, rows);
    time_all<float>("stencil27_" + std::to_string(n), st, bw.copy_gbs, false, 30, filter, rows);
    // A second timing of a few kernels in the same process: the spread between the two passes is
    // the noise floor for comparing kernels.
    time_all<double>("stencil27_" + std::to_string(n) + "_again", st, bw.copy_gbs, false, 30,
                     "cuda.csr.vector,cuda.csr.subwarp,cuda.ell.col_major,cuda.cusparse.csr,cuda.cusparse.sell", rows);
  }
  {
    const Csr<double> p = power_law(pl_rows, 3);
    std::int64_t maxlen = 0;
    for (std::int64_t i = 0; i < p.rows; ++i) maxlen = std::max(maxlen, p.row_length(i));
    std::printf("powerlaw: %lld rows, %lld nz, mean %.2f, max %lld\n", (long long)p.rows, (long long)p.nnz(),
                double(p.nnz()) / double(p.rows), (long long)maxlen);
    time_all<double>("powerlaw", p, bw.copy_gbs, false, 30, filter, rows);
    time_all<float>("powerlaw", p, bw.copy_gbs, false, 30, filter, rows);
  }
  const char* csv = std::getenv("SPKIT_PERF_CSV");
  std::ofstream os(csv ? csv : "cuda_perf.csv");
  os << "device,copy_gbs,matrix,precision,cache,kernel,median_ms,gflops,eff_gbs,eff_pct_copy,own_gbs,own_pct_copy,"
        "plan_ms,status,detail\n";
  for (const auto& r : rows)
    os << '"' << g.name << "\"," << bw.copy_gbs << ',' << r.matrix << ',' << r.precision << ',' << r.cache << ','
       << r.kernel << ',' << r.median_ms << ',' << r.gflops << ',' << r.eff_gbs << ',' << r.eff_pct << ','
       << r.own_gbs << ',' << r.own_pct << ',' << r.plan_ms << ",\"" << r.status << "\",\"" << r.detail << "\"\n";
}

}  // namespace
}  // namespace spkit::test
