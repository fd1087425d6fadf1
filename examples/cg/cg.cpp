// Conjugate gradients (Hestenes & Stiefel) on a symmetric positive definite matrix, with spkit::Plan as
// the operator: the plan is built once and applied once per iteration; the vector updates are plain
// OpenMP loops. Prints iterations, the final relative residual and the time per iteration.
//
//   spkit_example_cg --gen lap3d --n 40              # 7-point Laplacian on a 40^3 grid
//   spkit_example_cg --gen fem_mesh --n 30           # P1 mesh with one dof per node
//   spkit_example_cg --matrix tests/data/matrices/bcsstk03.mtx.gz --tol 1e-8
//
// The right-hand side is b = A * x* with x*_i = sin(i + 1) (not constant: a generated Laplacian's rows may
// sum to one value, which would make b an eigenvector), so the solution is known; the stopping rule is scipy's
// (||r|| < tol * ||b||, checked before each product), so iteration counts compare with
// scipy.sparse.linalg.cg(A, b, rtol=tol). Exits 1 when it does not converge within --maxit.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/plan.hpp"

namespace {

struct Options {
  std::string matrix, family;
  std::int64_t n = 20;
  double tol = 1e-8;
  std::int64_t maxit = 10000;
  int threads = 0;
};

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  const std::int64_t n = static_cast<std::int64_t>(a.size());
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

int usage(const char* error) {
  std::fprintf(stderr,
               "%s\nusage: spkit_example_cg (--matrix FILE.mtx[.gz] | --gen lap3d|fem_mesh [--n N]) [--tol T] "
               "[--maxit K] [--threads P]\n",
               error);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + arg).c_str());
    const char* v = argv[++i];
    if (arg == "--matrix") o.matrix = v;
    else if (arg == "--gen") o.family = v;
    else if (arg == "--n") o.n = std::atoll(v);
    else if (arg == "--tol") o.tol = std::atof(v);
    else if (arg == "--maxit") o.maxit = std::atoll(v);
    else if (arg == "--threads") o.threads = std::atoi(v);
    else return usage(("unknown option " + arg).c_str());
  }
  if (o.matrix.empty() == o.family.empty()) return usage("give one of --matrix or --gen");
  try {
    spkit::Csr<double> a;
    std::string name;
    if (!o.matrix.empty()) {
      a = spkit::load_matrix(o.matrix);
      name = o.matrix;
    } else {
      spkit::GenOptions g;
      g.family = o.family;
      g.n = o.n;
      g.dof = 1;     // fem_mesh: one unknown per node (a scalar problem)
      g.points = 7;  // lap3d: the 7-point stencil
      a = spkit::generate(g);
      name = o.family + " n=" + std::to_string(o.n);
    }
    if (a.rows != a.cols) throw spkit::Error("CG needs a square matrix, " + name + " is " + std::to_string(a.rows) +
                                             " x " + std::to_string(a.cols));
    const std::int64_t n = a.rows;
    spkit::PlanSettings settings;
    settings.threads = o.threads;
    settings.expected_products = o.maxit < 1000 ? o.maxit : 1000;
    spkit::Plan<double> plan(a, settings);

    // b = A x*; x0 = 0, so r0 = b.
    std::vector<double> solution(n), b(n), x(n, 0.0), r(n), p(n), q(n);
    for (std::int64_t i = 0; i < n; ++i) solution[i] = std::sin(static_cast<double>(i + 1));
    plan.apply(solution.data(), b.data());
    const auto t0 = std::chrono::steady_clock::now();
    r = b;
    const double bnorm = std::sqrt(dot(b, b));
    const double atol = o.tol * bnorm;
    double rr = dot(r, r), rr_prev = 0;
    std::int64_t it = 0;
    for (; it < o.maxit && std::sqrt(rr) >= atol; ++it) {
      const double beta = it == 0 ? 0.0 : rr / rr_prev;
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
      plan.apply(p.data(), q.data());
      const double alpha = rr / dot(p, q);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
      }
      rr_prev = rr;
      rr = dot(r, r);
    }
    const double solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    double err = 0;
    for (std::int64_t i = 0; i < n; ++i) err = std::fmax(err, std::fabs(x[i] - solution[i]));
    const bool converged = std::sqrt(rr) < atol;
    std::printf("matrix %s: %lld rows, %lld nonzeros; kernel %s (plan %.2f ms)\n", name.c_str(),
                static_cast<long long>(n), static_cast<long long>(a.nnz()), plan.kernel().c_str(), plan.plan_ms());
    std::printf("iterations %lld, relative residual %.3e, max |x - x*| %.3e, %s\n", static_cast<long long>(it),
                bnorm > 0 ? std::sqrt(rr) / bnorm : 0.0, err, converged ? "converged" : "NOT converged");
    std::printf("solve %.3f ms, %.4f ms per iteration\n", solve_ms, it > 0 ? solve_ms / it : 0.0);
    return converged ? 0 : 1;
  } catch (const spkit::Error& e) {
    std::fprintf(stderr, "spkit_example_cg: %s\n", e.what());
    return 1;
  }
}
