// Vectors as Matrix Market array files: round trips in double and float, shapes, and refused values.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "formats/csr_reference.hpp"
#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/vector.hpp"

using namespace spkit;
using namespace spkit::csr_test;
using namespace spkit::mm_test;

TEST(Vectors, RoundTripAndShapes) {
  std::mt19937_64 rng(seed_now());
  std::vector<double> v(1001);
  for (auto& x : v) x = std::ldexp(static_cast<double>(rng() % 100000) - 5e4, static_cast<int>(rng() % 100) - 50);
  const fs::path p = scratch_dir() / "v.mtx";
  write_vector(p.string(), v);
  EXPECT_EQ(read_vector(p.string()), v);
  std::vector<float> f{1.5f, -0.1f};
  write_vector(p.string(), f.data(), f.size());
  const auto back = read_vector(p.string());
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(static_cast<float>(back[1]), -0.1f);
  write_text(p, "%%MatrixMarket matrix array real general\n1 3\n1\n2\n3\n");
  EXPECT_EQ(read_vector(p.string()), (std::vector<double>{1, 2, 3}));
  write_text(p, "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_THROW(read_vector(p.string()), Error);
  std::vector<double> bad{1.0, NAN};
  const fs::path q = scratch_dir() / "never_v.mtx";
  EXPECT_THROW(write_vector(q.string(), bad), Error);
  EXPECT_FALSE(fs::exists(q));
}
