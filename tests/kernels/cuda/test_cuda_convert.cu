// The GPU conversions CSR -> ELL / HLL produce, element for element, what the host conversions
// (src/formats) produce: same widths, offsets, columns (padding included) and values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "kernels/cuda/convert.cuh"
#include "spkit/device.hpp"
#include "spkit/formats/ell.hpp"
#include "spkit/formats/hll.hpp"

namespace spkit::test {
namespace {

template <class T>
void expect_same_conversions(const NamedMatrix& m) {
  SCOPED_TRACE(m.name);
  const Csr<T> a = csr_cast<T>(m.a);
  const auto& props = cuda::device_props(0);
  const cuda::DeviceCsr<T> dev(a);
  for (Layout layout : {Layout::col_major, Layout::row_major}) {
    const Ell<T> host = csr_to_ell(a, layout);
    const auto gpu = cuda::device_csr_to_ell(dev, layout, props);
    EXPECT_EQ(gpu.width, host.width);
    EXPECT_EQ(gpu.col_idx.to_host(), host.col_idx);
    EXPECT_EQ(gpu.values.to_host(), host.values);
    for (int hack : {1, 7, 32}) {
      const Hll<T> hh = csr_to_hll(a, hack, layout);
      const auto gh = cuda::device_csr_to_hll(dev, hack, layout, props);
      EXPECT_EQ(gh.hack_offset.to_host(), hh.hack_offset) << "hack " << hack;
      EXPECT_EQ(gh.hack_width.to_host(), hh.hack_width) << "hack " << hack;
      EXPECT_EQ(gh.col_idx.to_host(), hh.col_idx) << "hack " << hack;
      EXPECT_EQ(gh.values.to_host(), hh.values) << "hack " << hack;
      EXPECT_EQ(gh.bytes, hh.memory_bytes()) << "hack " << hack;
    }
  }
}

TEST(CudaConvert, EllAndHllMatchTheHostConversions) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: GPU conversion check compiled but not run";
  auto mats = edge_case_matrices();
  for (auto& m : family_matrices()) mats.push_back(std::move(m));
  for (const auto& m : mats) {
    expect_same_conversions<float>(m);
    expect_same_conversions<double>(m);
  }
}

}  // namespace
}  // namespace spkit::test
