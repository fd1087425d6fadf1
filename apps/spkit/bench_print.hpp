#pragma once
// The console tables `spkit bench` prints when the suite is done (the suite loop itself is the
// harness's: spkit/harness/bench_loop.hpp).
#include <string>
#include <vector>

#include "spkit/harness/bench_spgemm.hpp"
#include "spkit/harness/results.hpp"

namespace spkit::cli {

// Per matrix, backend and precision: our fastest valid kernel against the fastest comparison kernel.
void print_summary(const harness::BenchResults& r);
// The auto-selector's rows against the best kernel found by running all.
void print_auto_summary(const harness::BenchResults& r);
// The SpGEMM section's table: per matrix and precision, every kernel's total time and GFLOPS.
void print_spgemm_summary(const std::vector<harness::SpgemmBenchEntry>& entries);
// One line per backend or comparison library that was not there.
void print_absent(const std::vector<std::string>& absent);

}  // namespace spkit::cli
