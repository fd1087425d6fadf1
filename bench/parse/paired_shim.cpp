// C entry point for bench/parse/paired.py: one spkit .mtx -> CSR load (load_matrix) timed inside the
// library's process, so Python can alternate it with fast_matrix_market call by call.
#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"

extern "C" double spkit_paired_load_seconds(const char* path, int threads, std::int64_t* nnz_out) {
  try {
    omp_set_num_threads(threads);
    spkit::ReadOptions opts;
    opts.threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    const spkit::Csr<double> a = spkit::load_matrix(path, nullptr, opts);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    *nnz_out = a.nnz();
    return s;  // the arrays are freed after the clock stops, as fmm's are after its call returns
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spkit: %s\n", e.what());
    return -1.0;
  }
}
