// The SpGEMM kernel contract's timing side: a kernel called without a recorder computes the same C as
// one the harness times, every registered kernel reports its stages in order and ends them once, and
// time_spgemm's loop (warm-up calls untimed, medians per stage, each timed call's product time from the
// stages in the total, the device pool kept until the last call) on a kernel whose stage times are known.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/kernel_param_name.hpp"
#include "common/test_matrices.hpp"
#include "spkit/harness/spgemm_timing.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {
using namespace spkit::harness;

// Every boundary a kernel reports, as "name" / "name*" (not in the total) / "@name" (on the device), and
// "end" for end_stages.
class ListingRecorder final : public SpgemmStageRecorder {
 public:
  void begin_stage(const char* name, bool in_total, StageSite site) override {
    events.push_back(std::string(site == StageSite::device ? "@" : "") + name + (in_total ? "" : "*"));
  }
  void end_stages() override { events.push_back("end"); }
  std::vector<std::string> events;
};

std::vector<NamedMatrix> small_products() {
  std::vector<NamedMatrix> ms = family_matrices();
  ms.push_back({"banded_37", banded_csr(37, 37, {-9, -1, 0, 1, 9}, false)});
  return ms;
}

class EverySpgemmKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(EverySpgemmKernel, SameProductWithoutRecorder) {
  const SpgemmKernelInfo* k = spgemm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  SpgemmOptions plain;
  plain.threads = 2;
  SpgemmTimingOptions timing;
  timing.warmup = 0;
  timing.reps = 1;
  for (const auto& m : small_products()) {
    if (m.a.rows != m.a.cols) continue;
    SCOPED_TRACE(k->name + " on " + m.name);
    SpgemmResult<double> alone;
    try {
      alone = k->run_f64(m.a, m.a, plain);
    } catch (const NotApplicable&) {
      continue;
    }
    const SpgemmResult<double> timed = time_spgemm(*k, m.a, m.a, plain, timing).result;
    EXPECT_EQ(alone.c.row_ptr, timed.c.row_ptr);
    EXPECT_EQ(alone.c.col_idx, timed.c.col_idx);
    EXPECT_EQ(alone.tasks, timed.tasks);
    EXPECT_EQ(alone.out_blocks, timed.out_blocks);
    if (k->backend == Backend::cpu)  // the CPU kernels sum every entry in a fixed order
      EXPECT_EQ(alone.c.values, timed.c.values);
    else  // GPU atomics may sum in any order; the kernel's own arithmetic (fp16, tf32) sets the bound
      EXPECT_TRUE(check_spgemm(m.a, m.a, timed.c, k->unit_roundoff > 0 ? k->unit_roundoff : 0x1p-53,
                               k->input_underflow).ok);
  }
}

// Every entry of m as a full b x b block (values from random_csr).
Csr<double> in_blocks(const Csr<double>& m, int b) {
  std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(m.rows * b));
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (int r = 0; r < b; ++r)
      for (std::int64_t p = m.row_ptr[i]; p < m.row_ptr[i + 1]; ++p)
        for (int c = 0; c < b; ++c) rows[static_cast<std::size_t>(i * b + r)].push_back(m.col_idx[p] * b + c);
  return random_csr(m.rows * b, m.cols * b, 5, rows);
}

TEST_P(EverySpgemmKernel, ReportsStagesInOrderAndEndsOnce) {
  const SpgemmKernelInfo* k = spgemm_registry().find(GetParam());
  ASSERT_NE(k, nullptr);
  if (k->backend == Backend::cuda && gpu_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine: " << k->name << " compiled but not run";
  // A kernel on dense blocks (Format::bsr) gets the same band in 3x3 blocks.
  const Csr<double> band = banded_csr(37, 37, {-9, -1, 0, 1, 9}, false);
  const Csr<double> a = k->format == Format::bsr ? in_blocks(band, 3) : band;
  ListingRecorder listing;
  SpgemmOptions o;
  o.recorder = &listing;
  k->run_f64(a, a, o);
  ASSERT_GE(listing.events.size(), 2u);
  EXPECT_EQ(listing.events.back(), "end");
  int product_stages = 0;
  for (std::size_t i = 0; i + 1 < listing.events.size(); ++i) {
    EXPECT_NE(listing.events[i], "end") << "a stage after end_stages";
    product_stages += listing.events[i].back() != '*';
  }
  EXPECT_GE(product_stages, 1) << "no stage in the product time";
  // The stage lists the results and docs/perf name, for spkit's CPU kernels.
  const std::vector<std::string> stages(listing.events.begin(), listing.events.end() - 1);
  if (k->name == "cpu.csr.gustavson_dense" || k->name == "cpu.csr.gustavson_hash")
    EXPECT_EQ(stages, (std::vector<std::string>{"symbolic", "numeric"}));
  if (k->name == "cpu.bmsparse.blocks")
    EXPECT_EQ(stages, (std::vector<std::string>{"convert*", "multiply", "compact", "to CSR*"}));
  if (k->name == "cuda.bmsparse.cc")
    EXPECT_EQ(stages, (std::vector<std::string>{"convert*", "upload*", "@T1 count", "@T2 gather", "@T3 task list",
                                                "@T4 sort", "@T5 output keys", "@T6 multiply", "@T7 compact",
                                                "download*", "to CSR*"}));
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : spgemm_registry().all()) names.push_back(k.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, EverySpgemmKernel, ::testing::ValuesIn(kernel_names()), kernel_param_name);

// A CPU "kernel" whose stages sleep for known times: "prepare" (not in the total) 40 ms, then "work"
// for the next of work_ms per call; it records what each call was asked to do with the device pool.
struct SleepingKernel {
  std::vector<int> work_ms;
  std::vector<bool> keep_pool, discard;
  bool rename_on_third_call = false;
  // As a CUDA kernel that honours discard_result: "download" (not in the total) only when C is kept.
  bool as_device_kernel = false;

  SpgemmKernelInfo info() {
    SpgemmKernelInfo k;
    k.name = "test.sleeping";
    k.backend = as_device_kernel ? Backend::cuda : Backend::cpu;
    k.run_f64 = [this](const Csr<double>& a, const Csr<double>&, const SpgemmOptions& o) {
      const std::size_t call = keep_pool.size();
      keep_pool.push_back(o.keep_device_pool);
      discard.push_back(o.discard_result);
      if (o.recorder) o.recorder->begin_stage("prepare", false, StageSite::host);
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      const bool renamed = rename_on_third_call && call == 2;
      if (o.recorder) o.recorder->begin_stage(renamed ? "other" : "work", true, StageSite::host);
      std::this_thread::sleep_for(std::chrono::milliseconds(work_ms.at(call)));
      SpgemmResult<double> r;
      if (as_device_kernel && o.discard_result) {
        if (o.recorder) o.recorder->end_stages();
        return r;
      }
      if (as_device_kernel && o.recorder) o.recorder->begin_stage("download", false, StageSite::host);
      if (as_device_kernel) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (o.recorder) o.recorder->end_stages();
      r.c = a;
      return r;
    };
    return k;
  }
};

TEST(SpgemmTiming, WarmupUntimedMediansPerStageTotalsFromProductStages) {
  SleepingKernel sleeping;
  sleeping.work_ms = {300, 90, 2, 3};  // the warm-up call, then three timed ones
  const Csr<double> a = random_rows(5, 5, {1, 1, 1, 1, 1}, 3);
  SpgemmTimingOptions timing;
  timing.warmup = 1;
  timing.reps = 3;
  const SpgemmTiming<double> t = time_spgemm(sleeping.info(), a, a, SpgemmOptions{}, timing);
  EXPECT_EQ(sleeping.keep_pool, (std::vector<bool>{true, true, true, false}))
      << "the pool goes back to the device after the last call only";
  ASSERT_EQ(t.stages.size(), 2u);
  EXPECT_EQ(t.stages[0].name, "prepare");
  EXPECT_FALSE(t.stages[0].in_total);
  EXPECT_EQ(t.stages[1].name, "work");
  EXPECT_TRUE(t.stages[1].in_total);
  EXPECT_GE(t.stages[0].ms, 40.0);
  // The median of 90, 2 and 3 ms of sleep: at least 3, well under the mean (31.7) and the warm-up's 300.
  EXPECT_GE(t.stages[1].ms, 3.0);
  EXPECT_LT(t.stages[1].ms, 30.0);
  ASSERT_EQ(t.total_ms.size(), 3u) << "one product time per timed call, none for the warm-up";
  EXPECT_GE(t.total_ms[0], 90.0);
  EXPECT_LT(t.total_ms[0], 250.0) << "the warm-up call's time is not a timed run";
  // "prepare" (40 ms) is outside the product time.
  EXPECT_GE(t.total_ms[1], 2.0);
  EXPECT_LT(t.total_ms[1], 30.0);
  EXPECT_GE(t.total_ms[2], 3.0);
  EXPECT_LT(t.total_ms[2], 30.0);
  EXPECT_EQ(t.result.c.row_ptr, a.row_ptr);
}

// The first call's memory peak: a CPU "kernel" that touches 64 MiB of fresh memory in its first call only
// (the peak is read around that call), and one that takes nothing beyond its C.
TEST(SpgemmTiming, FirstCallsMemoryPeak) {
  const Csr<double> a = random_rows(5, 5, {1, 1, 1, 1, 1}, 3);
  const auto kernel = [](std::size_t first_call_bytes) {
    SpgemmKernelInfo k;
    k.name = "test.allocating";
    k.backend = Backend::cpu;
    k.run_f64 = [first_call_bytes, call = 0](const Csr<double>& x, const Csr<double>&,
                                              const SpgemmOptions& o) mutable {
      if (o.recorder) o.recorder->begin_stage("work", true, StageSite::host);
      if (call++ == 0 && first_call_bytes > 0) {
        std::vector<char> scratch(first_call_bytes, 1);  // every page written
        EXPECT_EQ(scratch[first_call_bytes / 2], 1);
      }
      if (o.recorder) o.recorder->end_stages();
      SpgemmResult<double> r;
      r.c = x;
      return r;
    };
    return k;
  };
  SpgemmTimingOptions timing;
  timing.warmup = 1;
  timing.reps = 2;
  const SpgemmTiming<double> big = time_spgemm(kernel(std::size_t{64} << 20), a, a, SpgemmOptions{}, timing);
  const SpgemmTiming<double> none = time_spgemm(kernel(0), a, a, SpgemmOptions{}, timing);
#ifdef __linux__
  ASSERT_GE(big.peak_bytes, 0) << "the resident-set high-water mark could not be reset or read";
  EXPECT_GE(big.peak_bytes, std::int64_t{60} << 20);
  EXPECT_LT(big.peak_bytes, std::int64_t{256} << 20);
  ASSERT_GE(none.peak_bytes, 0);
  EXPECT_LT(none.peak_bytes, std::int64_t{16} << 20);
#else
  GTEST_SKIP() << "the resident-set peak is read on Linux only (peak_bytes " << big.peak_bytes << ")";
#endif
}

TEST(SpgemmTiming, DeviceKernelsDownloadOnlyTheLastC) {
  SleepingKernel sleeping;
  sleeping.as_device_kernel = true;
  sleeping.work_ms = {1, 1, 1, 1};
  const Csr<double> a = random_rows(6, 6, {1, 2, 0, 1, 3, 1}, 7);
  SpgemmTimingOptions timing;
  timing.warmup = 1;
  timing.reps = 3;
  const SpgemmTiming<double> t = time_spgemm(sleeping.info(), a, a, SpgemmOptions{}, timing);
  EXPECT_EQ(sleeping.discard, (std::vector<bool>{true, true, true, false}));
  // The last call's download joins the stages the timed calls share, outside the product time.
  ASSERT_EQ(t.stages.size(), 3u);
  EXPECT_EQ(t.stages[0].name, "prepare");
  EXPECT_EQ(t.stages[1].name, "work");
  EXPECT_EQ(t.stages[2].name, "download");
  EXPECT_FALSE(t.stages[2].in_total);
  EXPECT_GE(t.stages[2].ms, 20.0);
  ASSERT_EQ(t.total_ms.size(), 3u);
  for (double ms : t.total_ms) EXPECT_LT(ms, 20.0) << "the download is not in the product time";
  EXPECT_EQ(t.result.c.row_ptr, a.row_ptr) << "the returned C is the last call's, downloaded";
  EXPECT_EQ(t.result.c.col_idx, a.col_idx);

  SleepingKernel host;  // CPU kernels are never asked to discard
  host.work_ms = {1, 1};
  time_spgemm(host.info(), a, a, SpgemmOptions{}, SpgemmTimingOptions{1, 1});
  EXPECT_EQ(host.discard, (std::vector<bool>{false, false}));
}

TEST(SpgemmTiming, StagesThatChangeBetweenCallsAreAnError) {
  SleepingKernel sleeping;
  sleeping.work_ms = {1, 1, 1};
  sleeping.rename_on_third_call = true;
  const Csr<double> a = random_rows(3, 3, {1, 1, 1}, 4);
  SpgemmTimingOptions timing;
  timing.warmup = 0;
  timing.reps = 3;
  EXPECT_THROW(time_spgemm(sleeping.info(), a, a, SpgemmOptions{}, timing), Error);
}

TEST(SpgemmTiming, NoFormForTheValueTypeIsNotApplicable) {
  SleepingKernel sleeping;
  const Csr<float> a = csr_cast<float>(random_rows(3, 3, {1, 1, 1}, 5));
  EXPECT_THROW(time_spgemm(sleeping.info(), a, a, SpgemmOptions{}, SpgemmTimingOptions{}), NotApplicable);
}

}  // namespace
}  // namespace spkit::test
