// The generator's counter-based randomness (src/gen/rng.hpp): IndexPermutation is a bijection
// that scrambles.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gen/rng.hpp"

namespace spkit::test {
namespace {

TEST(Generate, IndexPermutationIsABijection) {
  for (std::uint64_t n : {1, 2, 3, 5, 17, 1000, 4097}) {
    gen_detail::IndexPermutation p(n, 99);
    std::vector<int> hit(n, 0);
    std::uint64_t fixed_points = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t j = p(i);
      ASSERT_LT(j, n);
      ++hit[j];
      fixed_points += j == i;
    }
    for (int h : hit) ASSERT_EQ(h, 1) << "n = " << n;
    if (n >= 1000) EXPECT_LT(fixed_points, n / 50) << "should scramble";
  }
}

}  // namespace
}  // namespace spkit::test
