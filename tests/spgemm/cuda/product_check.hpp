#pragma once
// The check every GPU CSR SpGEMM kernel's own tests share: runs the kernel twice (the first keeping the device
// pool, the second releasing it), checks C against the fp64 reference, its shape, strictly increasing columns,
// no stored zeros, and that both runs agree bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "spkit/spgemm.hpp"

namespace spkit::test {

template <class T>
SpgemmResult<T> check_deterministic_product(const SpgemmKernelInfo& k, const Csr<double>& a64, const Csr<double>& b64,
                                            const std::string& name, bool same = false, SpgemmOptions o = {}) {
  const Csr<T> a = csr_cast<T>(a64);
  const Csr<T> b_own = csr_cast<T>(b64);
  const Csr<T>& b = same ? a : b_own;
  const std::string where = k.name + " on " + name + (sizeof(T) == 4 ? " (float)" : " (double)");
  o.keep_device_pool = true;
  SpgemmResult<T> r1 = k.fn<T>()(a, b, o);
  o.keep_device_pool = false;
  const SpgemmResult<T> r2 = k.fn<T>()(a, b, o);
  const Csr<T>& c = r1.c;
  const SpgemmCheck chk = check_spgemm(a, b, c, sizeof(T) == 4 ? 0x1p-24 : 0x1p-53);
  EXPECT_TRUE(chk.ok) << where << ": " << chk.message << " (" << chk.pattern_mismatches << " mismatches)";
  EXPECT_EQ(c.rows, a.rows) << where;
  EXPECT_EQ(c.cols, b.cols) << where;
  if (c.row_ptr.size() != static_cast<std::size_t>(a.rows + 1)) {
    ADD_FAILURE() << where << ": row_ptr of " << c.row_ptr.size() << " entries";
    return r1;
  }
  for (std::int64_t i = 0; i < c.rows; ++i)
    for (std::int64_t p = c.row_ptr[i] + 1; p < c.row_ptr[i + 1]; ++p)
      if (c.col_idx[p - 1] >= c.col_idx[p]) {
        ADD_FAILURE() << where << ": row " << i << " not strictly increasing at " << p;
        return r1;
      }
  for (std::int64_t p = 0; p < c.nnz(); ++p)
    if (c.values[p] == T(0)) {
      ADD_FAILURE() << where << ": stores an exact zero at " << p;
      return r1;
    }
  EXPECT_EQ(r2.c.row_ptr, c.row_ptr) << where << ": second run differs";
  EXPECT_EQ(r2.c.col_idx, c.col_idx) << where << ": second run differs";
  if (r2.c.values.size() == c.values.size())
    EXPECT_EQ(0, c.values.empty() ? 0 : std::memcmp(r2.c.values.data(), c.values.data(), c.values.size() * sizeof(T)))
        << where << ": values of the second run differ (not deterministic)";
  else
    ADD_FAILURE() << where << ": the second run has " << r2.c.values.size() << " values";
  return r1;
}

}  // namespace spkit::test
