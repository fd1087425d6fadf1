// Conjugate gradients (Hestenes & Stiefel) on a symmetric positive definite matrix, with spkit::Plan as
// the operator: the plan is built once and applied once per iteration; the vector updates are plain
// OpenMP loops. Prints iterations, the final relative residual and the time per iteration.
// r, p, q and x live in the plan's numbering (Plan::apply_in_plan_numbering): when the plan renumbers A
// (--ordering), b is permuted once and x back once per solve, instead of a gather and a scatter per
// product; dot products and axpys do not care how the unknowns are numbered. --vectors user runs every
// product through Plan::apply in the caller's numbering instead.
//
//   spkit_example_cg --gen lap3d --n 40              # 7-point Laplacian on a 40^3 grid
//   spkit_example_cg --gen fem_mesh --n 30           # P1 mesh with one dof per node
//   spkit_example_cg --matrix tests/data/matrices/bcsstk03.mtx.gz --tol 1e-8
//   spkit_example_cg --gen fem_mesh --n 50 --gen-ordering random --compare 5   # orderings side by side
//
// The right-hand side is b = A * x* with x*_i = sin(i + 1) (not constant: a generated Laplacian's rows may
// sum to one value, which would make b an eigenvector), so the solution is known; the stopping rule is scipy's
// (||r|| < tol * ||b||, checked before each product), so iteration counts compare with
// scipy.sparse.linalg.cg(A, b, rtol=tol). Exits 1 when it does not converge within --maxit.
// --time-transpose R: also times, over R interleaved rounds, one forward product against a transposed
// one with the cached A^T and with the scatter kernel, and the cost of building each way (medians).
#include <omp.h>

#include <algorithm>
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
  int transpose_rounds = 0;
  std::string ordering = "auto";   // PlanSettings::ordering
  std::string gen_ordering;        // geometric, fem_mesh: how the generator numbers the nodes
  bool in_plan_numbering = true;   // --vectors plan (default) or user
  int compare_rounds = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Forward against transposed products, both ways of apply_transpose, interleaved rounds; plan times too.
void time_transpose(const spkit::Csr<double>& a, const spkit::PlanSettings& base, int rounds) {
  spkit::PlanSettings cached = base, scatter = base;
  cached.expected_transpose_products = 1000;
  scatter.expected_transpose_products = 1;
  std::vector<double> t_plain, t_cached, t_scatter, plan_plain, plan_cached, plan_scatter, t_fwd, t_ct, t_st;
  std::vector<double> x(a.cols, 1.0), u(a.rows, 1.0), y(a.rows), v(a.cols);
  const int reps = 20;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    spkit::Plan<double> p_plain(a, base);
    plan_plain.push_back(ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    spkit::Plan<double> p_cached(a, cached);
    plan_cached.push_back(ms_since(t0));
    t0 = std::chrono::steady_clock::now();
    spkit::Plan<double> p_scatter(a, scatter);
    plan_scatter.push_back(ms_since(t0));
    for (int w = 0; w < 3; ++w) p_cached.apply(x.data(), y.data()), p_cached.apply_transpose(u.data(), v.data());
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) p_cached.apply(x.data(), y.data());
    t_fwd.push_back(ms_since(t0) / reps);
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) p_cached.apply_transpose(u.data(), v.data());
    t_ct.push_back(ms_since(t0) / reps);
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) p_scatter.apply_transpose(u.data(), v.data());
    t_st.push_back(ms_since(t0) / reps);
    if (r == 0)
      std::printf("transpose: forward kernel %s; cached A^T: %s; few: %s\n", p_cached.kernel().c_str(),
                  p_cached.transpose_detail().c_str(), p_scatter.transpose_detail().c_str());
  }
  const double fwd = median(t_fwd), ct = median(t_ct), st = median(t_st);
  std::printf("transpose: product ms (median of %d rounds x %d): A x %.4f, A^T x cached %.4f (%.2fx forward speed), "
              "scatter %.4f (%.2fx)\n",
              rounds, reps, fwd, ct, fwd / ct, st, fwd / st);
  std::printf("transpose: plan ms: no A^T %.2f, cached A^T %.2f (+%.1f products), scatter %.2f (+%.1f products)\n",
              median(plan_plain), median(plan_cached), (median(plan_cached) - median(plan_plain)) / fwd,
              median(plan_scatter), (median(plan_scatter) - median(plan_plain)) / fwd);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  const std::int64_t n = static_cast<std::int64_t>(a.size());
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

struct CgResult {
  std::int64_t iterations = 0;
  double residual = 0;  // ||r|| / ||b||
  bool converged = false;
  double ms = 0;        // the whole solve, the permutations of b and x included
};

// x = A^-1 b from x0 = 0 (b and x in the caller's numbering). in_plan_numbering: the iteration vectors
// stay in the plan's numbering; otherwise every product is Plan::apply (gather and scatter included).
CgResult solve(spkit::Plan<double>& plan, const std::vector<double>& b, std::vector<double>& x, double tol,
               std::int64_t maxit, bool in_plan_numbering) {
  const std::int64_t n = plan.rows();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<double> r(n), p(n), q(n), xs(n, 0.0);  // xs: x in the iteration's numbering
  if (in_plan_numbering) plan.to_plan_numbering(b.data(), r.data(), n);
  else r = b;
  const double bnorm = std::sqrt(dot(r, r));
  const double atol = tol * bnorm;
  double rr = dot(r, r), rr_prev = 0;
  std::int64_t it = 0;
  for (; it < maxit && std::sqrt(rr) >= atol; ++it) {
    const double beta = it == 0 ? 0.0 : rr / rr_prev;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    if (in_plan_numbering) plan.apply_in_plan_numbering(p.data(), q.data());
    else plan.apply(p.data(), q.data());
    const double alpha = rr / dot(p, q);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      xs[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    rr_prev = rr;
    rr = dot(r, r);
  }
  x.resize(n);
  if (in_plan_numbering) plan.from_plan_numbering(xs.data(), x.data(), n);
  else x = xs;
  CgResult out;
  out.ms = ms_since(t0);
  out.iterations = it;
  out.residual = bnorm > 0 ? std::sqrt(rr) / bnorm : 0.0;
  out.converged = std::sqrt(rr) < atol;
  return out;
}

// Ordering none, rcm through apply and rcm in the plan's numbering, `rounds` interleaved solves each.
void compare_orderings(const spkit::Csr<double>& a, const spkit::PlanSettings& base, const std::vector<double>& b,
                       const Options& o) {
  spkit::PlanSettings none = base, rcm = base;
  none.ordering = "none";
  rcm.ordering = "rcm";
  spkit::Plan<double> plain(a, none), renumbered(a, rcm);
  struct Variant {
    const char* name;
    spkit::Plan<double>* plan;
    bool in_plan_numbering;
    std::vector<double> ms_per_iteration;
    std::int64_t iterations = 0;
  };
  Variant variants[] = {{"none", &plain, false, {}}, {"rcm, apply", &renumbered, false, {}},
                        {"rcm, plan numbering", &renumbered, true, {}}};
  std::vector<double> x;
  for (int round = 0; round < o.compare_rounds; ++round) {
    for (Variant& v : variants) {
      const CgResult res = solve(*v.plan, b, x, o.tol, o.maxit, v.in_plan_numbering);
      v.iterations = res.iterations;
      v.ms_per_iteration.push_back(res.iterations > 0 ? res.ms / res.iterations : 0.0);
    }
  }
  for (const Variant& v : variants)
    std::printf("compare: %-20s %6lld iterations, %.4f ms per iteration (median of %d), kernel %s\n", v.name,
                static_cast<long long>(v.iterations), median(v.ms_per_iteration), o.compare_rounds,
                v.plan->kernel().c_str());
}

int usage(const char* error) {
  std::fprintf(stderr,
               "%s\nusage: spkit_example_cg (--matrix FILE.mtx[.gz] | --gen lap3d|fem_mesh [--n N]) [--tol T] "
               "[--maxit K] [--threads P] [--ordering auto|none|rcm|hubsort] [--vectors plan|user]\n"
               "       [--gen-ordering sfc|random] [--time-transpose ROUNDS] [--compare ROUNDS]\n",
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
    else if (arg == "--time-transpose") o.transpose_rounds = std::atoi(v);
    else if (arg == "--ordering") o.ordering = v;
    else if (arg == "--gen-ordering") o.gen_ordering = v;
    else if (arg == "--compare") o.compare_rounds = std::atoi(v);
    else if (arg == "--vectors") {
      if (std::string(v) != "plan" && std::string(v) != "user") return usage("--vectors takes plan or user");
      o.in_plan_numbering = std::string(v) == "plan";
    }
    else return usage(("unknown option " + arg).c_str());
  }
  if (o.matrix.empty() == o.family.empty()) return usage("give one of --matrix or --gen");
  if (o.threads > 0) omp_set_num_threads(o.threads);  // the vector updates too, not only the products
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
      g.ordering = o.gen_ordering;
      a = spkit::generate(g);
      name = o.family + " n=" + std::to_string(o.n);
    }
    if (a.rows != a.cols) throw spkit::Error("CG needs a square matrix, " + name + " is " + std::to_string(a.rows) +
                                             " x " + std::to_string(a.cols));
    const std::int64_t n = a.rows;
    spkit::PlanSettings settings;
    settings.threads = o.threads;
    settings.expected_products = o.maxit < 1000 ? o.maxit : 1000;
    settings.ordering = o.ordering;
    settings.vectors_in_plan_numbering = o.in_plan_numbering;
    spkit::Plan<double> plan(a, settings);

    // b = A x*; x0 = 0, so r0 = b.
    std::vector<double> solution(n), b(n), x;
    for (std::int64_t i = 0; i < n; ++i) solution[i] = std::sin(static_cast<double>(i + 1));
    plan.apply(solution.data(), b.data());
    const CgResult res = solve(plan, b, x, o.tol, o.maxit, o.in_plan_numbering);
    double err = 0;
    for (std::int64_t i = 0; i < n; ++i) err = std::fmax(err, std::fabs(x[i] - solution[i]));
    std::printf("matrix %s: %lld rows, %lld nonzeros; kernel %s, ordering %s, vectors in the %s numbering "
                "(plan %.2f ms)\n",
                name.c_str(), static_cast<long long>(n), static_cast<long long>(a.nnz()), plan.kernel().c_str(),
                plan.selection().ordering.c_str(), o.in_plan_numbering ? "plan's" : "caller's", plan.plan_ms());
    std::printf("iterations %lld, relative residual %.3e, max |x - x*| %.3e, %s\n",
                static_cast<long long>(res.iterations), res.residual, err,
                res.converged ? "converged" : "NOT converged");
    std::printf("solve %.3f ms, %.4f ms per iteration\n", res.ms,
                res.iterations > 0 ? res.ms / res.iterations : 0.0);
    if (o.compare_rounds > 0) compare_orderings(a, settings, b, o);
    if (o.transpose_rounds > 0) time_transpose(a, settings, o.transpose_rounds);
    return res.converged ? 0 : 1;
  } catch (const spkit::Error& e) {
    std::fprintf(stderr, "spkit_example_cg: %s\n", e.what());
    return 1;
  }
}
