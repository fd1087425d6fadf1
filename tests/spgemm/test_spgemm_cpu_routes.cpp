// CPU Gustavson SpGEMM (src/spgemm/cpu/csr.cpp) by route: the one-pass route (rows written into arrays
// reserved at C's bound: thread 0's chunks straight into C, the other threads' chunks appended or taken
// over), the one-pass route with every chunk copied or every other thread's chunk taken over, the chunks
// assembled into C by all threads past a barrier (the route of many threads), and the two-pass route
// (exact counts first),
// each accumulator, 1 to 4 threads, on the edge cases, the generator families and exact cancellation:
// every result passes check_spgemm, drops exact zeros, and all of them agree bit for bit (same
// summation order everywhere).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spgemm/cpu/gustavson.hpp"
#include "spkit/gen.hpp"
#include "spkit/spgemm.hpp"

namespace spkit::test {
namespace {

using detail::GustavsonAccumulator;
using detail::GustavsonRoute;

struct Pair {
  std::string name;
  Csr<double> a, b;
};

// Rows of A hitting rows of B that cancel exactly (powers of two): whole rows and single entries of C
// vanish, in rows spread over the matrix so that every thread's range of rows loses some.
Pair cancelling(std::int64_t rows) {
  std::vector<std::vector<std::int32_t>> pattern_a(static_cast<std::size_t>(rows)), pattern_b(4);
  for (std::int64_t i = 0; i < rows; ++i) 
    pattern_a[i] = i % 3 == 0 ? std::vector<std::int32_t>{0, 1} : std::vector<std::int32_t>{2, 3};
  pattern_b = {{0, 5, 9}, {0, 5, 9}, {1, 5}, {5, 7}};
  Pair p{"cancelling " + std::to_string(rows) + " rows", random_csr(rows, 4, 1, pattern_a),
         random_csr(4, 10, 2, pattern_b)};
  for (auto& v : p.a.values) v = 1.0;
  p.b.values = {0.5, 2.0, -4.0, -0.5, -2.0, 4.0, 8.0, 1.0, -1.0, 0.25};  // rows 0 + 1 = 0; rows 2 + 3 cancel at 5
  return p;
}

std::vector<Pair> pairs() {
  std::vector<Pair> out;
  std::vector<NamedMatrix> ms = edge_case_matrices();
  for (auto& m : family_matrices()) ms.push_back(std::move(m));
  std::uint64_t seed = 7;
  for (auto& m : ms) {
    if (m.a.rows == m.a.cols) out.push_back({m.name + " * itself", m.a, m.a});
    const std::vector<std::int64_t> lengths(static_cast<std::size_t>(m.a.cols), 5);
    out.push_back({m.name + " * random", m.a, random_rows(m.a.cols, 77, lengths, ++seed)});
  }
  out.push_back(cancelling(1));
  out.push_back(cancelling(1001));
  return out;
}

Csr<double> fresh_values(Csr<double> m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (auto& v : m.values) {
    const double x = val(rng);
    v = x == 0.0 ? 0.5 : x;
  }
  return m;
}

template <class T>
void check_routes(const Pair& p, bool fresh) {
  const std::uint64_t seed = fresh_seed();
  const Csr<T> a = csr_cast<T>(fresh ? fresh_values(p.a, seed) : p.a);
  const Csr<T> b = csr_cast<T>(fresh ? fresh_values(p.b, seed + 1) : p.b);
  const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  Csr<T> first;
  bool have_first = false;
  for (GustavsonAccumulator acc : {GustavsonAccumulator::dense, GustavsonAccumulator::hash})
    for (GustavsonRoute route :
         {GustavsonRoute::one_pass, GustavsonRoute::one_pass_copied, GustavsonRoute::one_pass_stolen,
          GustavsonRoute::one_pass_assembled, GustavsonRoute::two_pass})
      for (int threads : {1, 2, 3, 4, 5}) {
        SCOPED_TRACE(p.name + (sizeof(T) == 4 ? ", float" : ", double") +
                     (acc == GustavsonAccumulator::dense ? ", dense" : ", hash") +
                     (route == GustavsonRoute::one_pass          ? ", one pass"
                      : route == GustavsonRoute::one_pass_copied ? ", one pass, copied"
                      : route == GustavsonRoute::one_pass_stolen ? ", one pass, stolen"
                      : route == GustavsonRoute::one_pass_assembled ? ", one pass, assembled"
                                                                 : ", two pass") + ", threads " +
                     std::to_string(threads) + (fresh ? ", seed " + std::to_string(seed) : ", fixed values"));
        SpgemmOptions o;
        o.threads = threads;
        const Csr<T> c = detail::cpu_gustavson(a, b, o, acc, route).c;
        ASSERT_NO_THROW(check_csr(c));
        for (T v : c.values) ASSERT_NE(v, T(0)) << "exact zeros must be dropped";
        const SpgemmCheck v = check_spgemm(a, b, c, u);
        EXPECT_TRUE(v.ok) << v.message;
        if (!have_first) {
          first = c, have_first = true;
          continue;
        }
        EXPECT_EQ(c.row_ptr, first.row_ptr);
        EXPECT_EQ(c.col_idx, first.col_idx);
        EXPECT_EQ(c.values, first.values) << "every route, accumulator and thread count sums in one order";
      }
}

TEST(SpgemmCpuRoutes, AgreeAndPassTheReferenceCheck) {
  for (const Pair& p : pairs()) {
    check_routes<float>(p, true);
    check_routes<double>(p, true);
  }
}

TEST(SpgemmCpuRoutes, CancellationDropsExactZerosInEveryRoute) {
  for (std::int64_t rows : {1, 1001}) {
    const Pair p = cancelling(rows);
    check_routes<double>(p, false);
    SpgemmOptions o;
    o.threads = 3;
    const Csr<double> c = detail::cpu_gustavson(p.a, p.b, o, GustavsonAccumulator::dense, GustavsonRoute::one_pass).c;
    const Csr<double> ref = spgemm_reference(p.a, p.b);
    EXPECT_EQ(c.row_ptr, ref.row_ptr);
    EXPECT_EQ(c.col_idx, ref.col_idx);
    EXPECT_EQ(c.row_length(0), 0) << "row 0 (A's columns 0 and 1) cancels to nothing";
  }
}

// Products large enough that several threads cut them into many chunks (the routes' test above uses
// small matrices, mostly one row per chunk): generated families, a matrix with empty rows and one huge
// row, a rectangular product whose sizes divide by nothing useful.
std::vector<Pair> larger_pairs() {
  std::vector<Pair> out;
  auto gen = [](const char* family, std::int64_t n) {
    GenOptions o;
    o.family = family;
    o.n = n;
    o.seed = 11;
    return generate(o);
  };
  for (auto [family, n] : {std::pair<const char*, std::int64_t>{"fem", 24}, {"road", 90}, {"powerlaw", 9001}}) {
    Csr<double> m = gen(family, n);
    out.push_back({std::string(family) + " * itself", m, m});
  }
  std::vector<std::int64_t> len(7003);
  for (std::size_t i = 0; i < len.size(); ++i) len[i] = i % 5 == 0 ? 0 : static_cast<std::int64_t>(i % 9);
  len[3500] = 4000;  // one huge row in the middle: a chunk of its own, long enough to be taken over
  const Csr<double> huge = random_rows(7003, 5003, len, 21);
  out.push_back({"empty rows and a huge row * random", huge,
                 random_rows(5003, 6007, std::vector<std::int64_t>(5003, 6), 22)});
  return out;
}

// The thread count changes how rows are cut into chunks and who computes them, never C: 1, 2, 3 and 7
// threads (more than the machine's cores: threads that wait for a core) give the same C bit for bit,
// in the route the registered kernels take and in the copied and stolen variants of it.
TEST(SpgemmCpuRoutes, ThreadCountsGiveTheSameC) {
  for (const Pair& p : larger_pairs()) {
    const std::uint64_t seed = fresh_seed();
    const Csr<double> a = fresh_values(p.a, seed), b = fresh_values(p.b, seed + 1);
    for (GustavsonAccumulator acc : {GustavsonAccumulator::dense, GustavsonAccumulator::hash}) {
      Csr<double> first;
      for (GustavsonRoute route :
           {GustavsonRoute::automatic, GustavsonRoute::one_pass_copied, GustavsonRoute::one_pass_stolen})
        for (int threads : {1, 2, 3, 7}) {
          SCOPED_TRACE(p.name + (acc == GustavsonAccumulator::dense ? ", dense" : ", hash") + ", route " +
                       std::to_string(static_cast<int>(route)) + ", threads " + std::to_string(threads) +
                       ", seed " + std::to_string(seed));
          SpgemmOptions o;
          o.threads = threads;
          const Csr<double> c = detail::cpu_gustavson(a, b, o, acc, route).c;
          if (first.rows == 0 && first.row_ptr.empty()) {
            ASSERT_NO_THROW(check_csr(c));
            const SpgemmCheck v = check_spgemm(a, b, c, 0x1p-53);
            ASSERT_TRUE(v.ok) << v.message;
            first = c;
            continue;
          }
          ASSERT_EQ(c.row_ptr, first.row_ptr);
          ASSERT_EQ(c.col_idx, first.col_idx);
          ASSERT_EQ(c.values, first.values);
        }
    }
  }
}

}  // namespace
}  // namespace spkit::test
