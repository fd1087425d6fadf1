// The synthetic matrix generator (families of SPEC §6): the family table and the dispatch to each
// family's maker (families.hpp), and the sizes for a target non-zero count. A family is a
// RowGenerator that says how long a row is and fills it; build_csr runs both in parallel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gen/families.hpp"
#include "gen/option_checks.hpp"
#include "gen/row_generator.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"

namespace spkit {
namespace {

using gen_detail::bad_option;
using gen_detail::RowGenerator;

const std::vector<std::string>& families() {
  static const std::vector<std::string> f = {"lap2d",  "lap3d",   "fem",    "random",    "powerlaw",   "road",
                                             "circuit", "banded", "rmat", "geometric", "fem_mesh", "road_planar"};
  return f;
}

void check_family(const std::string& family) {
  const auto& f = families();
  if (std::find(f.begin(), f.end(), family) != f.end()) return;
  std::string known;
  for (const auto& name : f) known += (known.empty() ? "" : ", ") + name;
  throw Error("unknown generator family '" + family + "' (known: " + known + ")");
}

std::unique_ptr<RowGenerator> make_generator(const GenOptions& o) {
  check_family(o.family);
  const std::string& f = o.family;
  if (o.n < 1) bad_option(f, "--n must be at least 1 (got " + std::to_string(o.n) + ")");
  if (f == "lap2d") return gen_detail::make_lap2d(o);
  if (f == "lap3d") return gen_detail::make_lap3d(o);
  if (f == "fem") return gen_detail::make_fem(o);
  if (f == "road") return gen_detail::make_road(o);
  if (f == "geometric") return gen_detail::make_geometric(o);
  if (f == "fem_mesh") return gen_detail::make_fem_mesh(o);
  if (f == "road_planar") return gen_detail::make_road_planar(o);
  if (f == "banded") return gen_detail::make_banded(o);
  if (f == "random") return gen_detail::make_random(o);
  if (f == "powerlaw") return gen_detail::make_powerlaw(o);
  return gen_detail::make_circuit(o);
}

}  // namespace

std::vector<std::string> generator_families() { return families(); }

Csr<double> generate(const GenOptions& opts) { return generate(opts, GenProgress{}); }

Csr<double> generate(const GenOptions& opts, const GenProgress& progress) {
  // R-MAT draws edges, not rows: its own two-pass build (counting sort of the edges).
  if (opts.family == "rmat") return gen_detail::generate_rmat(opts, progress);
  auto gen = make_generator(opts);
  return gen_detail::build_csr(*gen, opts.family, progress);
}

std::int64_t generated_rows(const GenOptions& opts) {
  if (opts.family == "rmat") {
    gen_detail::check_rmat_options(opts);
    return opts.n;
  }
  return make_generator(opts)->rows();
}

std::int64_t size_for_nnz(const std::string& family, std::int64_t target_nnz, const GenOptions& base) {
  check_family(family);
  const double t = static_cast<double>(std::max<std::int64_t>(target_nnz, 1));
  double n;
  if (family == "lap2d")
    n = std::sqrt(t / 5.0);
  else if (family == "lap3d")
    n = std::cbrt(t / (base.points == 27 ? 27.0 : 7.0));
  else if (family == "fem")
    n = std::cbrt(t / (7.0 * std::max(1, base.dof) * std::max(1, base.dof)));
  else if (family == "road")
    n = std::sqrt(t / 2.8);
  else if (family == "banded")
    n = t / (2.0 * std::max(0, base.bandwidth) + 1.0);
  else if (family == "rmat")
    // R-MAT's duplicate edges merge: about 90% of the drawn edges survive at edge factor 16.
    n = t / (0.9 * std::max(1, base.edge_factor));
  else if (family == "geometric")
    n = t / (std::max(1, base.per_row) + 1.0);  // mean neighbours + the diagonal
  else if (family == "fem_mesh")
    n = gen_detail::fem_mesh_side_for_nnz(base, t);
  else if (family == "road_planar")
    n = std::sqrt(t / 3.35);  // ~2.35 neighbours + the diagonal per node
  else if (family == "circuit")
    n = t / (std::max(1, base.per_row) + 0.5);  // the dense rows add about n/2 in all
  else  // random, powerlaw
    n = t / std::max(1, base.per_row);
  return std::max<std::int64_t>(1, std::llround(n));
}

}  // namespace spkit
