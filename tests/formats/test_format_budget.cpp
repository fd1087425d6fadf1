// The memory budget (FormatLimits) of the padded formats: TooLarge naming the bytes before anything is
// allocated, at conversion and at plan time, with sizes counted in 64 bits.
#include <gtest/gtest.h>

#include <string>

#include "formats/round_trip_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/formats/ell.hpp"
#include "spkit/formats/hll.hpp"
#include "spkit/formats/hyb.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

TEST(FormatBudget, TinyBudgetThrowsTooLargeNamingTheBytes) {
  const auto a = small();
  const FormatLimits tiny{16};
  try {
    csr_to_ell(a, Layout::row_major, tiny);
    FAIL() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_EQ(e.bytes_needed(), 9u * 12 + 3u * 4);  // padded arrays + row lengths
    EXPECT_NE(std::string(e.what()).find(std::to_string(e.bytes_needed())), std::string::npos) << e.what();
  }
  EXPECT_THROW(csr_to_hll(a, 2, Layout::col_major, tiny), TooLarge);
  EXPECT_THROW(csr_to_hyb(a, -1, tiny), TooLarge);
  EXPECT_THROW(csr_to_bmsparse(a, tiny), TooLarge);
  // A budget exactly the size needed is enough.
  EXPECT_NO_THROW(csr_to_ell(a, Layout::row_major, FormatLimits{9u * 12 + 3u * 4}));
}

TEST(FormatBudget, KernelsRefuseAtPlanTime) {
  const auto a = small();
  PlanOptions po;
  po.memory_budget_bytes = 16;
  for (const char* name : {"cpu.ell.serial.row_order", "cpu.ell.serial.col_order", "cpu.ell.omp",
                           "cpu.hll.serial.row_major", "cpu.hll.omp.guided", "cpu.hyb.omp", "cpu.bmsparse.omp"}) {
    const KernelInfo* k = registry().find(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_THROW(k->make_f64(a, po), TooLarge) << name;
    EXPECT_THROW(k->make_f32(csr_cast<float>(a), po), TooLarge) << name;
  }
}

TEST(FormatBudget, EllOfAHugeRowCountsIn64Bits) {
  // 300000 rows with one row of 100000 entries: 3e10 padded slots, 3.6e11 bytes; products in 32 bits
  // would wrap. The budget check must name the exact 64-bit size and allocate nothing.
  std::vector<std::int64_t> len(300000, 0);
  len[0] = 100000;
  Csr<double> a;
  a.rows = 300000;
  a.cols = 100000;
  a.row_ptr.assign(300001, 100000);
  a.row_ptr[0] = 0;
  a.col_idx.resize(100000);
  for (int k = 0; k < 100000; ++k) a.col_idx[k] = k;
  a.values.assign(100000, 1.0);
  const std::uint64_t expected = 300000ull * 100000ull * 12ull + 300000ull * 4ull;
  EXPECT_EQ(ell_bytes(a), 300000ull * 100000ull * 12ull);
  try {
    csr_to_ell(a, Layout::col_major, FormatLimits{1ull << 30});
    FAIL() << "expected TooLarge";
  } catch (const TooLarge& e) {
    EXPECT_EQ(e.bytes_needed(), expected);
  }
}

}  // namespace
}  // namespace spkit::test
