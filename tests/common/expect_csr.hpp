#pragma once
// Exact equality of two CSR matrices (structure and values), for the format round-trip tests.
#include <gtest/gtest.h>

#include "spkit/formats/csr.hpp"

namespace spkit::test {

template <class T>
void expect_same_csr(const Csr<T>& a, const Csr<T>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);  // exact: conversions only move values
}

}  // namespace spkit::test
