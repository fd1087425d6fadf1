// The bench's suite, results files and compare logic (the end-to-end run is tests/cli/bench.sh).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "spkit/harness/results.hpp"
#include "spkit/harness/suite.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/stats.hpp"

namespace fs = std::filesystem;
using namespace spkit;
using namespace spkit::harness;

namespace {

// A scratch folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("spkit_bench_test_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SpmvResult result(const std::string& kernel, const std::string& precision, int threads, double median_ms,
                  bool valid = true) {
  SpmvResult r;
  r.kernel = kernel;
  r.format = "csr";
  r.backend = "cpu";
  r.precision = precision;
  r.threads = threads;
  r.median_ms = median_ms;
  r.mean_ms = median_ms * 1.1;
  r.gflops = median_ms > 0 ? 1.0 / median_ms : 0;
  r.valid = valid;
  r.status = valid ? "ok" : "FAILED";
  return r;
}

BenchResults sample_results() {
  BenchResults r;
  r.spkit_version = "9.9.9";
  r.git_commit = "abc123";
  r.command = "spkit bench --size tiny";
  r.machine.cpu_model = "Test CPU, with a comma";
  r.machine.logical_cpus = 2;
  r.machine.cpu_read_gbs = 10;
  MatrixRecord m;
  m.name = "lap2d";
  m.family = "lap2d";
  m.source = "generated: lap2d n=10 seed=1";
  m.stats.rows = 100;
  m.stats.cols = 100;
  m.stats.nnz = 460;
  m.stats.row_nnz_mean = 4.6;
  m.stats.row_nnz_max = 5;
  m.stats.bm_nnz_per_block = 7.5;
  m.stats.bm_block_histogram[64] = 3;
  m.parse_mb_s = 123.5;
  r.matrices.push_back(m);
  r.rows.push_back({"lap2d", result("cpu.csr.serial", "double", 1, 0.5)});
  r.rows.push_back({"lap2d", result("cpu.csr.omp.x", "double", 2, 0.3)});
  r.rows.push_back({"lap2d", result("cpu.csr.omp.x", "float", 2, 0.2)});
  SpmvResult failed = result("cpu.ell.omp", "double", 1, 0.4, false);
  failed.note = "3 rows over tolerance, \"first\" row 7";
  failed.rel_l2_error = std::numeric_limits<double>::quiet_NaN();
  r.rows.push_back({"lap2d", failed});
  return r;
}

}  // namespace

TEST(BenchSuite, GeneratedSuiteCoversEveryFamilyWithUniqueNames) {
  auto suite = generated_suite(SuiteSize::small, 7);
  std::set<std::string> families, names;
  for (const auto& m : suite) {
    families.insert(m.gen.family);
    names.insert(m.name);
    EXPECT_TRUE(m.generated);
    EXPECT_EQ(m.gen.seed, 7u);
    EXPECT_GT(m.gen.n, 0) << m.name;
  }
  for (const auto& f : generator_families()) EXPECT_TRUE(families.count(f)) << "family missing from the suite: " << f;
  EXPECT_EQ(names.size(), suite.size());
  // Both 3-D stencils.
  EXPECT_TRUE(names.count("lap3d7"));
  EXPECT_TRUE(names.count("lap3d27"));
  // The node-graph families also numbered at random, beside their locality-friendly numbering.
  for (const char* name : {"fem_mesh_random", "road_planar_random", "geometric_random"}) {
    const auto it = std::find_if(suite.begin(), suite.end(), [&](const SuiteMatrix& m) { return m.name == name; });
    ASSERT_NE(it, suite.end()) << name;
    EXPECT_EQ(it->gen.ordering, "random") << name;
    EXPECT_NE(it->source.find("ordering=random"), std::string::npos) << it->source;
  }
  const auto sfc = std::find_if(suite.begin(), suite.end(), [](const SuiteMatrix& m) { return m.name == "fem_mesh"; });
  ASSERT_NE(sfc, suite.end());
  EXPECT_NE(sfc->source.find("ordering=sfc"), std::string::npos) << sfc->source;
}

TEST(BenchSuite, TinyAndStandardSuitesLeaveOutTheRandomNumberings) {
  for (SuiteSize size : {SuiteSize::tiny, SuiteSize::standard})
    for (const auto& m : generated_suite(size, 3, 1u << 19)) EXPECT_TRUE(m.gen.ordering.empty()) << m.name;
}

TEST(BenchSuite, DefaultSuiteSizesTheHeadlinePastFourTimesTheCache) {
  // A pretend 512 KiB last-level cache keeps the test fast; the rule is the same for 32 MiB.
  const std::uint64_t llc = 1u << 19;
  EXPECT_EQ(parse_suite_size("default"), SuiteSize::standard);
  const auto suite = generated_suite(SuiteSize::standard, 5, llc);
  MachineInfo machine;
  machine.llc_bytes = llc;
  int headline = 0;
  for (const auto& m : suite) {
    if (!m.headline) {
      EXPECT_EQ(m.gen.n, size_for_nnz(m.gen.family, target_nnz(SuiteSize::standard), m.gen)) << m.name;
      continue;
    }
    ++headline;
    const MatrixStats s = compute_stats(generate(m.gen));
    for (const char* prec : {"float", "double"}) {
      const CacheFit fit = cache_fit(s, prec, "cpu", machine);
      EXPECT_GE(fit.ratio, 4.0) << m.name << " " << prec << ": working set " << fit.working_set_bytes;
      EXPECT_FALSE(fit.in_cache());
    }
  }
  EXPECT_EQ(headline, 3);  // fem_mesh, rmat, road_planar
  // Unknown cache: the large size; an absurd one: capped (the report then shows the ratio reached).
  EXPECT_EQ(headline_nnz(0), target_nnz(SuiteSize::large));
  EXPECT_EQ(headline_nnz(std::uint64_t{1} << 40), kMaxHeadlineNnz);
  // The other sizes have no headline matrices.
  for (const auto& m : generated_suite(SuiteSize::small, 5, llc)) EXPECT_FALSE(m.headline) << m.name;
  // Cache fit: a 1000 x 1000 matrix with 10^4 non-zeros moves 12e4 + 4e3 + 16e3 bytes in double.
  MatrixStats small;
  small.rows = small.cols = 1000;
  small.nnz = 10000;
  const CacheFit d = cache_fit(small, "double", "cpu", machine);
  EXPECT_EQ(d.working_set_bytes, 12u * 10000 + 4u * 1000 + 8u * 2000);
  EXPECT_TRUE(d.in_cache());
  EXPECT_EQ(cache_fit(small, "double", "cuda", machine).ratio, 0.0) << "no GPU L2 known";
}

TEST(BenchSuite, DegenerateFormatsAreNamed) {
  GenOptions o;
  o.family = "rmat";
  o.n = 1 << 14;
  const MatrixStats graph = compute_stats(generate(o));
  o.family = "lap2d";
  o.n = 100;
  const MatrixStats grid = compute_stats(generate(o));
  for (const char* name : {"cpu.hll.omp.guided", "cpu.ell.omp", "cpu.bmsparse.omp"}) {
    const KernelInfo* k = registry().find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_NE(degenerate_format_reason(*k, graph).find("not timed"), std::string::npos) << name;
    EXPECT_EQ(degenerate_format_reason(*k, grid), "") << name;
  }
  EXPECT_EQ(degenerate_format_reason(*registry().find("cpu.csr.serial"), graph), "");
}

TEST(BenchSuite, TinyMatricesHaveAboutTheTargetNonZeros) {
  const double target = static_cast<double>(target_nnz(SuiteSize::tiny));
  for (const auto& m : generated_suite(SuiteSize::tiny, 3)) {
    Csr<double> a = generate(m.gen);
    EXPECT_GT(a.nnz(), target / 3) << m.name;
    EXPECT_LT(a.nnz(), target * 3) << m.name;
  }
}

TEST(BenchSuite, SizesGrow) {
  EXPECT_LT(target_nnz(SuiteSize::tiny), target_nnz(SuiteSize::small));
  EXPECT_LT(target_nnz(SuiteSize::small), target_nnz(SuiteSize::medium));
  EXPECT_LT(target_nnz(SuiteSize::medium), target_nnz(SuiteSize::large));
  EXPECT_EQ(parse_suite_size("medium"), SuiteSize::medium);
  EXPECT_THROW(parse_suite_size("huge"), Error);
}

TEST(BenchSuite, ThreadSweepGoesToTwiceTheCores) {
  EXPECT_EQ(default_thread_sweep(1), (std::vector<int>{1}));
  EXPECT_EQ(default_thread_sweep(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(default_thread_sweep(3), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(default_thread_sweep(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(default_thread_sweep(12), (std::vector<int>{1, 2, 4, 8, 12}));
  EXPECT_EQ(default_thread_sweep(0), (std::vector<int>{1}));
}

TEST(BenchSuite, MatrixFilesFromFoldersAndFiles) {
  TempDir dir;
  write_text(dir.path / "b.mtx", "x");
  write_text(dir.path / "a.mtx.gz", "x");
  write_text(dir.path / "c.spkb", "x");
  write_text(dir.path / "notes.txt", "x");
  write_text(dir.path / "d.mtx.bz2", "x");
  auto files = matrix_files({dir.path.string()});
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].name, "a");
  EXPECT_EQ(files[1].name, "b");
  EXPECT_EQ(files[2].name, "c");
  for (const auto& f : files) EXPECT_FALSE(f.generated);
  auto one = matrix_files({(dir.path / "b.mtx").string()});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].path, (dir.path / "b.mtx").string());
  EXPECT_THROW(matrix_files({(dir.path / "missing.mtx").string()}), Error);
  fs::create_directories(dir.path / "empty");
  EXPECT_THROW(matrix_files({(dir.path / "empty").string()}), Error);
}

TEST(BenchSuite, NamesMadeUnique) {
  std::vector<SuiteMatrix> suite = generated_suite(SuiteSize::tiny, 1);
  SuiteMatrix f;
  f.generated = false;
  f.name = "road";
  suite.push_back(f);
  suite.push_back(f);
  make_names_unique(suite);
  std::set<std::string> names;
  for (const auto& m : suite) names.insert(m.name);
  EXPECT_EQ(names.size(), suite.size());
  EXPECT_TRUE(names.count("road"));       // the generated one keeps its name
  EXPECT_TRUE(names.count("file:road"));  // files are renamed
  EXPECT_TRUE(names.count("file:road#2"));
}

TEST(BenchSuite, TextBytesOfGzipFiles) {
  TempDir dir;
  std::string text = "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1.5\n";
  for (int i = 0; i < 2000; ++i) text += "% padding comment line number " + std::to_string(i) + "\n";
  write_text(dir.path / "plain.mtx", text);
  gzFile gz = gzopen((dir.path / "z.mtx.gz").string().c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  EXPECT_EQ(matrix_text_bytes((dir.path / "plain.mtx").string()), text.size());
  EXPECT_EQ(matrix_text_bytes((dir.path / "z.mtx.gz").string()), text.size());
  EXPECT_LT(fs::file_size(dir.path / "z.mtx.gz"), text.size());
}

TEST(BenchSuite, CellsOfParallelAndSerialKernels) {
  KernelInfo par;
  par.name = "cpu.csr.omp.test";
  par.backend = Backend::cpu;
  par.parallel = true;
  KernelInfo ser = par;
  ser.name = "cpu.csr.serial.test";
  ser.parallel = false;
  KernelInfo gpu = par;
  gpu.name = "cuda.csr.test";
  gpu.backend = Backend::cuda;
  const std::vector<Precision> both{Precision::f64, Precision::f32};
  EXPECT_EQ(cells_of(par, both, {1, 2, 4}).size(), 6u);
  EXPECT_EQ(cells_of(ser, both, {1, 2, 4}).size(), 2u);
  EXPECT_EQ(cells_of(gpu, both, {1, 2, 4}).size(), 2u);
  auto cells = cells_of(par, {Precision::f32}, {3});
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].precision, "float");
  EXPECT_EQ(cells[0].threads, 3);
}

TEST(BenchSuite, SelectKernelsHonoursDeviceAndPattern) {
  for (const KernelInfo* k : select_kernels("all", DeviceSelect::cpu, true)) EXPECT_EQ(k->backend, Backend::cpu);
  for (const KernelInfo* k : select_kernels("all", DeviceSelect::all, false)) EXPECT_EQ(k->backend, Backend::cpu);
  EXPECT_TRUE(select_kernels("all", DeviceSelect::gpu, false).empty());
  EXPECT_TRUE(select_kernels("no.such.kernel*", DeviceSelect::all, true).empty());
  for (const KernelInfo* k : select_kernels("cpu.csr.*", DeviceSelect::all, false))
    EXPECT_EQ(k->name.rfind("cpu.csr.", 0), 0u);
}

TEST(BenchResults, JsonRoundTrip) {
  BenchResults r = sample_results();
  BenchResults back = results_from_json(results_to_json(r));
  EXPECT_EQ(back.spkit_version, "9.9.9");
  EXPECT_EQ(back.git_commit, "abc123");
  EXPECT_EQ(back.machine.cpu_model, r.machine.cpu_model);
  EXPECT_DOUBLE_EQ(back.machine.cpu_read_gbs, 10);
  ASSERT_EQ(back.matrices.size(), 1u);
  EXPECT_EQ(back.matrices[0].stats.nnz, 460);
  EXPECT_DOUBLE_EQ(back.matrices[0].stats.bm_nnz_per_block, 7.5);
  EXPECT_EQ(back.matrices[0].stats.bm_block_histogram[64], 3);
  EXPECT_DOUBLE_EQ(back.matrices[0].parse_mb_s, 123.5);
  ASSERT_EQ(back.rows.size(), r.rows.size());
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_EQ(cell_key(back.rows[i]), cell_key(r.rows[i]));
    EXPECT_DOUBLE_EQ(back.rows[i].result.median_ms, r.rows[i].result.median_ms);
    EXPECT_EQ(back.rows[i].result.valid, r.rows[i].result.valid);
    EXPECT_EQ(back.rows[i].result.status, r.rows[i].result.status);
    EXPECT_EQ(back.rows[i].result.note, r.rows[i].result.note);
  }
  // NaN is not JSON: written as null, read back as NaN.
  EXPECT_NE(results_to_json(r).find("\"rel_l2_error\": null"), std::string::npos);
  EXPECT_TRUE(std::isnan(back.rows[3].result.rel_l2_error));
}

TEST(BenchResults, RowsCarryTheDocumentedKeysAndMatrixStatistics) {
  std::string json = results_to_json(sample_results());
  for (const auto& key : row_keys()) EXPECT_NE(json.find("\"" + key + "\""), std::string::npos) << key;
  EXPECT_NE(json.find("\"row_nnz_mean\": 4.6"), std::string::npos);
}

TEST(BenchResults, BadJsonIsAClearError) {
  EXPECT_THROW(results_from_json("{not json"), Error);
  EXPECT_THROW(results_from_json("{\"rows\": []}"), Error);
  EXPECT_THROW(read_results("/nonexistent/results.json"), Error);
}

TEST(BenchResults, CsvHasOneLinePerRowAndQuotesFields) {
  BenchResults r = sample_results();
  std::string csv = results_to_csv(r);
  std::size_t lines = static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n'));
  EXPECT_EQ(lines, r.rows.size() + 1);
  std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("matrix,kernel,format,backend,precision,threads", 0), 0u);
  EXPECT_NE(header.find(",cpu_model,gpu_name,spkit_version,git_commit"), std::string::npos);
  EXPECT_NE(csv.find("\"Test CPU, with a comma\""), std::string::npos);
  EXPECT_NE(csv.find("\"3 rows over tolerance, \"\"first\"\" row 7\""), std::string::npos);
}

TEST(BenchResults, WriteIsAtomicAndLeavesNoTemporaries) {
  TempDir dir;
  const std::string out = (dir.path / "new" / "folder").string();
  BenchResults r = sample_results();
  write_results(out, r);
  r.rows.pop_back();
  write_results(out, r);  // overwrite
  BenchResults back = read_results(out + "/results.json");
  EXPECT_EQ(back.rows.size(), r.rows.size());
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"results.json", "results.csv"}));
}

TEST(BenchResults, FinishedCellsAndFlushedRowsAreDistinct) {
  BenchResults r = sample_results();
  SpmvResult gpu = result("cuda.csr.vector", "double", 1, 0.01);
  gpu.backend = "cuda";
  r.rows.push_back({"lap2d", gpu});
  gpu.l2_flushed = true;
  r.rows.push_back({"lap2d", gpu});
  auto done = finished_cells(r);
  EXPECT_EQ(done.size(), r.rows.size());
  EXPECT_TRUE(done.count(CellKey{"lap2d", "cpu.csr.omp.x", "float", 2}));
  EXPECT_FALSE(done.count(CellKey{"lap2d", "cpu.csr.omp.x", "float", 4}));
}

TEST(BenchCompare, IdenticalRunsPass) {
  BenchResults r = sample_results();
  CompareReport c = compare_results(r, r, 0.10);
  EXPECT_FALSE(c.regression());
  EXPECT_EQ(c.cells.size(), r.rows.size());
  EXPECT_NEAR(c.geomean_ratio, 1.0, 1e-12);
  EXPECT_EQ(c.only_old + c.only_new, 0);
}

TEST(BenchCompare, SlowerCellIsARegressionWithinThresholdIsNot) {
  BenchResults old_r = sample_results(), new_r = sample_results();
  new_r.rows[1].result.median_ms *= 1.05;  // 5%: under 10%
  EXPECT_FALSE(compare_results(old_r, new_r, 0.10).regression());
  new_r.rows[1].result.median_ms = old_r.rows[1].result.median_ms * 1.5;
  CompareReport c = compare_results(old_r, new_r, 0.10);
  EXPECT_TRUE(c.regression());
  EXPECT_EQ(c.slower, 1);
  EXPECT_EQ(c.lost_validation, 0);
  auto k = std::find_if(c.kernels.begin(), c.kernels.end(), [](const CompareKernel& x) { return x.kernel == "cpu.csr.omp.x"; });
  ASSERT_NE(k, c.kernels.end());
  EXPECT_EQ(k->cells, 2);
  EXPECT_EQ(k->slower, 1);
  EXPECT_NEAR(k->geomean_ratio, std::sqrt(1.5), 1e-12);
  // Faster is never a regression, and a looser threshold lets 1.5x through.
  EXPECT_FALSE(compare_results(new_r, old_r, 0.10).regression());
  EXPECT_FALSE(compare_results(old_r, new_r, 0.60).regression());
}

TEST(BenchCompare, KernelThatStopsValidatingIsARegression) {
  BenchResults old_r = sample_results(), new_r = sample_results();
  new_r.rows[0].result.valid = false;
  new_r.rows[0].result.status = "FAILED";
  CompareReport c = compare_results(old_r, new_r, 0.10);
  EXPECT_TRUE(c.regression());
  EXPECT_EQ(c.lost_validation, 1);
  // A kernel that was already failing and still fails is not a new regression.
  EXPECT_FALSE(compare_results(new_r, new_r, 0.10).regression());
  // One that starts validating is an improvement.
  EXPECT_FALSE(compare_results(new_r, old_r, 0.10).regression());
}

TEST(BenchCompare, CellsInOnlyOneFileAreCountedNotCompared) {
  BenchResults old_r = sample_results(), new_r = sample_results();
  new_r.rows.erase(new_r.rows.begin());
  new_r.rows.push_back({"other", result("cpu.csr.serial", "double", 1, 9.0)});
  CompareReport c = compare_results(old_r, new_r, 0.10);
  EXPECT_EQ(c.only_old, 1);
  EXPECT_EQ(c.only_new, 1);
  EXPECT_EQ(c.cells.size(), old_r.rows.size() - 1);
  EXPECT_FALSE(c.regression());
  EXPECT_NE(compare_to_json(c).find("\"only_new\": 1"), std::string::npos);
}
