// The block apply of a Plan through an SpMM kernel (src/plan/block_apply.hpp).
#include "plan/block_apply.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "spkit/error.hpp"
#include "spkit/reorder.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::plan_detail {

template <class T>
BlockApply<T>::BlockApply(const Csr<T>& a, Backend backend, int threads, int device, RenumberedPlan<T>* renumbered)
    : a_(a), backend_(backend) {
  // The row passes cost 4 rows x k values per product whatever A holds; the renumbering saves gathers of
  // X in proportion to the entries per row (tuning::kBlockApplyRenumberMinRowMean).
  const double mean = a.rows > 0 ? static_cast<double>(a.nnz()) / static_cast<double>(a.rows) : 0.0;
  if (renumbered && mean >= tuning::kBlockApplyRenumberMinRowMean) renumbered_ = renumbered;
  options_.threads = threads;
  options_.device = device;
}

template <class T>
const std::string& BlockApply<T>::kernel() const {
  static const std::string none;
  return kept_.empty() ? none : kept_.front().kernel;
}

template <class T>
typename BlockApply<T>::Kept& BlockApply<T>::plan_for(std::int64_t k) {
  const auto hit = std::find_if(kept_.begin(), kept_.end(), [k](const Kept& e) { return e.k == k; });
  if (hit != kept_.end()) {
    std::rotate(kept_.begin(), hit, hit + 1);  // most recent first
    return kept_.front();
  }
  if (renumbered_ && !a_renumbered_) {
    a_ = permute_symmetric(a_, Permutation::from_old_of_new(renumbered_->old_of_new()));
    a_renumbered_ = true;
  }
  // The SpMM rules read what the SpMV selector reads (src/spmm/select.cpp: the diagonals, for DIA); they do
  // not depend on k, so once per plan, on the matrix the blocks run on.
  if (!stats_) {
    if constexpr (sizeof(T) == 8) stats_ = std::make_unique<MatrixStats>(compute_stats(a_));
    else stats_ = std::make_unique<MatrixStats>(compute_stats(csr_cast<double>(a_)));
  }
  const SpmmShape shape{k, DenseLayout::row_major};
  const SpmmSelection pick = select_spmm_kernel(*stats_, shape, backend_, precision_of<T>());
  const SpmmKernelInfo* info = spmm_registry().find(pick.kernel);
  if (!info) throw NotApplicable("Plan::apply: SpMM kernel " + pick.kernel + " is not in this build");
  Kept made{k, pick.kernel, info->factory<T>()(a_, shape, options_)};
  if (kept_.size() >= kBlockPlansKept) kept_.pop_back();
  kept_.insert(kept_.begin(), std::move(made));
  return kept_.front();
}

template <class T>
void BlockApply<T>::run(const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, T alpha, T beta,
                        Stream stream, bool device_pointers) {
  SpmmPlan<T>& plan = *plan_for(k).plan;
  if (backend_ == Backend::cpu || device_pointers) return run_here(plan, x, ldx, y, ldy, k, alpha, beta, stream);
#ifdef SPKIT_HAVE_CUDA
  run_from_host(plan, x, ldx, y, ldy, k, alpha, beta, stream);
#else
  throw DeviceError("Plan::apply", "this build of spkit has no CUDA support");
#endif
}

template <class T>
void BlockApply<T>::run_here(SpmmPlan<T>& plan, const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k,
                             T alpha, T beta, Stream stream) {
  if (!renumbered_) return plan.run(alpha, x, ldx, beta, y, ldy, stream);
  const std::size_t n = static_cast<std::size_t>(a_.rows * k);  // square: rows == cols
  T *xp = nullptr, *yp = nullptr;
  if (backend_ == Backend::cpu) {
    if (host_xp_.size() < n) host_xp_.resize(n), host_yp_.resize(n);
    xp = host_xp_.data(), yp = host_yp_.data();
  } else {
#ifdef SPKIT_HAVE_CUDA
    if (dp_bytes_ < n * sizeof(T)) {
      plan_device::select_device(options_.device);
      dxp_ = plan_device::DeviceArray(n * sizeof(T), "block apply X in the plan's numbering");
      dyp_ = plan_device::DeviceArray(n * sizeof(T), "block apply Y in the plan's numbering");
      dp_bytes_ = n * sizeof(T);
    }
    xp = dxp_.as<T>(), yp = dyp_.as<T>();
#endif
  }
  renumbered_->gather_rows(x, ldx, k, xp, stream);
  plan.run(alpha, xp, k, T(0), yp, k, stream);
  renumbered_->scatter_rows(yp, k, beta, y, ldy, stream);
}

#ifdef SPKIT_HAVE_CUDA
namespace {
// rows x k of a row-major block between leading dimension `ld` and a packed copy (ld = k).
template <class T>
void pack_rows(const T* strided, std::int64_t ld, T* packed, std::int64_t rows, std::int64_t k) {
  for (std::int64_t i = 0; i < rows; ++i)
    std::memcpy(packed + i * k, strided + i * ld, static_cast<std::size_t>(k) * sizeof(T));
}
template <class T>
void unpack_rows(const T* packed, T* strided, std::int64_t ld, std::int64_t rows, std::int64_t k) {
  for (std::int64_t i = 0; i < rows; ++i)
    std::memcpy(strided + i * ld, packed + i * k, static_cast<std::size_t>(k) * sizeof(T));
}
}  // namespace

// Host blocks on a CUDA plan: X (and Y when beta reads it) up to device buffers of ld = k (packed on the
// host first when the caller's ld is larger), the product, Y back, then wait for it.
template <class T>
void BlockApply<T>::run_from_host(SpmmPlan<T>& plan, const T* x, std::int64_t ldx, T* y, std::int64_t ldy,
                                  std::int64_t k, T alpha, T beta, Stream stream) {
  const std::size_t xb = static_cast<std::size_t>(a_.cols * k) * sizeof(T);
  const std::size_t yb = static_cast<std::size_t>(a_.rows * k) * sizeof(T);
  plan_device::select_device(options_.device);
  if (dx_bytes_ < xb) dx_ = plan_device::DeviceArray(xb, "block apply X"), dx_bytes_ = xb;
  if (dy_bytes_ < yb) dy_ = plan_device::DeviceArray(yb, "block apply Y"), dy_bytes_ = yb;
  // Each upload from staged_ completes (pageable host memory) before the buffer is packed again.
  const auto up = [&](T* dst, const T* src, std::int64_t rows, std::int64_t ld, std::size_t bytes) {
    if (ld == k) return plan_device::upload(dst, src, bytes, stream);
    staged_.resize(static_cast<std::size_t>(rows * k));
    pack_rows(src, ld, staged_.data(), rows, k);
    plan_device::upload(dst, staged_.data(), bytes, stream);
    plan_device::synchronize(stream);
  };
  up(dx_.as<T>(), x, a_.cols, ldx, xb);
  if (beta != T(0)) up(dy_.as<T>(), y, a_.rows, ldy, yb);
  run_here(plan, dx_.as<T>(), k, dy_.as<T>(), k, k, alpha, beta, stream);
  if (ldy == k) {
    plan_device::download(y, dy_.as<T>(), yb, stream);
    plan_device::synchronize(stream);
    return;
  }
  staged_.resize(static_cast<std::size_t>(a_.rows * k));
  plan_device::download(staged_.data(), dy_.as<T>(), yb, stream);
  plan_device::synchronize(stream);
  unpack_rows(staged_.data(), y, ldy, a_.rows, k);  // the padding between k and ldy is not touched
}
#endif

template class BlockApply<float>;
template class BlockApply<double>;

}  // namespace spkit::plan_detail
