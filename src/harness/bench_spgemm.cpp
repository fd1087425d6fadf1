// The SpGEMM section of the bench suite: see bench_spgemm.hpp.
#include "spkit/harness/bench_spgemm.hpp"

#include <algorithm>
#include <cstdio>

#include "spkit/error.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/gen.hpp"
#include "tuning.hpp"

namespace spkit::harness {

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

// printf into a std::string (the harness prints nothing itself and links no formatting library).
template <class... Args>
std::string format_line(const char* format, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

}  // namespace

std::int64_t default_spgemm_max_products() { return tuning::kSpgemmBenchMaxProducts; }

bool spgemm_smaller_instance(const SuiteMatrix& sm, const Csr<double>& a, const SpgemmBenchOptions& opts,
                             Csr<double>& out, std::string& source) {
  if (!sm.generated || a.rows != a.cols || a.nnz() == 0) return false;
  const std::int64_t products = spgemm_intermediate_products(a, a);
  if (!sm.headline && products <= opts.max_products) return false;
  const double target = static_cast<double>(opts.max_products) / 4;
  GenOptions g = sm.gen;
  double nnz = static_cast<double>(a.nnz()), now = static_cast<double>(products);
  for (int attempt = 0; attempt < 4 && now > target; ++attempt) {
    // Products scale about linearly with nnz at a fixed row structure; aim a little under.
    nnz *= 0.8 * target / now;
    const std::int64_t n = size_for_nnz(g.family, std::max<std::int64_t>(static_cast<std::int64_t>(nnz), 64), g);
    if (n <= 0 || n >= g.n) break;
    g.n = n;
    out = generate(g);
    now = static_cast<double>(spgemm_intermediate_products(out, out));
  }
  if (g.n == sm.gen.n || now > static_cast<double>(opts.max_products)) return false;
  source = "generated: " + g.family + " n=" + std::to_string(g.n) + " (the suite's instance, sized for SpMV, has " +
           std::to_string(products) + " products in A A)";
  return true;
}

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
    e.skipped = format_line("A A has %lld intermediate products, over the budget of %lld (--spgemm-max-products)",
                            static_cast<long long>(e.products), static_cast<long long>(opts.max_products));
    log("  spgemm " + name + ": skipped, " + e.skipped);
    return e;
  }
  // bmSparse on the CPU multiplies whole 8x8 blocks: where a block product holds less than one true
  // product on average (power-law, random: scattered entries) it does hundreds of times the work of
  // Gustavson and one product takes minutes, so the bench leaves it out there (spkit spgemm runs it).
  const std::int64_t tasks = bmsparse_tasks(a);
  SpgemmRunOptions o;
  o.skip_reason = [&](const SpgemmKernelInfo& k) -> std::string {
    if (k.backend == Backend::cpu && k.format == Format::bmsparse && tasks > e.products)
      return format_line("bench: %lld block products for %lld scalar products (< 1 per 8x8 block product); "
                         "run spkit spgemm to measure it", static_cast<long long>(tasks), static_cast<long long>(e.products));
    return "";
  };
  o.kernels = opts.variants;
  o.device = opts.device;
  o.precisions = opts.precisions;
  o.run.threads = opts.threads;
  o.timing.reps = opts.reps;
  o.timing.warmup = opts.warmup;
  o.on_kernel = [&](const SpgemmKernelInfo& k, Precision p, std::size_t index, std::size_t total) {
    log(format_line("  spgemm %s: %.1fM products, [%zu/%zu] %s %s", name.c_str(), static_cast<double>(e.products) / 1e6,
                    index + 1, total, k.name.c_str(), std::string(to_string(p)).c_str()));
  };
  try {
    e.results = run_spgemm(a, a, o);
  } catch (const Error& err) {
    e.skipped = err.what();
    log("  spgemm " + name + ": " + err.what());
  }
  return e;
}

}  // namespace spkit::harness
