// run_spmv over a local registry holding known-good, deliberately broken, inapplicable and
// GPU-only kernels (so every status path is exercised whatever the real registry holds), then over
// the global registry on a small matrix (every real kernel, comparison ones included, must be ok).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "common/test_matrices.hpp"
#include "spkit/harness/bandwidth.hpp"
#include "spkit/harness/runner.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/validate.hpp"

namespace spkit::test {
namespace {

using namespace spkit::harness;

template <class T>
class GoodSerial final : public CpuSpmvPlan<T> {
 public:
  GoodSerial(const Csr<T>& a, const PlanOptions&) : a_(a) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    for (std::int64_t i = 0; i < a_.rows; ++i) {
      T s = 0;
      for (std::int64_t k = a_.row_ptr[i]; k < a_.row_ptr[i + 1]; ++k) s += a_.values[k] * x[a_.col_idx[k]];
      y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
  }
  std::uint64_t bytes_moved() const override { return 1000; }
  std::string detail() const override { return "test serial"; }

 protected:
  Csr<T> a_;
};

template <class T>
class GoodParallel final : public CpuSpmvPlan<T> {
 public:
  GoodParallel(const Csr<T>& a, const PlanOptions& o) : a_(a), threads_(o.threads) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
#pragma omp parallel for num_threads(threads_)
    for (std::int64_t i = 0; i < a_.rows; ++i) {
      T s = 0;
      for (std::int64_t k = a_.row_ptr[i]; k < a_.row_ptr[i + 1]; ++k) s += a_.values[k] * x[a_.col_idx[k]];
      y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
  }
  std::uint64_t bytes_moved() const override { return 2000; }

 private:
  Csr<T> a_;
  int threads_;
};

// Wrong on purpose: drops the last non-zero of every row.
template <class T>
class BrokenSerial final : public CpuSpmvPlan<T> {
 public:
  BrokenSerial(const Csr<T>& a, const PlanOptions&) : a_(a) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    for (std::int64_t i = 0; i < a_.rows; ++i) {
      T s = 0;
      for (std::int64_t k = a_.row_ptr[i]; k + 1 < a_.row_ptr[i + 1]; ++k) s += a_.values[k] * x[a_.col_idx[k]];
      y[i] = beta == T(0) ? alpha * s : alpha * s + beta * y[i];
    }
  }
  std::uint64_t bytes_moved() const override { return 1; }

 private:
  Csr<T> a_;
};

template <class T>
class NeverApplies final : public CpuSpmvPlan<T> {
 public:
  NeverApplies(const Csr<T>&, const PlanOptions&) { throw NotApplicable("no blocks worth it"); }
  void run(T, const T*, T, T*, Stream) override {}
  std::uint64_t bytes_moved() const override { return 0; }
};

template <class T>
class ThrowsWhileRunning final : public CpuSpmvPlan<T> {
 public:
  ThrowsWhileRunning(const Csr<T>&, const PlanOptions&) {}
  void run(T, const T*, T, T*, Stream) override { throw Error("boom"); }
  std::uint64_t bytes_moved() const override { return 0; }
};

// A test kernel's registry entry; parallel() and comparison() set the named flags.
struct TestKernel : KernelInfo {
  TestKernel(const char* kernel_name, Format kernel_format, Backend kernel_backend, const char* text) {
    name = kernel_name;
    format = kernel_format;
    backend = kernel_backend;
    description = text;
  }
  TestKernel& parallel() { KernelInfo::parallel = true; return *this; }
  TestKernel& comparison() { KernelInfo::comparison = true; return *this; }
};

Registry test_registry() {
  Registry reg;
  add_kernel<GoodSerial>(reg, TestKernel("cpu.csr.serial", Format::csr, Backend::cpu, "test"));
  add_kernel<GoodParallel>(reg, TestKernel("cpu.csr.omp.test", Format::csr, Backend::cpu, "test").parallel());
  add_kernel<BrokenSerial>(reg, TestKernel("cpu.csr.broken", Format::csr, Backend::cpu, "test"));
  add_kernel<NeverApplies>(reg, TestKernel("cpu.bsr.never", Format::bsr, Backend::cpu, "test"));
  add_kernel<ThrowsWhileRunning>(reg, TestKernel("cpu.ell.throws", Format::ell, Backend::cpu, "test"));
  add_kernel<GoodParallel>(reg, TestKernel("cpu.hyb.omp.test", Format::hyb, Backend::cpu, "no serial HYB kernel").parallel());
  add_kernel<GoodParallel>(reg, TestKernel("ref.test.csr", Format::csr, Backend::cpu, "test").parallel().comparison());
  return reg;
}

Csr<double> small_matrix() {
  // 203 x 190: awkward sizes, row lengths 0..12, every row but the empty ones changed by the broken kernel.
  std::vector<std::int64_t> lengths(203);
  for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<std::int64_t>(i % 13);
  return random_rows(203, 190, lengths, 7);
}

const SpmvResult* find_row(const std::vector<SpmvResult>& rows, const std::string& kernel, const std::string& prec,
                           int threads) {
  for (const auto& r : rows)
    if (r.kernel == kernel && r.precision == prec && r.threads == threads) return &r;
  return nullptr;
}

SpmvRunOptions quick_options() {
  SpmvRunOptions o;
  o.precisions = {Precision::f32, Precision::f64};
  o.threads = {1, 2, 3};
  o.timing.warmup = 1;
  o.timing.reps = 3;
  o.seed = fresh_seed();
  return o;
}

TEST(Runner, RowsStatusesAndDerivedFigures) {
  const Registry reg = test_registry();
  const Csr<double> a = small_matrix();
  const SpmvRunOptions o = quick_options();
  SCOPED_TRACE("x seed " + std::to_string(o.seed));
  const auto rows = run_spmv(reg, a, o);
  // Per precision: serial 1 + omp 3 + broken 1 + never 1 + throws 1 + hyb 3 + ref 3.
  EXPECT_EQ(rows.size(), 2u * 13u);

  for (const char* prec : {"float", "double"}) {
    SCOPED_TRACE(prec);
    const Precision p = std::string(prec) == "float" ? Precision::f32 : Precision::f64;
    const SpmvResult* serial = find_row(rows, "cpu.csr.serial", prec, 1);
    ASSERT_NE(serial, nullptr);
    EXPECT_EQ(serial->status, "ok");
    EXPECT_TRUE(serial->valid);
    EXPECT_EQ(serial->format, "csr");
    EXPECT_EQ(serial->backend, "cpu");
    EXPECT_GT(serial->median_ms, 0);
    EXPECT_GE(serial->mean_ms, serial->min_ms);
    EXPECT_LE(serial->min_ms, serial->median_ms);
    EXPECT_NEAR(serial->gflops, 2.0 * a.nnz() / (serial->median_ms * 1e-3) * 1e-9, 1e-9 * serial->gflops);
    EXPECT_NEAR(serial->gbytes_per_s, csr_effective_bytes(a, p) / (serial->median_ms * 1e-3) * 1e-9,
                1e-9 * serial->gbytes_per_s);
    EXPECT_NEAR(serial->own_gbytes_per_s, 1000 / (serial->median_ms * 1e-3) * 1e-9, 1e-9 * serial->own_gbytes_per_s);
    EXPECT_DOUBLE_EQ(serial->speedup, 1.0);
    EXPECT_EQ(serial->speedup_over, "cpu.csr.serial");
    EXPECT_EQ(serial->note, "test serial");
    // Errors are against the exact double product: zero-ish in double, float rounding in float.
    EXPECT_LT(serial->rel_l2_error, p == Precision::f64 ? 1e-14 : 1e-5);
    if (p == Precision::f32) EXPECT_GT(serial->rel_l2_error, 0);

    for (int t : {1, 2, 3}) {
      const SpmvResult* par = find_row(rows, "cpu.csr.omp.test", prec, t);
      ASSERT_NE(par, nullptr) << t;
      EXPECT_EQ(par->status, "ok");
      EXPECT_NEAR(par->speedup, serial->median_ms / par->median_ms, 1e-12 * par->speedup);
      EXPECT_NEAR(par->efficiency, par->speedup / t, 1e-12);
      // Comparison kernels are measured against the serial CSR kernel too.
      const SpmvResult* ref = find_row(rows, "ref.test.csr", prec, t);
      ASSERT_NE(ref, nullptr);
      EXPECT_TRUE(ref->comparison);
      EXPECT_EQ(ref->speedup_over, "cpu.csr.serial");
      // A format without a serial kernel of its own falls back to serial CSR, and says so.
      const SpmvResult* hyb = find_row(rows, "cpu.hyb.omp.test", prec, t);
      ASSERT_NE(hyb, nullptr);
      EXPECT_EQ(hyb->speedup_over, "cpu.csr.serial");
      EXPECT_GT(hyb->speedup, 0);
    }

    const SpmvResult* broken = find_row(rows, "cpu.csr.broken", prec, 1);
    ASSERT_NE(broken, nullptr);
    EXPECT_EQ(broken->status, "FAILED");
    EXPECT_FALSE(broken->valid);
    EXPECT_EQ(broken->gflops, 0);
    EXPECT_EQ(broken->gbytes_per_s, 0);
    EXPECT_EQ(broken->speedup, 0);
    EXPECT_GT(broken->rel_l2_error, 1e-3);
    EXPECT_NE(broken->note.find("rows over tolerance"), std::string::npos) << broken->note;

    const SpmvResult* never = find_row(rows, "cpu.bsr.never", prec, 1);
    ASSERT_NE(never, nullptr);
    EXPECT_EQ(never->status, "skipped");
    EXPECT_FALSE(never->valid);
    EXPECT_NE(never->note.find("no blocks worth it"), std::string::npos) << never->note;

    const SpmvResult* throws = find_row(rows, "cpu.ell.throws", prec, 1);
    ASSERT_NE(throws, nullptr);
    EXPECT_EQ(throws->status, "FAILED");
    EXPECT_NE(throws->note.find("boom"), std::string::npos) << throws->note;
  }
}

TEST(Runner, GlobsBaselinesAndComparisonFilter) {
  const Registry reg = test_registry();
  const Csr<double> a = small_matrix();
  SpmvRunOptions o = quick_options();
  o.precisions = {Precision::f64};
  o.threads = {2};
  o.kernels = "cpu.csr.omp*";
  auto rows = run_spmv(reg, a, o);
  std::set<std::string> names;
  for (const auto& r : rows) names.insert(r.kernel);
  EXPECT_EQ(names, (std::set<std::string>{"cpu.csr.omp.test", "cpu.csr.serial"}));  // baseline added
  EXPECT_GT(find_row(rows, "cpu.csr.omp.test", "double", 2)->speedup, 0);

  o.add_baselines = false;
  rows = run_spmv(reg, a, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].speedup, 0);  // no baseline in this run
  EXPECT_TRUE(rows[0].speedup_over.empty());

  o.kernels = "*.csr*";
  o.include_comparison = false;
  rows = run_spmv(reg, a, o);
  for (const auto& r : rows) EXPECT_FALSE(r.comparison) << r.kernel;

  o.kernels = "nothing.matches";
  EXPECT_THROW(run_spmv(reg, a, o), Error);
  o.kernels = "all";
  o.device = DeviceSelect::gpu;  // the local registry has no GPU kernel
  EXPECT_THROW(run_spmv(reg, a, o), Error);
  o.device = DeviceSelect::all;
  o.threads = {0};
  EXPECT_THROW(run_spmv(reg, a, o), Error);
}

TEST(Runner, GivenXAndResultY) {
  const Registry reg = test_registry();
  const Csr<double> a = small_matrix();
  SpmvRunOptions o = quick_options();
  o.kernels = "cpu.csr.serial";
  o.precisions = {Precision::f64};
  const std::vector<double> x = random_vector(a.cols, fresh_seed());
  o.x = &x;
  std::vector<double> got;
  int calls = 0;
  o.on_result_y = [&](const SpmvResult& row, const std::vector<double>& y) {
    EXPECT_EQ(row.kernel, "cpu.csr.serial");
    got = y, ++calls;
  };
  std::size_t cells = 0;
  o.on_cell = [&](const KernelInfo&, Precision, int, std::size_t index, std::size_t total) {
    EXPECT_EQ(index, cells++);
    EXPECT_EQ(total, 1u);
  };
  run_spmv(reg, a, o);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(cells, 1u);
  const auto want = reference_spmv(a, x);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12 * (1 + std::fabs(want[i])));

  const std::vector<double> short_x(static_cast<std::size_t>(a.cols - 1), 1.0);
  o.x = &short_x;
  EXPECT_THROW(run_spmv(reg, a, o), Error);
}

// CUDA rows through host stand-ins (the runner only sees the plan interface): with no GPU they are
// skipped with a reason; with one, an L2-resident matrix gives a warm and an L2-flushed row each,
// and speedups are over the fastest cuSPARSE row of the same L2 state.
TEST(Runner, CudaRowsSkippedWithoutGpuOrSplitByL2State) {
  Registry reg;
  add_kernel<GoodSerial>(reg, TestKernel("cuda.csr.standin", Format::csr, Backend::cuda, "test"));
  add_kernel<GoodSerial>(reg, TestKernel("cuda.cusparse.standin", Format::csr, Backend::cuda, "test").comparison());
  const Csr<double> a = small_matrix();  // a few KB: fits in any GPU's L2
  SpmvRunOptions o = quick_options();
  o.precisions = {Precision::f64};
  o.kernels = "cuda.csr.*";
  const auto rows = run_spmv(reg, a, o);
  if (gpu_count() == 0) {
    ASSERT_EQ(rows.size(), 1u);  // no cuSPARSE baseline is added when nothing can run
    EXPECT_EQ(rows[0].status, "skipped");
    EXPECT_FALSE(rows[0].note.empty());
    return;
  }
  ASSERT_EQ(rows.size(), 4u);  // standin and the added cuSPARSE baseline, warm and flushed each
  for (const auto& r : rows) {
    EXPECT_EQ(r.status, "ok") << r.kernel << ": " << r.note;
    EXPECT_EQ(r.speedup_over, "cuda.cusparse.standin");
    EXPECT_EQ(r.efficiency, 0);
    EXPECT_NE(r.note.find(r.l2_flushed ? "L2-flushed" : "warm"), std::string::npos) << r.note;
  }
  EXPECT_NE(rows[0].l2_flushed, rows[1].l2_flushed);
}

TEST(Runner, RandomXIsSeededAndInRange) {
  const auto a = random_x(1000, 42), b = random_x(1000, 42), c = random_x(1000, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double lo = 1, hi = -1;
  for (double v : a) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, -0.9);
  EXPECT_GT(hi, 0.9);
  EXPECT_TRUE(random_x(0, 1).empty());
}

TEST(Runner, CsrEffectiveBytes) {
  const Csr<double> a = small_matrix();
  const auto nnz = static_cast<std::uint64_t>(a.nnz());
  EXPECT_EQ(csr_effective_bytes(a, Precision::f64), 12 * nnz + 4 * 203 + 8 * (203 + 190));
  EXPECT_EQ(csr_effective_bytes(a, Precision::f32), 8 * nnz + 4 * 203 + 4 * (203 + 190));
}

// Every kernel the real registry holds (ours, the comparison ones, CUDA ones where a GPU exists)
// through the real runner: none may fail; CUDA ones are skipped with a note when there is no GPU.
TEST(Runner, GlobalRegistryEveryKernelOk) {
  if (registry().all().empty()) GTEST_SKIP() << "no kernel registered in this build yet";
  const Csr<double> a = small_matrix();
  SpmvRunOptions o = quick_options();
  o.threads = {2};
  const auto rows = run_spmv(a, o);
  EXPECT_FALSE(rows.empty());
  for (const auto& r : rows) {
    SCOPED_TRACE(r.kernel + " " + r.precision + " threads " + std::to_string(r.threads));
    EXPECT_NE(r.status, "FAILED") << r.note;
    if (r.backend == "cuda" && gpu_count() == 0) {
      EXPECT_EQ(r.status, "skipped");
      EXPECT_FALSE(r.note.empty());
    }
    if (r.status == "ok") {
      EXPECT_TRUE(r.valid);
      EXPECT_GT(r.gflops, 0);
      EXPECT_GT(r.bytes_moved, 0u);
    }
  }
}

TEST(Bandwidth, SmallArraysGivePositiveFigures) {
  CpuBandwidthOptions o;
  o.array_bytes = 4 << 20;
  o.reps = 2;
  o.threads = 2;
  const CpuBandwidth bw = measure_cpu_bandwidth(o);
  EXPECT_EQ(bw.array_bytes, 4u << 20);
  EXPECT_EQ(bw.threads, 2);
  for (const StreamFigure* f : {&bw.copy, &bw.triad, &bw.read}) {
    EXPECT_GT(f->best_gbs, 0);
    EXPECT_GE(f->best_gbs, f->median_gbs);
  }
  o.reps = 0;
  EXPECT_THROW(measure_cpu_bandwidth(o), Error);
  o.reps = 1;
  o.array_bytes = 16;
  EXPECT_THROW(measure_cpu_bandwidth(o), Error);
}

}  // namespace
}  // namespace spkit::test
