#pragma once
// The block apply of a Plan (Plan::apply with k vectors, row-major) through an SpMM kernel: A read once
// for all k columns instead of once per column. The SpMM plan is `auto`'s pick of the SpMM registry for
// the plan's backend (select_spmm_kernel), built on first use for a k and kept for the next block of
// that k (the kBlockPlansKept most recent k). When the plan keeps its matrix renumbered (PlanSettings::
// ordering) and its rows hold at least tuning::kBlockApplyRenumberMinRowMean entries on average, the SpMM
// runs on P A P^T too: X's rows are gathered into the plan's numbering and Y's rows scattered back, each
// pass reading and writing rows x k values, for the locality that made the plan renumber (a mesh numbered
// at random reads its neighbours' rows of X from all over memory: at k = 16 its 16M entries gather 2 GB,
// against 0.2 GB for the two passes). With short rows the passes cost what they save, and the SpMM runs
// on A as given. Keeping A for these plans costs one more copy of its CSR arrays on the host (P A P^T
// once a block has run through the plan's numbering).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spkit/config.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/kernel.hpp"
#include "spkit/spmm.hpp"
#include "spkit/stats.hpp"
#include "plan/permuted_spmv.hpp"
#ifdef SPKIT_HAVE_CUDA
#include "plan/plan_device.hpp"
#endif

namespace spkit::plan_detail {

// SpMM plans kept per Plan, one per k: the most recent ones (a block solver uses one k; a caller that
// alternates a few k does not rebuild on every call).
inline constexpr std::size_t kBlockPlansKept = 2;

template <class T>
class BlockApply {
 public:
  // renumbered: the plan's view of P A P^T (its gather and scatter), or null when it runs on A as given.
  BlockApply(const Csr<T>& a, Backend backend, int threads, int device, RenumberedPlan<T>* renumbered = nullptr);
  // Y = alpha A X + beta Y, X(j, c) = x[j * ldx + c], Y(i, c) = y[i * ldy + c], k >= 1, ldx, ldy >= k.
  // device_pointers: x and y are device pointers of a CUDA plan (run on `stream`, not synchronized);
  // otherwise host pointers (a CUDA plan copies them through device buffers and synchronizes).
  void run(const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, T alpha, T beta, Stream stream,
           bool device_pointers);
  // The SpMM kernel of the most recent block ("" before the first).
  const std::string& kernel() const;
  // True when blocks run on P A P^T (the plan is renumbered and its rows long enough).
  bool in_plan_numbering() const { return renumbered_ != nullptr; }

 private:
  struct Kept {
    std::int64_t k = 0;
    std::string kernel;
    std::unique_ptr<SpmmPlan<T>> plan;
  };
  Kept& plan_for(std::int64_t k);
  // The product on device (CUDA) or host (CPU) blocks: through the plan's numbering when renumbered_.
  void run_here(SpmmPlan<T>& plan, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, T alpha,
                T beta, Stream stream);

  Csr<T> a_;  // A as given, or P A P^T from the first block on a renumbered plan
  RenumberedPlan<T>* renumbered_ = nullptr;
  bool a_renumbered_ = false;
  std::unique_ptr<MatrixStats> stats_;  // of a_, for SpMM auto: made on the first block
  std::vector<T> host_xp_, host_yp_;  // CPU: X and Y in the plan's numbering (ld = k)
  Backend backend_;
  PlanOptions options_;
  std::vector<Kept> kept_;  // most recent first
#ifdef SPKIT_HAVE_CUDA
  void run_from_host(SpmmPlan<T>& plan, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k,
                     T alpha, T beta, Stream stream);
  plan_device::DeviceArray dx_, dy_, dxp_, dyp_;  // dxp_, dyp_: X and Y in the plan's numbering
  std::size_t dx_bytes_ = 0, dy_bytes_ = 0, dp_bytes_ = 0;
  std::vector<T> staged_;  // X or Y packed to ld = k on the host when the caller's ld is larger
#endif
};

}  // namespace spkit::plan_detail
