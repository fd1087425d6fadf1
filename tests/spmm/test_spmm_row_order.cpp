// The row-major CSR SpMM kernels visiting a badly numbered matrix's rows in RCM order (src/spmm/row_order.hpp):
// they take the order exactly where row_order.hpp says (square, rows of 16+ entries on average, rows of X of a
// cache line or sector, entries far from the diagonal; shorter rows on a symmetric pattern with an order to
// find, from a warp's row of X on the GPU, and on the CPU from a cache line, or 512 bytes for rows of fewer
// than 8 entries), and the product still matches the serial double reference with alpha/beta, padded leading
// dimensions, empty rows and (on the GPU) a row long enough to be cut into chunks and rows long enough for a
// warp each, at 1 and 3 threads; on both, short rows of a road network (and on the CPU of a geometric graph)
// numbered at random. The CUDA half skips without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/gen.hpp"
#include "spkit/reorder.hpp"
#include "spkit/spmm.hpp"
#include "spmm/row_order.hpp"
#include "spmm/spmm_check.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

// Square, columns uniform over the matrix (numbered at random: relative distance ~1/3), rows of 0..40
// entries, an empty row, and one row past the GPU kernel's chunk length.
Csr<double> scattered_square() {
  const std::int64_t n = 3000;
  std::vector<std::int64_t> len(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) len[static_cast<std::size_t>(i)] = (i * 13) % 41;
  len[7] = 0;
  len[1234] = tuning::kSpmmCudaRowChunkNnz + 100;
  len[2999] = 200;
  return random_rows(n, n, len, 77);
}

bool ordered(const SpmmPlan<double>& p) { return p.detail().find("Cuthill") != std::string::npos; }

// A generated family numbered at random: road_planar (a symmetric pattern of ~3 entries per row) and geometric
// (~9 per row) both have an order that RCM brings near the diagonal.
Csr<double> numbered_at_random(const std::string& family, std::int64_t n) {
  GenOptions g;
  g.family = family;
  g.n = n;
  g.ordering = "random";
  return generate(g);
}
Csr<double> road_numbered_at_random() { return numbered_at_random("road_planar", 120); }

// A + A^T of a random pattern: symmetric, short rows, but an expander: no order brings it near the diagonal.
Csr<double> symmetric_random_graph() {
  const Csr<double> a = random_rows(4000, 4000, std::vector<std::int64_t>(4000, 2), 80);
  Coo<double> coo;
  coo.rows = coo.cols = a.rows;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t q = a.row_ptr[i]; q < a.row_ptr[i + 1]; ++q) {
      const auto ii = static_cast<std::int32_t>(i), j = a.col_idx[q];
      coo.row_idx.push_back(ii), coo.col_idx.push_back(j), coo.values.push_back(1.0);
      coo.row_idx.push_back(j), coo.col_idx.push_back(ii), coo.values.push_back(1.0);
    }
  return coo_to_csr(coo);
}

// The GPU rule for short rows (row_order.hpp, tuning::kSpmmRowOrderGpuWarpRowBytes): ordered only where a
// row of X fills a warp's 16-byte vectors, on a symmetric pattern whose RCM order is well numbered.
TEST(SpmmRowOrder, ShortRowsAreOrderedOnlyWithAWarpPerRowAndAnOrderToFind) {
  using spmm_detail::locality_row_order;
  const int line = tuning::kSpmmRowOrderGpuLineBytes, warp = tuning::kSpmmRowOrderGpuWarpRowBytes;
  const std::int64_t warp_k = warp / 8;  // doubles
  const Csr<double> road = road_numbered_at_random();
  ASSERT_LT(road.nnz(), 5 * road.rows) << "short rows";
  ASSERT_TRUE(has_symmetric_pattern(road));
  const spmm_detail::RowOrder o = locality_row_order(road, warp_k, line, warp);
  EXPECT_EQ(static_cast<std::int64_t>(o.rows.size()), road.rows) << o.reason;
  EXPECT_NE(o.reason.find("short rows"), std::string::npos) << o.reason;
  EXPECT_TRUE(locality_row_order(road, warp_k / 2, line, warp).rows.empty()) << "several rows to a warp";
  const int cpu_line = tuning::kSpmmRowOrderCpuLineBytes, cpu_short = tuning::kSpmmRowOrderCpuShortRowBytes;
  EXPECT_FALSE(locality_row_order(road, cpu_short / 8, cpu_line, cpu_short).rows.empty())
      << "asked from a row of X of kSpmmRowOrderCpuShortRowBytes";
  EXPECT_TRUE(locality_row_order(road, cpu_short / 16, cpu_line, cpu_short).rows.empty()) << "half that";
  EXPECT_TRUE(locality_row_order(road, warp_k, cpu_line, 0).rows.empty()) << "short rows not asked for";
  const Csr<float> road_f = csr_cast<float>(road);
  EXPECT_FALSE(locality_row_order(road_f, warp / 4, line, warp).rows.empty()) << "128 floats: 512 bytes";
  EXPECT_TRUE(locality_row_order(road_f, warp_k, line, warp).rows.empty()) << "64 floats: 256 bytes";
  const Csr<double> directed = random_rows(4000, 4000, std::vector<std::int64_t>(4000, 3), 81);
  ASSERT_FALSE(has_symmetric_pattern(directed));
  EXPECT_TRUE(locality_row_order(directed, warp_k, line, warp).rows.empty()) << "a directed graph";
  const Csr<double> expander = symmetric_random_graph();
  ASSERT_TRUE(has_symmetric_pattern(expander));
  ASSERT_GT(locality(expander, reverse_cuthill_mckee(expander)).relative_distance, tuning::kReorderWellNumberedDistance);
  EXPECT_TRUE(locality_row_order(expander, warp_k, line, warp).rows.empty()) << "no order to find";
}

template <class T>
void check_kernel(const SpmmKernelInfo& info, const Csr<double>& ad, std::int64_t k, int threads) {
  const Csr<T> a = csr_cast<T>(ad);
  const SpmmShape shape{k, DenseLayout::row_major};
  PlanOptions po;
  po.threads = threads;
  auto plan = info.factory<T>()(a, shape, po);
  check_product<T>(*plan, a, shape, T(1), T(0), info.ld_multiple_bytes, true);
  check_product<T>(*plan, a, shape, T(-0.5), T(0.75), info.ld_multiple_bytes);
}

TEST(SpmmRowOrder, CpuRowMajorTakesTheOrderWhereItPaysAndMatchesTheReference) {
  const Csr<double> a = scattered_square();
  const SpmmKernelInfo* info = spmm_registry().find("cpu.csr.spmm_rowmajor");
  ASSERT_NE(info, nullptr);
  auto plan_for = [&](std::int64_t k, const Csr<double>& m) {
    return info->factory<double>()(m, SpmmShape{k, DenseLayout::row_major}, PlanOptions{});
  };
  EXPECT_TRUE(ordered(*plan_for(16, a))) << plan_for(16, a)->detail();
  EXPECT_TRUE(ordered(*plan_for(4, a))) << "32-byte rows of X: " << plan_for(4, a)->detail();
  EXPECT_FALSE(ordered(*plan_for(2, a))) << "16-byte rows of X run as slices of rows sorted by length";
  const Csr<double> banded = banded_csr(3000, 3000, {-12, -3, -1, 0, 1, 3, 12, 20, 30, 40, 41, 42, 43, 44, 45, 46},
                                        false);
  EXPECT_FALSE(ordered(*plan_for(16, banded))) << "a well numbered matrix keeps its order";
  const Csr<double> short_rows = random_rows(3000, 3000, std::vector<std::int64_t>(3000, 5), 78);
  EXPECT_FALSE(ordered(*plan_for(16, short_rows))) << "short rows of a directed pattern: RCM would not apply";
  const Csr<double> road = road_numbered_at_random(), geometric = numbered_at_random("geometric", 20000);
  ASSERT_LT(road.nnz(), tuning::kSpmmRowOrderCpuShortRowMinMean * road.rows);
  ASSERT_GE(geometric.nnz(), tuning::kSpmmRowOrderCpuShortRowMinMean * geometric.rows);
  ASSERT_LT(geometric.nnz(), static_cast<std::int64_t>(tuning::kSpmmRowOrderMinRowMean) * geometric.rows);
  EXPECT_TRUE(ordered(*plan_for(64, road))) << "a road's rows, 512-byte rows of X: " << plan_for(64, road)->detail();
  EXPECT_FALSE(ordered(*plan_for(16, road))) << "a road's rows, 128-byte rows of X";
  EXPECT_TRUE(ordered(*plan_for(16, geometric))) << "rows of 8+ entries, 128-byte rows of X";
  EXPECT_TRUE(ordered(*plan_for(4, geometric))) << "rows of 8+ entries, 32-byte rows of X";
  EXPECT_FALSE(ordered(*plan_for(2, geometric))) << "16-byte rows of X (slices)";
  EXPECT_FALSE(ordered(*plan_for(64, symmetric_random_graph()))) << "no order to find";
  const Csr<double> wide = random_rows(3000, 3500, std::vector<std::int64_t>(3000, 30), 79);
  EXPECT_FALSE(ordered(*plan_for(16, wide))) << "a rectangular matrix has no symmetric ordering";
  for (int threads : {1, 3})
    for (std::int64_t k : {8, 16, 33, 64}) {
      SCOPED_TRACE("k " + std::to_string(k) + ", " + std::to_string(threads) + " threads");
      check_kernel<double>(*info, a, k, threads);
      check_kernel<float>(*info, a, k, threads);
      check_kernel<double>(*info, road, k, threads);
      check_kernel<float>(*info, geometric, k, threads);
    }
}

TEST(SpmmRowOrder, CudaRowMajorTakesTheOrderAndMatchesTheReference) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << no_gpu_reason();
  const Csr<double> a = scattered_square();
  const SpmmKernelInfo* info = spmm_registry().find("cuda.csr.spmm_rowmajor");
  ASSERT_NE(info, nullptr);
  EXPECT_TRUE(ordered(*info->factory<double>()(a, SpmmShape{16, DenseLayout::row_major}, PlanOptions{})));
  for (std::int64_t k : {4, 16, 64, 136}) {
    SCOPED_TRACE("k " + std::to_string(k));
    check_kernel<double>(*info, a, k, 1);
    check_kernel<float>(*info, a, k, 1);
  }
  // Short rows with a warp each (64 doubles, 128 floats; 72: a partial last vector), ordered.
  const Csr<double> road = road_numbered_at_random();
  EXPECT_TRUE(ordered(*info->factory<double>()(road, SpmmShape{64, DenseLayout::row_major}, PlanOptions{})));
  for (std::int64_t k : {64, 72, 128}) {
    SCOPED_TRACE("road, k " + std::to_string(k));
    check_kernel<double>(*info, road, k, 1);
    check_kernel<float>(*info, road, k, 1);
  }
}

}  // namespace
}  // namespace spkit::test
