#pragma once
// Test-name suffix of a test parameterised by a kernel name: "cuda.csr.binned" -> "cuda_csr_binned"
// (GoogleTest accepts only letters, digits and '_'; the filters in scripts/gpu-check.sh use these names).
#include <gtest/gtest.h>

#include <cctype>
#include <string>

namespace spkit::test {

inline std::string kernel_param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace spkit::test
