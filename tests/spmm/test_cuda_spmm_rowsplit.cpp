// The row-split CUDA SpMM kernels on rows that are cut into chunks (a block each, their sums added in chunk
// order by a second kernel): hub rows of one, two and many chunks beside short rows, every k class (narrow
// groups, a warp per row, several column passes), both layouts, α/β. Small enough for compute-sanitizer
// racecheck (the chunks meet in shared memory); and narrow k, where the groups' lanes go over a row's
// entries rather than its columns. Skips without a GPU.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/spmm.hpp"
#include "spmm/spmm_check.hpp"
#include "tuning.hpp"

namespace spkit::test {
namespace {

Csr<double> hub_rows() {
  const std::int64_t chunk = tuning::kSpmmCudaRowChunkNnz, cols = 5 * chunk + 77;
  std::vector<std::int64_t> len(300);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = static_cast<std::int64_t>(i % 9);
  len[3] = tuning::kSpmmCudaLongRowNnz + 1;  // one chunk, written straight into Y
  len[100] = chunk + 1;                      // two chunks
  len[101] = 4 * chunk + 333;                // five chunks
  len[299] = cols;                           // a full row, the last one
  return random_rows(static_cast<std::int64_t>(len.size()), cols, len, 2024);
}

// Both row-split kernels (each in the layout it handles) at every k, fp64 with and without alpha/beta, fp32.
void check_row_split_kernels(const Csr<double>& a64, std::initializer_list<std::int64_t> ks) {
  const Csr<float> a32 = csr_cast<float>(a64);
  for (const char* name : {"cuda.csr.spmm_rowmajor", "cuda.csr.spmm_colmajor"}) {
    const SpmmKernelInfo* info = spmm_registry().find(name);
    ASSERT_NE(info, nullptr) << name;
    const DenseLayout layout = info->handles(DenseLayout::row_major) ? DenseLayout::row_major : DenseLayout::col_major;
    for (std::int64_t k : ks) {
      SCOPED_TRACE(std::string(name) + ", k " + std::to_string(k));
      const SpmmShape shape{k, layout};
      auto p64 = info->factory<double>()(a64, shape, PlanOptions{});
      check_product<double>(*p64, a64, shape, 1.0, 0.0, info->ld_multiple_bytes, true);
      check_product<double>(*p64, a64, shape, -0.5, 0.75, info->ld_multiple_bytes);
      auto p32 = info->factory<float>()(a32, shape, PlanOptions{});
      check_product<float>(*p32, a32, shape, 2.0f, -1.0f, info->ld_multiple_bytes, true);
    }
  }
}

TEST(CudaSpmmRowSplit, HubRowsCutIntoChunksMatchTheReference) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << no_gpu_reason();
  check_row_split_kernels(hub_rows(), {4, 16, 64, 136});
}

// Narrow k (one or two lanes over columns) on rows of 8 or more entries on average: the groups get
// tuning::kSpmmCudaMinGroupLanes lanes over the row's entries (rows of 0-20 entries, so some are shorter
// than the group and most are not a multiple of it), k = 1-4 and 6 in both precisions, alpha/beta.
TEST(CudaSpmmRowSplit, NarrowColumnsSplitRowsOverGroups) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: " << no_gpu_reason();
  std::vector<std::int64_t> len(1'001);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = static_cast<std::int64_t>((i * 8) % 21);
  const Csr<double> a64 = random_rows(static_cast<std::int64_t>(len.size()), 777, len, 77);
  ASSERT_GE(static_cast<double>(a64.nnz()) / static_cast<double>(a64.rows), tuning::kSpmmCudaMinGroupRowMean);
  check_row_split_kernels(a64, {1, 2, 3, 4, 6});
}

}  // namespace
}  // namespace spkit::test
