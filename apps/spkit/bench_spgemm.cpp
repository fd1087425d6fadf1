// The SpGEMM section of `spkit bench`: see bench_spgemm.hpp.
#include "bench_spgemm.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "spkit/error.hpp"
#include "spkit/formats/bmsparse.hpp"

namespace spkit::cli {

namespace {

// Block products A(i,j) B(j,k) of A A in bmSparse: for each 8x8 block of A, the blocks in B's block row j.
std::int64_t bmsparse_tasks(const Csr<double>& a) {
  const BmSparse<double> bm = csr_to_bmsparse(a);
  std::int64_t tasks = 0;
  for (std::int64_t n = 0; n < bm.blocks(); ++n) {
    const std::int64_t j = BmSparse<double>::key_col(bm.keys[n]);
    tasks += bm.block_row_ptr[j + 1] - bm.block_row_ptr[j];
  }
  return tasks;
}

}  // namespace

SpgemmBenchEntry bench_spgemm_matrix(const std::string& name, const Csr<double>& a, const SpgemmBenchOptions& opts,
                                     const std::function<void(const std::string&)>& log) {
  SpgemmBenchEntry e;
  e.matrix = name;
  e.rows = a.rows, e.cols = a.cols, e.nnz = a.nnz();
  if (a.rows != a.cols) {
    e.skipped = "not square: A A is undefined";
    return e;
  }
  e.products = spgemm_intermediate_products(a, a);
  if (e.products > opts.max_products) {
    e.skipped = fmt::format("A A has {} intermediate products, over the budget of {} (--spgemm-max-products)",
                            e.products, opts.max_products);
    log(fmt::format("  spgemm {}: skipped, {}", name, e.skipped));
    return e;
  }
  // bmSparse on the CPU multiplies whole 8x8 blocks: where a block product holds less than one true
  // product on average (power-law, random: scattered entries) it does hundreds of times the work of
  // Gustavson and one product takes minutes, so the bench leaves it out there (spkit spgemm runs it).
  const std::int64_t tasks = bmsparse_tasks(a);
  SpgemmRunOptions o;
  o.skip_reason = [&](const SpgemmKernelInfo& k) -> std::string {
    if (k.backend == Backend::cpu && k.format == Format::bmsparse && tasks > e.products)
      return fmt::format("bench: {} block products for {} scalar products (< 1 per 8x8 block product); "
                         "run spkit spgemm to measure it", tasks, e.products);
    return "";
  };
  o.kernels = opts.variants;
  o.device = opts.device;
  o.precisions = opts.precisions;
  o.run.threads = opts.threads;
  o.timing.reps = opts.reps;
  o.timing.warmup = opts.warmup;
  o.on_kernel = [&](const SpgemmKernelInfo& k, Precision p, std::size_t index, std::size_t total) {
    log(fmt::format("  spgemm {}: {:.1f}M products, [{}/{}] {} {}", name, static_cast<double>(e.products) / 1e6,
                    index + 1, total, k.name, to_string(p)));
  };
  try {
    e.results = run_spgemm(a, a, o);
  } catch (const Error& err) {
    e.skipped = err.what();
    log(fmt::format("  spgemm {}: {}", name, err.what()));
  }
  return e;
}

void print_spgemm_summary(const std::vector<SpgemmBenchEntry>& entries) {
  if (entries.empty()) return;
  std::printf("\nSpGEMM C = A A (total ms, GFLOPS = 2 x products / total; vs MKL = MKL's time / this one's)\n");
  std::printf("%-14s %-6s %-26s %10s %8s %8s %10s %-7s\n", "matrix", "prec", "kernel", "total_ms", "GFLOPS", "vs_mkl",
              "C nnz", "status");
  for (const auto& e : entries) {
    if (!e.skipped.empty()) {
      std::printf("%-14s %-6s %-26s %s\n", e.matrix.c_str(), "-", "-", ("skipped: " + e.skipped).c_str());
      continue;
    }
    for (const auto& r : e.results) {
      if (r.status == "ok")
        std::printf("%-14s %-6s %-26s %10.3f %8.3f %8s %10lld %-7s\n", e.matrix.c_str(), r.precision.c_str(),
                    r.kernel.c_str(), r.total_ms, r.gflops, r.vs_mkl > 0 ? fmt::format("{:.2f}x", r.vs_mkl).c_str() : "-",
                    static_cast<long long>(r.out_nnz), "ok");
      else
        std::printf("%-14s %-6s %-26s %10s %8s %8s %10s %-7s %s\n", e.matrix.c_str(), r.precision.c_str(),
                    r.kernel.c_str(), "-", "-", "-", "-", r.status.c_str(), r.note.c_str());
    }
  }
  std::fflush(stdout);
}

}  // namespace spkit::cli
