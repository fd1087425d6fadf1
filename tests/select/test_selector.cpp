// The auto-selector: it only picks registered kernels of the asked backend that have a cost model and
// accept the matrix; it prefers formats that move fewer bytes on stencils, avoids padding on power-law
// rows, skips conversions that cannot pay for themselves, and is deterministic.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "common/test_matrices.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/select.hpp"
#include "spkit/stats.hpp"

namespace spkit::test {
namespace {

std::vector<Backend> backends_with_models() {
  std::vector<Backend> out;
  for (Backend b : {Backend::cpu, Backend::cuda})
    for (const KernelInfo& k : registry().all())
      if (k.backend == b && k.cost) {
        out.push_back(b);
        break;
      }
  return out;
}

// What one select_kernel call is asked: the settings and the precision.
struct Query {
  PlanSettings settings;
  Precision precision = Precision::f64;
};

Query options(Backend b, Precision p, std::int64_t products) {
  Query q;
  q.settings.backend = b;
  q.settings.threads = 2;
  q.settings.expected_products = products;
  q.precision = p;
  return q;
}

Selection select_for(const MatrixStats& s, const Query& q) { return select_kernel(s, q.settings, q.precision); }

Csr<double> generated(const std::string& family, std::int64_t n, int points = 7) {
  GenOptions g;
  g.family = family;
  g.n = n;
  g.points = points;
  return generate(g);
}

CostEstimate estimate_of(const std::string& kernel, const MatrixStats& s, const Query& o) {
  const KernelInfo* k = registry().find(kernel);
  PlanOptions po;
  po.threads = o.settings.threads;
  po.hack_size = s.hack_size;
  return k->cost(s, o.precision, po);
}

// Plain CSR bytes (64-bit offsets, 32-bit columns, x and y) in precision p.
double plain_csr_bytes(const MatrixStats& s, Precision p) {
  const double v = p == Precision::f32 ? 4 : 8;
  return 8.0 * static_cast<double>(s.rows + 1) + (4 + v) * static_cast<double>(s.nnz) +
         v * static_cast<double>(s.rows + s.cols);
}

TEST(Selector, PicksOnlyRegisteredKernelsWithCostModelsThatAccept) {
  ASSERT_FALSE(backends_with_models().empty()) << "no kernel has a cost model: auto cannot pick anything";
  for (const NamedMatrix& m : all_test_matrices()) {
    SCOPED_TRACE(m.name);
    const MatrixStats s = compute_stats(m.a);
    for (Backend b : backends_with_models()) {
      for (Precision p : {Precision::f64, Precision::f32}) {
        for (std::int64_t products : {std::int64_t{1}, std::int64_t{100}, std::int64_t{1000000}}) {
          const Query o = options(b, p, products);
          const Selection sel = select_for(s, o);
          const KernelInfo* k = registry().find(sel.kernel);
          ASSERT_NE(k, nullptr) << sel.kernel;
          EXPECT_EQ(k->backend, b);
          EXPECT_FALSE(k->comparison) << "a baseline was picked: " << k->name;
          ASSERT_TRUE(static_cast<bool>(k->cost)) << k->name << " has no cost model";
          EXPECT_TRUE(estimate_of(sel.kernel, s, o).applicable) << sel.kernel;
          ASSERT_FALSE(sel.candidates.empty());
          EXPECT_EQ(sel.candidates.front().kernel, sel.kernel);
          EXPECT_FALSE(sel.reason.empty());
          EXPECT_EQ(sel.reason.find('\n'), std::string::npos) << "the reason is one line";
          for (const KernelEstimate& c : sel.candidates) {
            const KernelInfo* ck = registry().find(c.kernel);
            ASSERT_NE(ck, nullptr) << c.kernel;
            EXPECT_TRUE(static_cast<bool>(ck->cost)) << c.kernel;
            EXPECT_EQ(ck->backend, b) << c.kernel;
            if (!c.applicable) EXPECT_EQ(c.note.rfind("ruled out", 0), 0u) << c.kernel << ": " << c.note;
          }
          // Best first: applicable candidates by total cost, then the ruled-out ones.
          double prev = -1;
          bool seen_ruled_out = false;
          for (const KernelEstimate& c : sel.candidates) {
            if (!c.applicable) {
              seen_ruled_out = true;
              continue;
            }
            EXPECT_FALSE(seen_ruled_out) << c.kernel << " ranked after a ruled-out kernel";
            const double total = c.convert_ms + static_cast<double>(products) * c.spmv_ms;
            EXPECT_GE(total, prev * (1 - 1e-12)) << c.kernel;
            prev = total;
          }
          // The pick really accepts the matrix: planning it never says NotApplicable (CPU here; CUDA
          // where a device exists).
          if (b == Backend::cpu || gpu_count() > 0) {
            PlanOptions po = sel.options;
            try {
              if (p == Precision::f64) (void)k->factory<double>()(m.a, po);
              else (void)k->factory<float>()(csr_cast<float>(m.a), po);
            } catch (const NotApplicable& e) {
              ADD_FAILURE() << sel.kernel << " was picked but refuses the matrix: " << e.what();
            }
          }
        }
      }
    }
  }
}

TEST(Selector, StencilsGetALowByteFormat) {
  const std::vector<std::pair<std::string, Csr<double>>> stencils = {
      {"lap3d27", generated("lap3d", 40, 27)}, {"lap2d", generated("lap2d", 300)}, {"lap3d7", generated("lap3d", 50)}};
  for (const auto& [name, a] : stencils) {
    const MatrixStats s = compute_stats(a);
    for (Backend b : backends_with_models()) {
      for (Precision p : {Precision::f64, Precision::f32}) {
        const Query o = options(b, p, 100000);
        const Selection sel = select_for(s, o);
        const CostEstimate e = estimate_of(sel.kernel, s, o);
        // Stencils are where ELL-like and compressed formats do not pay for padding: the pick moves at most
        // the padding of the boundary rows (5% at these sizes) over plain CSR; on the CPU, where the CSR
        // kernel narrows its indices, fewer bytes than plain CSR.
        const double limit = b == Backend::cpu ? 1.0 : 1.06;
        EXPECT_LT(static_cast<double>(e.bytes), limit * plain_csr_bytes(s, p))
            << name << " " << to_string(b) << " " << to_string(p) << ": picked " << sel.kernel << " (" << sel.reason << ")";
      }
    }
  }
}

TEST(Selector, PowerLawRowsGetNoPaddingBlowUp) {
  GenOptions g;
  g.family = "powerlaw";
  g.n = 200000;
  const Csr<double> a = generate(g);
  const MatrixStats s = compute_stats(a);
  ASSERT_GT(s.ell_padding_ratio, 10.0) << "the test needs rows of very different lengths";
  for (Backend b : backends_with_models()) {
    for (Precision p : {Precision::f64, Precision::f32}) {
      const Query o = options(b, p, 100000);
      const Selection sel = select_for(s, o);
      const CostEstimate e = estimate_of(sel.kernel, s, o);
      EXPECT_LT(static_cast<double>(e.bytes), 1.5 * plain_csr_bytes(s, p))
          << to_string(b) << " " << to_string(p) << ": picked " << sel.kernel << " (" << sel.reason << ")";
    }
  }
}

TEST(Selector, OneProductPrefersNoConversion) {
  for (const auto& a : {generated("lap3d", 40, 27), generated("random", 50000), generated("road", 200)}) {
    const MatrixStats s = compute_stats(a);
    for (Backend b : backends_with_models()) {
      // Only meaningful when a kernel without conversion exists for the backend (CSR kernels do).
      const Selection many = select_for(s, options(b, Precision::f64, 1000000));
      bool has_free = false;
      for (const KernelEstimate& c : many.candidates) has_free = has_free || (c.applicable && c.convert_ms == 0);
      if (!has_free) continue;
      const Selection one = select_for(s, options(b, Precision::f64, 1));
      EXPECT_EQ(one.candidates.front().convert_ms, 0.0) << to_string(b) << ": picked " << one.kernel << " (" << one.reason << ")";
    }
  }
}

TEST(Selector, MoreProductsNeverPickAWorseProduct) {
  // As expected products grow, the pick's predicted time per product can only fall.
  const Csr<double> a = generated("lap3d", 40, 27);
  const MatrixStats s = compute_stats(a);
  for (Backend b : backends_with_models()) {
    double prev = 1e300;
    for (std::int64_t products : {1, 10, 100, 1000, 10000, 1000000}) {
      const Selection sel = select_for(s, options(b, Precision::f64, products));
      EXPECT_LE(sel.candidates.front().spmv_ms, prev * (1 + 1e-12)) << products << ": " << sel.kernel;
      prev = sel.candidates.front().spmv_ms;
    }
  }
}

TEST(Selector, Deterministic) {
  const Csr<double> a = generated("powerlaw", 30000);
  for (Backend b : backends_with_models()) {
    const Query o = options(b, Precision::f32, 500);
    const Selection first = select_for(compute_stats(a), o);
    for (int i = 0; i < 3; ++i) {
      const Selection again = select_for(compute_stats(a), o);
      EXPECT_EQ(again.kernel, first.kernel);
      EXPECT_EQ(again.reason, first.reason);
      ASSERT_EQ(again.candidates.size(), first.candidates.size());
      for (std::size_t c = 0; c < first.candidates.size(); ++c) {
        EXPECT_EQ(again.candidates[c].kernel, first.candidates[c].kernel);
        EXPECT_EQ(again.candidates[c].spmv_ms, first.candidates[c].spmv_ms);
      }
    }
    // The float overload reads the same statistics.
    EXPECT_EQ(select_kernel(csr_cast<float>(a), o.settings).kernel, first.kernel);
  }
}

TEST(Selector, BadOptionsAreRefused) {
  const MatrixStats s = compute_stats(generated("lap2d", 20));
  PlanSettings o;
  o.expected_products = 0;
  EXPECT_THROW(select_kernel(s, o, Precision::f64), Error);
  o.expected_products = 1;
  o.threads = -2;
  EXPECT_THROW(select_kernel(s, o, Precision::f64), Error);
}

TEST(Selector, NamesNoKernel) {
  // Adding a kernel is its file and its registration: the selector itself names none.
  std::ifstream in(std::string(SPKIT_SOURCE_DIR) + "/src/select/selector.cpp");
  ASSERT_TRUE(in) << "selector source not found";
  std::stringstream text;
  text << in.rdbuf();
  for (const char* prefix : {"\"cpu.", "\"cuda.", "\"ref."})
    EXPECT_EQ(text.str().find(prefix), std::string::npos) << "selector.cpp names a kernel (" << prefix << "...)";
}

std::string file_text(const std::string& path) {
  std::ifstream in(std::string(SPKIT_SOURCE_DIR) + "/" + path);
  EXPECT_TRUE(in) << path << " not found";
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Selector, IncludesRunFromPlanToSelectNeverBack) {
  // plan -> select: the selector's header and sources include nothing of the Plan.
  for (const char* path : {"include/spkit/select.hpp", "src/select/selector.cpp"}) {
    const std::string text = file_text(path);
    EXPECT_EQ(text.find("#include \"spkit/plan.hpp\""), std::string::npos) << path;
    EXPECT_EQ(text.find("#include \"plan/"), std::string::npos) << path;
  }
  EXPECT_NE(file_text("include/spkit/plan.hpp").find("#include \"spkit/select.hpp\""), std::string::npos);
}

}  // namespace
}  // namespace spkit::test
