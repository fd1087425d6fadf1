// The console tables of `spkit bench` (bench_print.hpp).
#include "bench_print.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <tuple>

#include <fmt/format.h>

namespace spkit::cli {

using namespace spkit::harness;

namespace {

std::string human_count(double n) {
  // Thresholds just under the unit, so that 999,999 reads 1.0M rather than 1000.0k.
  if (n >= 0.99995e9) return fmt::format("{:.1f}G", n / 1e9);
  if (n >= 0.99995e6) return fmt::format("{:.1f}M", n / 1e6);
  if (n >= 0.99995e3) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

// The auto-selector against running everything: per matrix, backend, precision and thread count of an
// "auto" row, the fastest valid spkit kernel with at most that many threads (the best found by running
// all), the ratio, and the conversion's break-even against the fastest spkit CSR kernel:
// (auto plan ms - CSR plan ms) / (CSR ms - auto ms) products.
struct AutoComparison {
  std::string matrix;
  const SpmvResult* pick = nullptr;
  const SpmvResult* best = nullptr;      // fastest spkit kernel (no baselines)
  const SpmvResult* best_all = nullptr;  // fastest of everything, baselines included
  const SpmvResult* csr = nullptr;       // fastest spkit CSR kernel
  const SpmvResult* own_row = nullptr;   // the picked kernel's own row (same threads), when it ran too
  double ratio = 0;                      // pick / best median time (1 = it picked the best)
  double break_even = 0;                 // products; < 0: never (no faster than CSR)
};

std::vector<AutoComparison> compare_auto(const BenchResults& r) {
  std::vector<AutoComparison> out;
  for (const auto& row : r.rows) {
    const SpmvResult& a = row.result;
    if (a.kernel != "auto" || a.status != "ok" || !a.valid || a.l2_flushed) continue;
    AutoComparison c;
    c.matrix = row.matrix;
    c.pick = &a;
    for (const auto& other : r.rows) {
      const SpmvResult& x = other.result;
      if (other.matrix != row.matrix || x.kernel == "auto" || x.backend != a.backend || x.precision != a.precision ||
          x.threads > a.threads || x.l2_flushed || x.status != "ok" || !x.valid || x.median_ms <= 0)
        continue;
      if (!c.best_all || x.median_ms < c.best_all->median_ms) c.best_all = &x;
      if (x.comparison) continue;
      if (!c.best || x.median_ms < c.best->median_ms) c.best = &x;
      if (x.format == "csr" && (!c.csr || x.median_ms < c.csr->median_ms)) c.csr = &x;
      if (x.kernel == a.picked && x.threads == a.threads) c.own_row = &x;
    }
    if (!c.best) continue;
    c.ratio = a.median_ms / c.best->median_ms;
    if (c.csr) {
      const double saved = c.csr->median_ms - a.median_ms, extra = a.conversion_ms - c.csr->conversion_ms;
      c.break_even = extra <= 0 ? 0 : saved > 0 ? extra / saved : -1;
    }
    out.push_back(c);
  }
  return out;
}

// What a row of spkit's owes its speed to, for the headline: "symmetry" (a kernel that stores half of a
// symmetric matrix), "numbering" (diagonal formats, which exist only because the matrix is numbered along
// a grid, or a plan that renumbered it), else "kernel".
std::string gain_source(const SpmvResult& x) {
  const std::string& k = x.kernel == "auto" && !x.picked.empty() ? x.picked : x.kernel;
  if (k.find(".sym") != std::string::npos) return "symmetry";
  if (x.format == "dia") return "numbering (grid)";
  if (!x.ordering.empty() && x.ordering != "none") return "numbering (" + x.ordering + ")";
  return "kernel";
}

}  // namespace

void print_summary(const BenchResults& r) {
  // Per matrix, backend and precision: our fastest valid kernel and the fastest vendor kernel (MKL
  // best: any ref.mkl.*; cuSPARSE best: any cuda.cusparse.*), else the fastest other comparison kernel.
  struct Best {
    const SpmvResult* ours = nullptr;
    const SpmvResult* theirs = nullptr;
    const SpmvResult* vendor = nullptr;
    int ok = 0, failed = 0, skipped = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Best> best;
  std::vector<std::string> order;
  for (const auto& m : r.matrices) order.push_back(m.name);
  for (const auto& row : r.rows) {
    const SpmvResult& x = row.result;
    Best& b = best[{row.matrix, x.backend, x.precision}];
    if (x.status == "ok" && x.valid) {
      ++b.ok;
      const bool vendor = x.kernel.rfind("ref.mkl.", 0) == 0 || x.kernel.rfind("cuda.cusparse.", 0) == 0;
      const SpmvResult*& slot = !x.comparison ? b.ours : vendor ? b.vendor : b.theirs;
      if (!slot || x.gflops > slot->gflops) slot = &x;
    } else if (x.status == "skipped") {
      ++b.skipped;
    } else {
      ++b.failed;
    }
  }
  for (auto& [key, b] : best)
    if (b.vendor) b.theirs = b.vendor;
  std::printf("\n%-14s %-6s %-6s %9s %-10s  %-32s %8s  %-26s %8s %7s  %-23s %s\n", "matrix", "device", "prec", "nnz",
              "cache", "best spkit kernel", "GFLOPS", "best comparison", "GFLOPS", "ratio", "gain from",
              "cells ok/failed/skipped");
  for (const auto& name : order) {
    const MatrixRecord* m = r.find_matrix(name);
    for (const char* backend : {"cpu", "cuda"})
      for (const char* prec : {"double", "float"}) {
        auto it = best.find({name, backend, prec});
        if (it == best.end()) continue;
        const Best& b = it->second;
        std::string ours = b.ours ? b.ours->kernel + (b.ours->threads > 1 ? fmt::format(" t={}", b.ours->threads) : "") : "-";
        std::string theirs = b.theirs ? b.theirs->kernel + (b.theirs->threads > 1 ? fmt::format(" t={}", b.theirs->threads) : "") : "-";
        std::string ratio = b.ours && b.theirs && b.theirs->gflops > 0 ? fmt::format("{:.2f}x", b.ours->gflops / b.theirs->gflops) : "-";
        std::string cache = "?";
        if (m) {
          const CacheFit fit = cache_fit(m->stats, prec, backend, r.machine);
          const char* level = std::string(backend) == "cuda" ? "L2" : "LLC";
          if (fit.ratio > 0) cache = fit.in_cache() ? fmt::format("in {}", level) : fmt::format("{:.1f}x {}", fit.ratio, level);
        }
        const std::string why = b.ours ? gain_source(*b.ours) : "-";
        std::printf("%-14s %-6s %-6s %9s %-10s  %-32s %8s  %-26s %8s %7s  %-23s %d/%d/%d\n", name.c_str(), backend,
                    prec, m ? human_count(static_cast<double>(m->stats.nnz)).c_str() : "?", cache.c_str(), ours.c_str(),
                    b.ours ? fmt::format("{:.2f}", b.ours->gflops).c_str() : "-", theirs.c_str(),
                    b.theirs ? fmt::format("{:.2f}", b.theirs->gflops).c_str() : "-", ratio.c_str(), why.c_str(),
                    b.ok, b.failed, b.skipped);
      }
  }
  std::printf("(ratio: our best GFLOPS / the best comparison kernel's, MKL best on the CPU and cuSPARSE best on the GPU "
              "when they ran; > 1 means spkit is faster. cache: working set (CSR + x + y) / the last-level cache "
              "(GPU: L2); the headline counts only matrices at >= 4x. gain from: symmetry = a kernel storing half "
              "of a symmetric matrix, numbering = diagonals of a grid-numbered matrix or a plan that renumbered it, "
              "kernel = neither)\n");
  std::fflush(stdout);
}

void print_auto_summary(const BenchResults& r) {
  const auto rows = compare_auto(r);
  if (rows.empty()) return;
  std::printf("\nauto-selector (--kernel auto) against the best kernel found by running all:\n");
  std::printf("%-14s %-5s %-6s %3s  %-26s %9s  %-28s %9s %6s %6s  %-26s %6s %10s\n", "matrix", "dev", "prec", "thr",
              "auto picked", "ms", "best spkit kernel", "ms", "ratio", "own", "best incl. baselines", "ratio",
              "break-even");
  int within = 0, within_own = 0, with_own = 0;
  for (const auto& c : rows) {
    within += c.ratio <= 1.10;
    const double own = c.own_row ? c.own_row->median_ms / c.best->median_ms : 0;
    if (c.own_row) ++with_own, within_own += own <= 1.10;
    const std::string be = !c.csr                      ? "-"
                           : c.pick->format == "csr" ? "0 (CSR)"
                           : c.break_even < 0        ? "never"
                                                     : fmt::format("{:.0f}", c.break_even);
    std::printf("%-14s %-5s %-6s %3d  %-26s %9.4g  %-28s %9.4g %6.2f %6s  %-26s %6.2f %10s\n", c.matrix.c_str(),
                c.pick->backend.c_str(), c.pick->precision.c_str(), c.pick->threads, c.pick->picked.c_str(),
                c.pick->median_ms, c.best->kernel.c_str(), c.best->median_ms, c.ratio,
                c.own_row ? fmt::format("{:.2f}", own).c_str() : "-", c.best_all->kernel.c_str(),
                c.pick->median_ms / c.best_all->median_ms, be.c_str());
  }
  std::printf("auto within 10%% of the best spkit kernel: %d of %zu rows (%.0f%%; the target is >= 90%%)", within,
              rows.size(), 100.0 * within / static_cast<double>(rows.size()));
  if (with_own) std::printf("; by the picked kernel's own row: %d of %d", within_own, with_own);
  // Rows where auto measured its candidates: how often the cost model's first pick was the fastest
  // measured, and how many kept a renumbering.
  int measured = 0, model_won = 0, renumbered = 0;
  for (const auto& c : rows) {
    renumbered += !c.pick->ordering.empty() && c.pick->ordering != "none";
    if (c.pick->tuning != "measure") continue;
    ++measured;
    model_won += c.pick->model_pick_won;
  }
  if (measured)
    std::printf("\nauto measured its candidates on %d rows: the cost model's first pick was the fastest on %d", measured,
                model_won);
  if (renumbered) std::printf("; %d rows kept a renumbering (see the reason lines)", renumbered);
  std::printf("\n(ratio: auto's median time / the best's; own: the same for the picked kernel's own row in the sweep, "
              "free of the noise between two timings of one kernel; break-even: products after which auto's "
              "conversion has paid for itself against the fastest spkit CSR kernel, 'never' when auto is not faster)\n");
  std::fflush(stdout);
}

void print_absent(const std::vector<std::string>& absent) {
  for (const auto& line : absent) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void print_spgemm_summary(const std::vector<SpgemmBenchEntry>& entries) {
  if (entries.empty()) return;
  std::printf("\nSpGEMM C = A A (total ms, GFLOPS = 2 x products / total; vs cuSPARSE best / vs MKL best = the "
              "fastest cuSPARSE algorithm's / MKL variant's time over this one's, in the same run; peak_MB = memory the "
              "product took at its peak: device pool or resident set)\n");
  std::printf("%-18s %-6s %-28s %10s %8s %9s %8s %10s %8s %-7s\n", "matrix", "prec", "kernel", "total_ms", "GFLOPS",
              "vs_cusp_b", "vs_mkl_b", "C nnz", "peak_MB", "status");
  const auto ratio = [](double v) { return v > 0 ? fmt::format("{:.2f}x", v) : std::string("-"); };
  for (const auto& e : entries) {
    if (!e.skipped.empty()) {
      std::printf("%-18s %-6s %-28s %s\n", e.matrix.c_str(), "-", "-", ("skipped: " + e.skipped).c_str());
      continue;
    }
    if (!e.instance.empty()) std::printf("%-18s on %s\n", e.matrix.c_str(), e.instance.c_str());
    for (const auto& r : e.results) {
      const std::string peak =
          r.peak_bytes >= 0 ? fmt::format("{:.1f}", static_cast<double>(r.peak_bytes) / 1e6) : std::string("-");
      if (r.status == "ok")
        std::printf("%-18s %-6s %-28s %10.3f %8.3f %9s %8s %10lld %8s %-7s\n", e.matrix.c_str(), r.precision.c_str(),
                    r.kernel.c_str(), r.total_ms, r.gflops, ratio(r.vs_cusparse_best).c_str(),
                    ratio(r.vs_mkl_best).c_str(), static_cast<long long>(r.out_nnz), peak.c_str(), "ok");
      else
        std::printf("%-18s %-6s %-28s %10s %8s %9s %8s %10s %8s %-7s %s\n", e.matrix.c_str(), r.precision.c_str(),
                    r.kernel.c_str(), "-", "-", "-", "-", "-", "-", r.status.c_str(), r.note.c_str());
    }
  }
  std::fflush(stdout);
}

}  // namespace spkit::cli
