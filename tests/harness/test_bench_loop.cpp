// The suite loop behind `spkit bench` and spkit.bench(): the reps policy, the one-line absent-backend
// messages, and a tiny run end to end (rows, auto rows, files written, a stop request honoured).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>

#include "spkit/device.hpp"
#include "spkit/harness/bench_loop.hpp"
#include "spkit/kernel.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {

using namespace spkit::harness;
namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("spkit_loop_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

TEST(BenchLoop, RepsShrinkOnLargeMatricesUnlessFixed) {
  EXPECT_EQ(suite_reps(20, false, 1e5), 20);
  EXPECT_EQ(suite_reps(20, false, 2e6), 20);
  EXPECT_EQ(suite_reps(20, false, 4e6), 10);
  EXPECT_EQ(suite_reps(20, false, 4e7), 5);   // never under the floor
  EXPECT_EQ(suite_reps(3, false, 4e7), 3);    // nor over what was asked
  EXPECT_EQ(suite_reps(20, true, 4e7), 20);
}

TEST(BenchLoop, AbsentGpuIsOneLineWithTheKernelCount) {
  for (const auto& line : absent_backends("all", DeviceSelect::cpu))
    EXPECT_EQ(line.find("GPU"), std::string::npos) << line;  // --device cpu asked for no GPU
  const auto lines = absent_backends("all", DeviceSelect::all, "all");
  std::size_t gpu_lines = 0;
  for (const auto& line : lines) gpu_lines += line.rfind("GPU kernels not run: ", 0) == 0;
  if (gpu_count() > 0) {
    EXPECT_EQ(gpu_lines, 0u);
    return;
  }
  ASSERT_EQ(gpu_lines, 1u);
  if (!cuda_compiled()) {
    EXPECT_EQ(lines.front(), "GPU kernels not run: this spkit was built without CUDA");
    return;
  }
  std::size_t spmv = 0, spgemm = 0;
  for (const auto& k : registry().all()) spmv += k.backend == Backend::cuda;
  for (const auto& k : spgemm_registry().all()) spgemm += k.backend == Backend::cuda;
  EXPECT_EQ(lines.front(), "GPU kernels not run: no CUDA device on this machine (" + std::to_string(spmv) +
                               " SpMV and " + std::to_string(spgemm) + " SpGEMM kernels)");
  // Without the SpGEMM section only the SpMV kernels count; none selected, no line.
  EXPECT_EQ(absent_backends("cuda.*", DeviceSelect::all).front(),
            "GPU kernels not run: no CUDA device on this machine (" + std::to_string(spmv) + " SpMV kernels)");
  for (const auto& line : absent_backends("cpu.*", DeviceSelect::all))
    EXPECT_EQ(line.rfind("GPU", 0), std::string::npos) << line;
}

SuiteRunOptions tiny_run(const fs::path& out) {
  SuiteRunOptions o;
  o.size = "tiny";
  o.kernels = "cpu.csr.serial,cpu.csr.omp.spkit";
  o.device = DeviceSelect::cpu;
  o.precisions = {Precision::f64};
  o.threads = {1, 2};
  o.reps = 1;
  o.warmup = 0;
  o.spgemm = false;
  o.measure_bandwidth = false;
  o.time_fast_matrix_market = false;
  o.out = out.string();
  return o;
}

TEST(BenchLoop, TinySuiteEndToEnd) {
  ScratchDir dir;
  SuiteRunOptions o = tiny_run(dir.path);
  std::size_t events = 0, auto_events = 0;
  o.on_cell = [&](const SuiteCellEvent& e, double fraction) {
    ++events, auto_events += e.auto_row;
    EXPECT_GE(fraction, 0.0);
    EXPECT_LE(fraction, 1.0);
  };
  BenchResults header;
  header.command = "test";
  const SuiteRun run = run_suite(o, header);
  EXPECT_FALSE(run.interrupted);
  EXPECT_TRUE(run.results.complete);
  EXPECT_EQ(run.results.command, "test");
  ASSERT_EQ(run.results.matrices.size(), 13u);
  // Per matrix: serial (1) + omp.spkit at 1 and 2 threads (2) + auto at 1 and 2 threads (2).
  EXPECT_EQ(run.results.rows.size(), 13u * 5);
  EXPECT_EQ(events, run.results.rows.size());
  EXPECT_EQ(auto_events, 13u * 2);
  for (const auto& row : run.results.rows) EXPECT_EQ(row.result.status, "ok") << row.matrix << " " << row.result.kernel;
  const BenchResults saved = read_results((dir.path / "results.json").string());
  EXPECT_TRUE(saved.complete);
  EXPECT_EQ(saved.rows.size(), run.results.rows.size());
}

TEST(BenchLoop, StopKeepsWhatIsDoneAndMarksItIncomplete) {
  ScratchDir dir;
  SuiteRunOptions o = tiny_run(dir.path);
  o.auto_rows = false;
  std::size_t cells = 0;
  o.on_cell = [&](const SuiteCellEvent&, double) { ++cells; };
  o.stop = [&] { return cells >= 4; };
  const SuiteRun run = run_suite(o, BenchResults{});
  EXPECT_TRUE(run.interrupted);
  EXPECT_FALSE(run.results.complete);
  EXPECT_EQ(cells, 4u);
  EXPECT_LT(run.results.rows.size(), 13u * 3);
  EXPECT_FALSE(read_results((dir.path / "results.json").string()).complete);
}

TEST(BenchLoop, SelectingNothingThrows) {
  SuiteRunOptions o = tiny_run("");
  o.kernels = "no.such.kernel*";
  EXPECT_THROW(run_suite(o, BenchResults{}), NotApplicable);
  o = tiny_run("");
  o.generated = false;
  EXPECT_THROW(run_suite(o, BenchResults{}), Error);
}

}  // namespace
}  // namespace spkit::test
