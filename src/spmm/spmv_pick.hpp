#pragma once
// The SpMV kernel spkit's selector picks for A on one backend (select_kernel, ranked for
// tuning::kSpmmSpmvExpectedProducts products), planned: the per-column SpMM kernels (cpu.spmv.per_column,
// cuda.spmv.per_column) run it once per column of X. A candidate that refuses at planning hands over to the
// next, as in Plan's auto.
#include <memory>
#include <string>

#include "spkit/error.hpp"
#include "spkit/kernel.hpp"
#include "spkit/select.hpp"
#include "tuning.hpp"

namespace spkit::spmm_detail {

// `who` names the calling kernel in the error; *kernel receives the planned kernel's name.
template <class T>
std::unique_ptr<SpmvPlan<T>> plan_spmv_pick(const Csr<T>& a, Backend backend, const PlanOptions& o, int threads,
                                            const char* who, std::string* kernel) {
  PlanSettings settings;
  settings.backend = backend;
  settings.threads = threads;
  settings.device = o.device;
  settings.expected_products = tuning::kSpmmSpmvExpectedProducts;
  const Selection sel = select_kernel(a, settings);
  std::string refusals;
  for (const KernelEstimate& c : sel.candidates) {
    const KernelInfo* info = c.applicable ? registry().find(c.kernel) : nullptr;
    if (!info) continue;
    PlanOptions po = sel.options;
    po.threads = threads;
    po.device = o.device;
    po.memory_budget_bytes = o.memory_budget_bytes;
    try {
      auto plan = info->factory<T>()(a, po);
      *kernel = c.kernel;
      return plan;
    } catch (const NotApplicable& e) {
      refusals += "; " + c.kernel + ": " + e.what();
    }
  }
  throw NotApplicable(std::string(who) + ": no SpMV kernel the selector ranked applies" + refusals);
}

}  // namespace spkit::spmm_detail
