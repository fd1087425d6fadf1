#pragma once
// The SpGEMM section of `spkit bench` (kept out of cmd_bench.cpp): C = A A with the selected SpGEMM
// kernels for each square suite matrix whose product stays under a budget of intermediate products.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spkit/bench/spgemm_runner.hpp"

namespace spkit::cli {

// The default budget: A A products of the `small` suite's stencils, FEM, banded and road matrices
// (<= ~65M products each) fit; power-law-like matrices whose heavy rows meet heavy rows do not. At
// ~1-2 GFLOPS per kernel on 2 cores that keeps the section to about 10-30 s per matrix.
constexpr std::int64_t kSpgemmDefaultMaxProducts = 100'000'000;

struct SpgemmBenchOptions {
  std::string variants = "all";
  DeviceSelect device = DeviceSelect::all;
  std::vector<Precision> precisions;
  int threads = 1;
  int reps = 3;
  int warmup = 1;
  std::int64_t max_products = kSpgemmDefaultMaxProducts;
};

// Runs the section on one matrix (logging progress through `log`) and returns its entry; a matrix
// that does not apply gets an entry with `skipped` set and no rows.
SpgemmBenchEntry bench_spgemm_matrix(const std::string& name, const Csr<double>& a, const SpgemmBenchOptions& opts,
                                     const std::function<void(const std::string&)>& log);

// The section's table on stdout: per matrix and precision, every kernel's total time and GFLOPS.
void print_spgemm_summary(const std::vector<SpgemmBenchEntry>& entries);

}  // namespace spkit::cli
