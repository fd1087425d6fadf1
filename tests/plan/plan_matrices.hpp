#pragma once
// Matrices and a kernel loop shared by the Plan tests that renumber: a randomly numbered 3-D mesh, the
// square edge cases with it, and every CPU kernel planned (by name) on each matrix with each ordering.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/plan.hpp"

namespace spkit::test {

inline Csr<double> random_mesh(std::int64_t n = 7) {
  GenOptions g;
  g.family = "fem_mesh";
  g.n = n;
  g.dims = 3;
  g.ordering = "random";
  return generate(g);
}

// Square matrices with awkward shapes: edge cases plus a randomly numbered mesh.
inline std::vector<NamedMatrix> square_matrices() {
  std::vector<NamedMatrix> out;
  for (NamedMatrix& m : edge_case_matrices())
    if (m.a.rows == m.a.cols) out.push_back(std::move(m));
  out.push_back({"fem_mesh random", random_mesh()});
  return out;
}

// check(plan, a, ordering, what) for every CPU kernel (2 threads) on every square matrix with each ordering. A kernel
// may refuse a matrix (the registry test covers that it says so) but must run on at least one.
template <class T, class Check>
void for_every_cpu_kernel(std::initializer_list<const char*> orderings, Check check) {
  const std::vector<NamedMatrix> matrices = square_matrices();
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != Backend::cpu) continue;
    int ran = 0;
    for (const NamedMatrix& m : matrices) {
      const Csr<T> a = csr_cast<T>(m.a);
      for (const char* ordering : orderings) {
        PlanSettings s;
        s.kernel = k.name;
        s.threads = 2;
        s.ordering = ordering;
        try {
          Plan<T> plan(a, s);
          EXPECT_EQ(plan.kernel(), k.name);
          check(plan, a, std::string(ordering), k.name + " " + ordering + " on " + m.name);
          ++ran;
        } catch (const NotApplicable&) {
        } catch (const TooLarge&) {
        }
      }
    }
    EXPECT_GT(ran, 0) << k.name << " ran on no matrix";
  }
}

}  // namespace spkit::test
