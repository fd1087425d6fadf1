// The bench's SpMM section on a small matrix: the auto row per precision and k with its "vs k SpMVs",
// every row validated, and spmm.json / spmm.csv written with one CSV line per JSON row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/test_matrices.hpp"
#include "spkit/harness/bench_spmm.hpp"

namespace spkit::test {
namespace {

TEST(SpmmBench, RunsAutoPerPrecisionAndKAndWritesJsonAndCsv) {
  const Csr<double> a = random_rows(400, 300, std::vector<std::int64_t>(400, 7), 21);
  harness::SpmmBenchOptions o;
  o.device = harness::DeviceSelect::cpu;
  o.precisions = {Precision::f64, Precision::f32};
  o.threads = 2;
  o.reps = 2;
  o.ks = harness::spmm_bench_ks(true);
  ASSERT_EQ(o.ks, std::vector<std::int64_t>{4});
  EXPECT_EQ(harness::spmm_bench_ks(false), (std::vector<std::int64_t>{4, 16, 64}));
  int logged = 0;
  const harness::SpmmBenchEntry e = harness::bench_spmm_matrix("rr", a, o, [&](const std::string&) { ++logged; });
  EXPECT_TRUE(e.skipped.empty()) << e.skipped;
  EXPECT_GT(logged, 0);
  int autos = 0;
  for (const auto& r : e.results) {
    EXPECT_EQ(r.status, "ok") << r.kernel << ": " << r.note;
    EXPECT_EQ(r.layout, "row");
    if (r.kernel != "auto") continue;
    ++autos;
    EXPECT_GT(r.vs_spmv, 0);
    EXPECT_FALSE(r.picked.empty());
  }
  EXPECT_EQ(autos, 2);  // one per precision at k = 4 on the CPU
  EXPECT_EQ(harness::spmm_bench_summary(e).size(), 2u);

  const auto dir = std::filesystem::temp_directory_path() / ("spkit_spmm_bench_" + std::to_string(fresh_seed()));
  harness::write_spmm_bench(dir.string(), {e}, false);
  std::ifstream json_in(dir / "spmm.json");
  const auto doc = nlohmann::json::parse(json_in);
  EXPECT_EQ(doc["schema"], "spkit-spmm/1");
  ASSERT_EQ(doc["entries"].size(), 1u);
  EXPECT_EQ(doc["entries"][0]["results"].size(), e.results.size());
  std::ifstream csv_in(dir / "spmm.csv");
  std::string line;
  std::size_t lines = 0;
  while (std::getline(csv_in, line)) ++lines;
  EXPECT_EQ(lines, e.results.size() + 1);  // a header, then a row per result
  // --resume keeps other matrices' entries.
  harness::SpmmBenchEntry other;
  other.matrix = "other";
  other.skipped = "no non-zeros";
  harness::write_spmm_bench(dir.string(), {other}, true);
  std::ifstream again(dir / "spmm.json");
  EXPECT_EQ(nlohmann::json::parse(again)["entries"].size(), 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace spkit::test
