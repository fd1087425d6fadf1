#pragma once
// The SpGEMM section of the bench suite (bench_loop.hpp): C = A A with the selected SpGEMM
// kernels for each square suite matrix whose product stays under a budget of intermediate products.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/harness/spgemm_runner.hpp"
#include "spkit/harness/suite.hpp"

namespace spkit::harness {

// The default budget of intermediate products per A A (tuning::kSpgemmBenchMaxProducts).
std::int64_t default_spgemm_max_products();

struct SpgemmBenchOptions {
  std::string variants = "all";
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions;
  int threads = 1;
  int reps = 3;
  int warmup = 1;
  std::int64_t max_products = default_spgemm_max_products();
};

// A smaller instance of a generated suite matrix's family for the section, when the suite's own A A is
// over opts.max_products or it is a headline matrix (sized for SpMV): the same family and options with n
// shrunk until A A holds at most a quarter of the budget (a few tries; products grow faster than nnz on
// power-law rows). Returns false (and leaves `out` alone) when the matrix is a file or already fits.
// `source` describes the instance ("generated: rmat n=... for SpGEMM").
bool spgemm_smaller_instance(const SuiteMatrix& sm, const Csr<double>& a, const SpgemmBenchOptions& opts,
                             Csr<double>& out, std::string& source);

// Runs the section on one matrix (logging progress through `log`) and returns its entry; a matrix
// that does not apply gets an entry with `skipped` set and no rows.
SpgemmBenchEntry bench_spgemm_matrix(const std::string& name, const Csr<double>& a, const SpgemmBenchOptions& opts,
                                     const std::function<void(const std::string&)>& log);

}  // namespace spkit::harness
