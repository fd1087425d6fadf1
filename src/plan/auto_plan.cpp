// Kernel "auto" (spkit/plan.hpp: plan_auto): the selector's pick on the matrix as given and, when a
// renumbering may pay for itself, on P A P^T; then either the cost model decides (tuning "model") or the
// top candidates of both are timed (tuning "measure", src/plan/tuner.cpp). The constants and why they
// hold: src/tuning.hpp, "Reordering inside the plan" and "Measuring selection".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "plan/permuted_spmv.hpp"
#include "plan/tuner.hpp"
#include "spkit/error.hpp"
#include "spkit/plan.hpp"
#include "spkit/reorder.hpp"
#include "spkit/stats.hpp"
#include "select/format_ms.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

using select_detail::fmt_ms;

template <class T>
MatrixStats stats_of(const Csr<T>& a) {
  if constexpr (sizeof(T) == 8) return compute_stats(a);
  else return compute_stats(csr_cast<double>(a));
}

// The candidate the model ranks first (applicable ones come first in Selection::candidates).
const KernelEstimate& first_pick(const Selection& s) { return s.candidates.front(); }
double predicted_total(const Selection& s, std::int64_t products, double per_product_extra_ms) {
  const KernelEstimate& e = first_pick(s);
  return e.convert_ms + static_cast<double>(products) * (e.spmv_ms + per_product_extra_ms);
}

// Predicted time of the gather and scatter passes of one product. On a badly numbered matrix both touch
// x and y at scattered places, so each row pays one isolated access more (the gathers' own figure).
double permutation_ms(std::int64_t n, Precision p, Backend b, double copy_gbs) {
  const bool gpu = b == Backend::cuda;
  const double isolated = gpu ? tuning::kGpuIsolatedGatherBytes : tuning::kCpuIsolatedGatherBytes;
  const double elem = p == Precision::f32 ? 4.0 : 8.0;
  const double bytes = static_cast<double>(n) * (4 * elem + 8 + 2 * isolated);
  return bytes / (copy_gbs * 1e9) * 1e3 + (gpu ? tuning::kGpuPermuteLaunchUs : tuning::kCpuPermuteLaunchUs) * 1e-3;
}

// Which renumbering to try, or why none (PlanSettings::ordering).
struct OrderingChoice {
  Ordering ordering = Ordering::none;
  bool forced = false;  // named by the caller: kept whatever the model says
  std::string reason;
};

template <class T>
OrderingChoice choose_ordering(const Csr<T>& a, const PlanSettings& s, const MatrixStats& st, const Selection& sel) {
  OrderingChoice c;
  if (s.ordering == "none") return {Ordering::none, true, "ordering none requested"};
  if (s.ordering != "auto") {
    c.ordering = parse_ordering(s.ordering);
    c.forced = true;
    if (a.rows != a.cols)  // NotApplicable with the shape
      compute_ordering(a, c.ordering);
    c.reason = "ordering " + s.ordering + " requested";
    return c;
  }
  if (a.rows != a.cols) {
    c.reason = "no ordering: the matrix is rectangular, and a row or column renumbering alone would move x or y "
               "in a second numbering for no gather saved";
    return c;
  }
  if (a.rows < 2 || a.nnz() == 0) return {Ordering::none, false, "no ordering: nothing to renumber"};
  const Locality loc = locality(a);
  if (loc.relative_distance < tuning::kReorderWellNumberedDistance) {
    c.reason = "no ordering: already well numbered (" + to_string(loc) + ")";
    return c;
  }
  const double estimate_ms = static_cast<double>(a.nnz()) * tuning::kReorderNsPerNonzero * 1e-6;
  const double products_ms = predicted_total(sel, s.expected_products, 0) - first_pick(sel).convert_ms;
  if (estimate_ms > tuning::kReorderMaxSaving * products_ms) {
    c.reason = "no ordering: " + std::to_string(s.expected_products) + " products (predicted " + fmt_ms(products_ms) +
               ") cannot pay for one (~" + fmt_ms(estimate_ms) + ")";
    return c;
  }
  c.ordering = st.hub_column_share >= tuning::kHubsortMinHubShare ? Ordering::hubsort : Ordering::rcm;
  c.reason = "badly numbered (" + to_string(loc) + ")";
  if (!st.symmetric) c.reason += ", pattern symmetrized for the ordering";
  return c;
}

// Plans the selection's pick, or the next candidate when it refuses at plan time (device memory, a
// kernel's own limits the model cannot foresee); the reason says so.
template <class T>
std::unique_ptr<SpmvPlan<T>> build_first_accepting(const Csr<T>& a, Selection& sel) {
  std::vector<std::string> order{sel.kernel};
  for (const KernelEstimate& c : sel.candidates)
    if (c.applicable && c.kernel != sel.kernel) order.push_back(c.kernel);
  std::string refused;
  for (const std::string& name : order) {
    const KernelInfo* k = registry().find(name);
    if (!k) continue;
    try {
      std::unique_ptr<SpmvPlan<T>> plan = k->template factory<T>()(a, sel.options);
      if (name != sel.kernel) {
        sel.reason += "; planned the next candidate " + name + ": " + refused;
        sel.kernel = name;
      }
      return plan;
    } catch (const NotApplicable& e) {
      refused += (refused.empty() ? "" : "; ") + name + " refused: " + e.what();
    } catch (const TooLarge& e) {
      refused += (refused.empty() ? "" : "; ") + name + ": " + e.what();
    }
  }
  throw NotApplicable("Plan: no candidate kernel accepted the matrix: " + refused);
}

// The matrix renumbered, with what the model predicts for it.
template <class T>
struct Reordered {
  Ordering ordering = Ordering::none;
  Permutation p;
  Csr<T> a;
  Selection sel;
  double permute_ms = 0;  // predicted gather + scatter per product (0: vectors in the plan's numbering)
};

bool resolve_measure(const PlanSettings& s) {
  if (s.tuning == "model") return false;
  if (s.tuning == "measure") return true;
  if (s.tuning == "auto") return s.expected_products >= tuning::kTuneMinProducts;
  throw Error("Plan: tuning must be auto, model or measure (got '" + s.tuning + "')");
}

void check_settings(const PlanSettings& s) {
  if (s.ordering != "auto") parse_ordering(s.ordering);  // spkit::Error naming the valid ones
  resolve_measure(s);
  if (!(s.tuning_budget_ms >= 0) || !std::isfinite(s.tuning_budget_ms))
    throw Error("Plan: tuning_budget_ms must be a finite number >= 0 (0: the default bound)");
}

}  // namespace

template <class T>
std::unique_ptr<SpmvPlan<T>> plan_auto(const Csr<T>& a, const PlanSettings& settings, Selection& selection,
                                       const MatrixStats* stats) {
  check_settings(settings);
  const bool measure = resolve_measure(settings);
  const Precision precision = precision_of<T>();
  const MatrixStats own = stats ? MatrixStats{} : stats_of(a);
  const MatrixStats& st = stats ? *stats : own;
  Selection plain = select_kernel(st, settings, precision);

  const OrderingChoice choice = choose_ordering(a, settings, st, plain);
  std::optional<Reordered<T>> re;
  double reorder_ms = 0;
  std::string ordering_note = choice.reason;
  const auto t0 = Clock::now();  // the ordering's whole cost: found, checked, applied
  if (choice.ordering != Ordering::none) {
    re.emplace();
    re->ordering = choice.ordering;
    re->p = compute_ordering(a, choice.ordering);
    // An ordering that leaves the entries about as far from the diagonal is dropped, judged from the
    // permutation before P A P^T is formed (a random graph: RCM finds no order, and the permuted copy, its
    // statistics and its selection were spent for nothing).
    const Locality before = locality(a), after = locality(a, re->p);
    if (!choice.forced && after.mean_distance > tuning::kReorderMinDistanceGain * before.mean_distance) {
      ordering_note = "no ordering: " + std::string(to_string(re->ordering)) + " left the entries as far from the "
                      "diagonal (" + to_string(after) + "; " + fmt_ms(ms_since(t0)) + " spent finding out)";
      re.reset();
    }
  }
  if (re) {
    re->a = permute_symmetric(a, re->p);
    re->sel = select_kernel(stats_of(re->a), settings, precision);
    // Vectors kept in the plan's numbering pay the passes once per solve, not per product.
    re->permute_ms = settings.vectors_in_plan_numbering
                         ? 0.0
                         : permutation_ms(a.rows, precision, settings.backend, re->sel.copy_gbs);
    reorder_ms = ms_since(t0);
  }
  const std::int64_t products = settings.expected_products;
  const double plain_total = predicted_total(plain, products, 0);
  const double re_total = re ? reorder_ms + predicted_total(re->sel, products, re->permute_ms) : 0;
  auto wrap = [&](std::unique_ptr<SpmvPlan<T>> inner) {
    return plan_detail::make_permuted_plan<T>(std::move(inner), re->p, re->ordering, plain.options.threads,
                                              settings.device);
  };

  if (re) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "; %s took %s; predicted total %s renumbered%s vs %s as given",
                  std::string(to_string(re->ordering)).c_str(), fmt_ms(reorder_ms).c_str(), fmt_ms(re_total).c_str(),
                  settings.vectors_in_plan_numbering ? " (vectors in its numbering: no gather, no scatter)" : "",
                  fmt_ms(plain_total).c_str());
    ordering_note += buf;
  }

  std::unique_ptr<SpmvPlan<T>> plan;
  bool use_re = false;
  Selection chosen;
  if (!measure) {
    use_re = re && (choice.forced || re_total < plain_total);
    chosen = use_re ? re->sel : plain;
    plan = use_re ? wrap(build_first_accepting(re->a, chosen)) : build_first_accepting(a, chosen);
  } else {
    // Top kernels of each numbering, in the order of the model's predicted totals (the first is its pick).
    std::vector<plan_detail::TuneCandidate<T>> cands;
    std::vector<double> totals;
    const int top_kernels = settings.backend == Backend::cpu ? tuning::kTuneTopKernelsCpu : tuning::kTuneTopKernels;
    auto add_top = [&](const Selection& sel, bool reordered) {
      int added = 0;
      for (const KernelEstimate& e : sel.candidates) {
        if (!e.applicable || added == top_kernels) continue;
        const KernelInfo* k = registry().find(e.kernel);
        if (!k) continue;
        ++added;
        plan_detail::TuneCandidate<T> c;
        c.kernel = e.kernel;
        c.ordering = reordered ? std::string(to_string(re->ordering)) : "none";
        c.predicted_ms = e.spmv_ms + (reordered ? re->permute_ms : 0);
        c.predicted_convert_ms = e.convert_ms;
        c.time_in_plan_numbering = reordered && settings.vectors_in_plan_numbering;
        const PlanOptions opts = sel.options;
        if (reordered) c.build = [&, k, opts] { return wrap(k->template factory<T>()(re->a, opts)); };
        else c.build = [&, k, opts] { return k->template factory<T>()(a, opts); };
        const double total = (reordered ? reorder_ms : 0) + e.convert_ms + static_cast<double>(products) * c.predicted_ms;
        std::size_t at = 0;
        while (at < totals.size() && totals[at] <= total) ++at;
        totals.insert(totals.begin() + static_cast<std::ptrdiff_t>(at), total);
        cands.insert(cands.begin() + static_cast<std::ptrdiff_t>(at), std::move(c));
      }
    };
    if (!(re && choice.forced)) add_top(plain, false);
    if (re) add_top(re->sel, true);
    const double budget = settings.tuning_budget_ms > 0
                              ? settings.tuning_budget_ms
                              : std::min(tuning::kTuneBudgetCapMs,
                                         tuning::kTuneBudgetShare * std::min(plain_total, re ? re_total : plain_total));
    plan_detail::TuneOutcome<T> out = plan_detail::tune(cands, settings.backend, settings.device, a.rows, a.cols, budget);
    if (!out.best) {
      std::string why;
      for (const MeasuredCandidate& m : out.measured) why += "; " + m.kernel + " (" + m.ordering + "): " + m.note;
      throw NotApplicable("Plan: no candidate kernel accepted the matrix" + why);
    }
    const MeasuredCandidate& won = out.measured[out.best_index];
    use_re = won.ordering != "none";
    chosen = use_re ? re->sel : plain;
    const std::string model_reason = chosen.reason;
    chosen.kernel = won.kernel;
    std::size_t timed = 0;
    for (const MeasuredCandidate& m : out.measured) timed += m.measured_ms > 0;
    const MeasuredCandidate& first = out.measured.front();
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "%s: measured %s per product, the fastest of %zu of %zu candidates timed in %s (budget %s); the "
                  "model's pick %s (%s ordering) measured %s",
                  won.kernel.c_str(), fmt_ms(won.measured_ms).c_str(), timed, out.measured.size(), fmt_ms(out.ms).c_str(),
                  fmt_ms(budget).c_str(), first.kernel.c_str(), first.ordering.c_str(),
                  first.measured_ms > 0 ? fmt_ms(first.measured_ms).c_str() : "nothing");
    chosen.reason = std::string(buf) + "; model: " + model_reason;
    chosen.tuning = "measure";
    chosen.tuning_ms = out.ms;
    chosen.tuning_budget_ms = budget;
    chosen.measured = std::move(out.measured);
    plan = std::move(out.best);
  }
  chosen.ordering = use_re ? std::string(to_string(re->ordering)) : "none";
  chosen.ordering_reason = ordering_note;
  chosen.reorder_ms = reorder_ms;
  chosen.reason += "; ordering " + chosen.ordering + ": " + ordering_note;
  selection = std::move(chosen);
  return plan;
}

template std::unique_ptr<SpmvPlan<float>> plan_auto(const Csr<float>&, const PlanSettings&, Selection&,
                                                    const MatrixStats*);
template std::unique_ptr<SpmvPlan<double>> plan_auto(const Csr<double>&, const PlanSettings&, Selection&,
                                                     const MatrixStats*);

}  // namespace spkit
