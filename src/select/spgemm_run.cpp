// spgemm(): one product the way a user asks for it (spkit/spgemm.hpp). The kernel named, or auto's
// candidates best first; each attempt sized into row batches for its backend's memory (batched.cpp); a
// kernel that refuses hands over to the next candidate, and the result says what ran and why.
#include <omp.h>

#include <algorithm>
#include <exception>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/stats.hpp"

namespace spkit {
namespace {

bool mentions(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

// A kernel that ran out of memory on its device may succeed in smaller batches: this many halvings of
// its budget are tried before the next candidate.
constexpr int kSmallerBatchRetries = 2;

struct Refusal {
  std::string text;
  bool too_large = false;
  std::uint64_t bytes = 0;
};

Refusal refusal_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const TooLarge& t) {
    return {t.what(), true, t.bytes_needed()};
  } catch (const std::bad_alloc&) {
    return {"out of host memory (std::bad_alloc)", true, 0};
  } catch (const std::exception& x) {
    return {x.what(), false, 0};
  } catch (...) {
    return {"unknown refusal", false, 0};
  }
}

}  // namespace

bool spgemm_refused_current_exception() {
  try {
    throw;
  } catch (const NotApplicable&) {
    return true;
  } catch (const TooLarge&) {
    return true;
  } catch (const DeviceError& e) {
    // Out of memory or resources is a refusal another kernel may not meet; any other device error is not.
    const std::string what = e.what();
    return mentions(what, "INSUFFICIENT_RESOURCES") || mentions(what, "ALLOC_FAILED") ||
           mentions(what, "out of memory") || mentions(what, "cudaErrorMemoryAllocation");
  } catch (const std::bad_alloc&) {
    return true;
  } catch (...) {
    return false;
  }
}

template <class T>
std::string SpgemmRun<T>::summary() const {
  std::string s = kernel;
  if (plan.batches() > 1) s += " in " + std::to_string(plan.batches()) + " row batches";
  for (std::size_t i = 0; i < refused.size(); ++i)
    s += (i == 0 ? " (after " : "; ") + refused[i].kernel + " refused: " + refused[i].reason;
  if (!refused.empty()) s += ")";
  if (!reason.empty()) s += ": " + reason;
  return s;
}

template <class T>
SpgemmRun<T> spgemm(const SpgemmRegistry& reg, const Csr<T>& a, const Csr<T>& b, const SpgemmRequest& request,
                    const SpgemmExecutor<T>& execute) {
  if (a.cols != b.rows)
    throw Error("SpGEMM: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols) + " (A's columns must equal B's rows)");
  if (request.threads < 0) throw Error("SpGEMM: thread count must be positive (0: all), got " + std::to_string(request.threads));
  SpgemmOptions opts;
  opts.threads = request.threads > 0 ? request.threads : std::max(1, omp_get_max_threads());
  opts.device = request.device;
  opts.stream = request.stream;
  opts.memory_limit = request.memory_limit;

  std::vector<SpgemmSelection> candidates;
  if (request.kernel == "auto") {
    candidates = spgemm_candidates(spgemm_selector_stats(a), b.cols, request.backend, precision_of<T>());
  } else {
    if (!reg.find(request.kernel))
      throw NotApplicable("no SpGEMM kernel named \"" + request.kernel + "\" in this build (see `spkit kernels`)");
    candidates.push_back({request.kernel, "requested"});
  }

  SpgemmRun<T> run;
  std::exception_ptr last;
  bool all_too_large = true;
  std::uint64_t largest_need = 0;
  for (const SpgemmSelection& candidate : candidates) {
    const SpgemmKernelInfo* k = reg.find(candidate.kernel);
    if (!k || !k->fn<T>()) {
      run.refused.push_back({candidate.kernel, k ? "no " + std::string(to_string(precision_of<T>())) + " form"
                                                 : "not in this registry"});
      all_too_large = false;
      continue;
    }
    SpgemmOptions attempt = opts;
    for (int retry = 0; retry <= kSmallerBatchRetries; ++retry) {
      SpgemmBatchPlan plan;
      bool from_kernel = false;
      try {
        plan = plan_spgemm_batches(*k, a, b, attempt);
        SpgemmFn<T> product = k->fn<T>();
        if (plan.batches() > 1)
          product = [k, &plan](const Csr<T>& x, const Csr<T>& y, const SpgemmOptions& o) {
            return spgemm_batched(*k, x, y, o, plan);
          };
        from_kernel = true;
        run.result = execute ? execute(*k, product, attempt) : product(a, b, attempt);
        run.kernel = k->name;
        run.reason = candidate.reason;
        run.plan = std::move(plan);
        return run;
      } catch (...) {
        if (!spgemm_refused_current_exception()) throw;
        last = std::current_exception();
      }
      Refusal why = refusal_of(last);
      all_too_large = all_too_large && why.too_large;
      largest_need = std::max(largest_need, why.bytes);
      // Out of memory inside the kernel (its own needs beat our estimate): the same kernel in smaller
      // batches; a refusal of the plan itself (C over host memory, one row over the budget) is final.
      const bool smaller = from_kernel && why.too_large && retry < kSmallerBatchRetries && plan.budget_bytes > 1;
      if (smaller) {
        attempt.memory_limit = plan.budget_bytes / 2;
        why.text += "; retrying in smaller batches";
      }
      run.refused.push_back({k->name, why.text});
      if (!smaller) break;
    }
  }
  if (candidates.size() == 1 && last) std::rethrow_exception(last);
  std::string all;
  for (const SpgemmRefusal& r : run.refused) all += (all.empty() ? "" : "; ") + r.kernel + ": " + r.reason;
  const std::string message = "no SpGEMM kernel on " + std::string(to_string(request.backend)) + " computed C = A B (" +
                              all + ")";
  if (all_too_large) throw TooLarge(message, largest_need);
  throw NotApplicable(message);
}

template <class T>
SpgemmRun<T> spgemm(const Csr<T>& a, const Csr<T>& b, const SpgemmRequest& request) {
  return spgemm<T>(spgemm_registry(), a, b, request, SpgemmExecutor<T>());
}

template struct SpgemmRun<float>;
template struct SpgemmRun<double>;
template SpgemmRun<float> spgemm(const Csr<float>&, const Csr<float>&, const SpgemmRequest&);
template SpgemmRun<double> spgemm(const Csr<double>&, const Csr<double>&, const SpgemmRequest&);
template SpgemmRun<float> spgemm(const SpgemmRegistry&, const Csr<float>&, const Csr<float>&, const SpgemmRequest&,
                                 const SpgemmExecutor<float>&);
template SpgemmRun<double> spgemm(const SpgemmRegistry&, const Csr<double>&, const Csr<double>&, const SpgemmRequest&,
                                  const SpgemmExecutor<double>&);

}  // namespace spkit
