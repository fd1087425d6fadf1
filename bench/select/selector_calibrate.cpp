// Stand-alone driver for docs/perf/selector.md: generates the bench suite's matrices (the families of
// `spkit bench`, at a size class), computes their statistics and prints, per backend and precision,
// the selector's predicted time of every kernel with a cost model, as CSV. Runs no kernel, needs no
// GPU (the CUDA cost models are registered in a CUDA build). Compare with measured bench CSVs.
//
//   g++ -std=c++17 -O2 -fopenmp -Iinclude -Ibuild/release/include bench/select/selector_calibrate.cpp \
//       build/release/src/harness/libspkit_harness.a -Lbuild/release/src -lspkit -Wl,-rpath,$PWD/build/release/src -o /tmp/selector_calibrate
//   /tmp/selector_calibrate large > predicted.csv
#include <cstdio>
#include <string>

#include "spkit/harness/suite.hpp"
#include "spkit/gen.hpp"
#include "spkit/select.hpp"
#include "spkit/stats.hpp"

int main(int argc, char** argv) {
  using namespace spkit;
  const std::string size = argc > 1 ? argv[1] : "small";
  const std::int64_t products = argc > 2 ? std::stoll(argv[2]) : 1000000;
  std::printf("matrix,backend,precision,kernel,applicable,spmv_ms,convert_ms,picked,nnz,rows,mean,std,max,"
              "isolated,diagonals,hyb_coo,note\n");
  for (const harness::SuiteMatrix& m : harness::generated_suite(harness::parse_suite_size(size), 42)) {
    const Csr<double> a = generate(m.gen);
    const MatrixStats s = compute_stats(a);
    const double isolated = s.nnz ? static_cast<double>(s.bm_block_histogram[1]) / static_cast<double>(s.nnz) : 0;
    for (Backend b : {Backend::cpu, Backend::cuda}) {
      for (Precision p : {Precision::f64, Precision::f32}) {
        PlanSettings o;
        o.backend = b;
        o.threads = 16;
        o.expected_products = products;
        Selection sel;
        try {
          sel = select_kernel(s, o, p);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "%s %s: %s\n", m.name.c_str(), std::string(to_string(b)).c_str(), e.what());
          continue;
        }
        for (const KernelEstimate& c : sel.candidates)
          std::printf("%s,%s,%s,%s,%d,%.5f,%.2f,%d,%lld,%lld,%.2f,%.1f,%lld,%.3f,%lld,%lld,\"%s\"\n", m.name.c_str(),
                      std::string(to_string(b)).c_str(), std::string(to_string(p)).c_str(), c.kernel.c_str(),
                      c.applicable ? 1 : 0, c.spmv_ms, c.convert_ms, c.kernel == sel.kernel ? 1 : 0,
                      static_cast<long long>(s.nnz), static_cast<long long>(s.rows), s.row_nnz_mean, s.row_nnz_std,
                      static_cast<long long>(s.row_nnz_max), isolated, static_cast<long long>(s.diagonals),
                      static_cast<long long>(s.hyb_coo_entries), c.note.c_str());
      }
    }
    std::fflush(stdout);
  }
}
