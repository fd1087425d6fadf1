#pragma once
// The SpGEMM section of the bench suite (bench_loop.hpp): C = A A with the selected SpGEMM
// kernels for each square suite matrix whose product stays under a budget of intermediate products.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/harness/spgemm_runner.hpp"

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

// Runs the section on one matrix (logging progress through `log`) and returns its entry; a matrix
// that does not apply gets an entry with `skipped` set and no rows.
SpgemmBenchEntry bench_spgemm_matrix(const std::string& name, const Csr<double>& a, const SpgemmBenchOptions& opts,
                                     const std::function<void(const std::string&)>& log);

}  // namespace spkit::harness
