// The plan-once API (spkit/plan.hpp): pick or look up a kernel, build its SpmvPlan once, then apply
// y = alpha*A*x + beta*y on host or device pointers: one run of the kernel, which computes alpha and
// beta itself (no scratch vector, no second pass).
#include "spkit/plan.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/config.hpp"
#include "plan/block_apply.hpp"
#include "plan/permuted_spmv.hpp"
#include "plan/transpose_plan.hpp"
#include "spkit/error.hpp"
#include "spkit/reorder.hpp"
#ifdef SPKIT_HAVE_CUDA
#include "plan/plan_device.hpp"
#endif

namespace spkit {
namespace {

// Every kernel name of `backend` (the list a NotApplicable for a bad name shows).
std::string kernel_names(Backend backend) {
  std::string names;
  for (const KernelInfo& k : registry().all()) {
    if (k.backend != backend) continue;
    if (!names.empty()) names += ", ";
    names += k.name;
  }
  return names.empty() ? "none in this build" : names;
}

const KernelInfo& named_kernel(const std::string& name, Backend backend) {
  const KernelInfo* k = registry().find(name);
  if (!k)
    throw NotApplicable("no kernel named '" + name + "'; kernels for backend " + std::string(to_string(backend)) +
                        ": auto, " + kernel_names(backend));
  if (k->backend != backend)
    throw NotApplicable("kernel '" + name + "' runs on " + std::string(to_string(k->backend)) + ", the plan's backend is " +
                        std::string(to_string(backend)) + "; kernels for it: auto, " + kernel_names(backend));
  return *k;
}


}  // namespace

template <class T>
struct Plan<T>::Impl {
  std::int64_t rows = 0, cols = 0;
  Backend backend = Backend::cpu;
  int device = 0;
  Selection selection;
  std::unique_ptr<SpmvPlan<T>> spmv;
  int threads = 1;
  plan_detail::RenumberedPlan<T>* renumbered = nullptr;  // spmv's view when it keeps P A P^T
  std::vector<std::int64_t> numbering;                   // renumbered->old_of_new(), widened; empty if none
  std::unique_ptr<SpmvPlan<T>> transposed;  // y = alpha A^T x + beta y; null when none are expected
  plan_detail::TransposeMode transpose_mode = plan_detail::TransposeMode::none;
  double plan_ms = 0;
  std::unique_ptr<plan_detail::BlockApply<T>> block;  // blocks of k >= 2 vectors, through an SpMM kernel
  std::vector<T> column_x, column_y;  // blocks of one strided vector on host pointers, contiguous
#ifdef SPKIT_HAVE_CUDA
  // Host-pointer applies and one-vector block applies: x and y on the device (made on first need), each of
  // max(rows, cols) elements so transposed products use them too.
  plan_device::DeviceArray dx, dy;

  // `kernel` maps n_in elements of x to n_out of y (rows/cols, or swapped for A^T).
  void apply_cuda(SpmvPlan<T>& kernel, std::int64_t n_in, std::int64_t n_out, const T* x, T* y, T alpha, T beta,
                  Stream stream);
  void make_device_buffers();
  bool on_device(const void* x, const void* y, std::int64_t n_in, std::int64_t n_out, const char* what) const;
#endif
  void run(bool transpose, const T* x, T* y, T alpha, T beta, Stream stream);
  // One product of `kernel` (n_in elements of x to n_out of y), on host or device pointers.
  void run_kernel(SpmvPlan<T>& kernel, std::int64_t n_in, std::int64_t n_out, const char* what, const T* x, T* y,
                  T alpha, T beta, Stream stream);
  void permute(bool to_plan, const T* src, T* dst, std::int64_t n, Stream stream);
};

template <class T>
Plan<T>::Plan(const Csr<T>& a, const PlanSettings& settings) : impl_(std::make_unique<Impl>()) {
  const auto start = std::chrono::steady_clock::now();
  Impl& p = *impl_;
  p.rows = a.rows;
  p.cols = a.cols;
  p.backend = settings.backend;
  p.device = settings.device;
  if (settings.threads < 0) throw Error("Plan: threads must be >= 0 (0: all the process may use)");
  if (settings.expected_products < 1) throw Error("Plan: expected_products must be >= 1");
  const int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();

  PlanOptions options;
  options.threads = threads;
  options.device = settings.device;
  if (settings.kernel == "auto") {
    PlanSettings resolved = settings;
    resolved.threads = threads;
    p.spmv = plan_auto(a, resolved, p.selection);
  } else {
    const KernelInfo& k = named_kernel(settings.kernel, settings.backend);
    p.selection.kernel = k.name;
    p.selection.options = options;
    p.selection.reason = "named by the caller";
    if (settings.ordering == "auto" || settings.ordering == "none") {
      p.spmv = k.template factory<T>()(a, options);
    } else {  // a named ordering: the named kernel runs on P A P^T
      const Ordering ordering = parse_ordering(settings.ordering);
      const auto t0 = std::chrono::steady_clock::now();
      const Permutation perm = compute_ordering(a, ordering);
      const Csr<T> renumbered = permute_symmetric(a, perm);
      p.selection.reorder_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      p.spmv = plan_detail::make_permuted_plan<T>(k.template factory<T>()(renumbered, options), perm, ordering, threads,
                                                  settings.device);
      p.selection.ordering = settings.ordering;
      p.selection.ordering_reason = "ordering " + settings.ordering + " requested";
    }
  }
  p.threads = threads;
  p.renumbered = plan_detail::as_renumbered(*p.spmv);
  if (p.renumbered) p.numbering.assign(p.renumbered->old_of_new().begin(), p.renumbered->old_of_new().end());
  p.transposed = plan_detail::make_transpose_plan(a, settings, p.selection, p.transpose_mode);
  p.block = std::make_unique<plan_detail::BlockApply<T>>(a, settings.backend, threads, settings.device, p.renumbered);
  p.plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

template <class T>
Plan<T>::~Plan() = default;
template <class T>
Plan<T>::Plan(Plan&&) noexcept = default;
template <class T>
Plan<T>& Plan<T>::operator=(Plan&&) noexcept = default;

#ifdef SPKIT_HAVE_CUDA
template <class T>
void Plan<T>::Impl::make_device_buffers() {
  const std::size_t bytes = static_cast<std::size_t>(std::max(rows, cols)) * sizeof(T);
  if (dx.empty()) dx = plan_device::DeviceArray(bytes, "plan x");
  if (dy.empty()) dy = plan_device::DeviceArray(bytes, "plan y");
}

// True when x and y are device pointers, false when both are host pointers; throws when they differ.
template <class T>
bool Plan<T>::Impl::on_device(const void* x, const void* y, std::int64_t n_in, std::int64_t n_out,
                              const char* what) const {
  plan_device::select_device(device);
  // Without inputs x is never read (and may be null): y alone says where the vectors live.
  const plan_device::PointerKind ky = n_out > 0 ? plan_device::pointer_kind(y) : plan_device::PointerKind::host;
  const plan_device::PointerKind kx = n_in > 0 ? plan_device::pointer_kind(x) : ky;
  if (n_out > 0 && kx != ky)
    throw Error(std::string(what) + ": x and y must both be host or both be device pointers (x is " +
                std::string(kx == plan_device::PointerKind::host ? "host" : "device") + ", y is " +
                std::string(ky == plan_device::PointerKind::host ? "host" : "device") + ")");
  return ky == plan_device::PointerKind::device;
}

template <class T>
void Plan<T>::Impl::apply_cuda(SpmvPlan<T>& kernel, std::int64_t n_in, std::int64_t n_out, const T* x, T* y,
                               T alpha, T beta, Stream stream) {
  if (n_out == 0) return;  // nothing to write
  if (on_device(x, y, n_in, n_out, "Plan::apply")) {  // no copies, nothing waited for
    kernel.run(alpha, x, beta, y, stream);
    return;
  }
  // Host pointers: x (and y when beta reads it) go up through buffers allocated once, y comes back.
  const std::size_t xb = static_cast<std::size_t>(n_in) * sizeof(T), yb = static_cast<std::size_t>(n_out) * sizeof(T);
  make_device_buffers();
  plan_device::upload(dx.as<T>(), x, xb, stream);
  if (beta != T(0)) plan_device::upload(dy.as<T>(), y, yb, stream);
  kernel.run(alpha, dx.as<T>(), beta, dy.as<T>(), stream);
  plan_device::download(y, dy.as<T>(), yb, stream);
  plan_device::synchronize(stream);  // y is the caller's once apply returns; a fault surfaces here
}
#endif

template <class T>
void Plan<T>::Impl::run(bool transpose, const T* x, T* y, T alpha, T beta, Stream stream) {
  if (transpose && !transposed)
    throw Error("Plan::apply_transpose: the plan was built for no transposed products; set "
                "PlanSettings::expected_transpose_products to how many you will run");
  if (transpose) return run_kernel(*transposed, rows, cols, "Plan::apply_transpose", x, y, alpha, beta, stream);
  run_kernel(*spmv, cols, rows, "Plan::apply", x, y, alpha, beta, stream);
}

template <class T>
void Plan<T>::Impl::run_kernel(SpmvPlan<T>& kernel, std::int64_t n_in, std::int64_t n_out, const char* what,
                               const T* x, T* y, T alpha, T beta, Stream stream) {
  if ((n_in > 0 && !x) || (n_out > 0 && !y)) throw Error(std::string(what) + ": null x or y");
  if (backend == Backend::cpu) return kernel.run(alpha, x, beta, y, stream);
#ifdef SPKIT_HAVE_CUDA
  return apply_cuda(kernel, n_in, n_out, x, y, alpha, beta, stream);
#else
  throw DeviceError(what, "this build of spkit has no CUDA support");
#endif
}

// dst = P src (to_plan) or P^T src, for a vector of the plan's rows or columns.
template <class T>
void Plan<T>::Impl::permute(bool to_plan, const T* src, T* dst, std::int64_t n, Stream stream) {
  const std::string what = to_plan ? "Plan::to_plan_numbering" : "Plan::from_plan_numbering";
  if (n != rows && n != cols)
    throw Error(what + ": the vector has " + std::to_string(n) + " elements, the plan's vectors have " +
                std::to_string(cols) + " (x) or " + std::to_string(rows) + " (y)");
  if (n == 0) return;
  if (!src || !dst) throw Error(what + ": null vector");
  const auto s0 = reinterpret_cast<std::uintptr_t>(src), d0 = reinterpret_cast<std::uintptr_t>(dst);
  const std::uintptr_t bytes = static_cast<std::uintptr_t>(n) * sizeof(T);
  if (s0 < d0 + bytes && d0 < s0 + bytes)
    throw Error(what + ": the two vectors overlap in memory; a permutation cannot be applied in place");
#ifdef SPKIT_HAVE_CUDA
  if (backend == Backend::cuda && on_device(src, dst, n, n, what.c_str())) {
    if (!renumbered) return plan_device::copy(dst, src, static_cast<std::size_t>(bytes), stream);
    return to_plan ? renumbered->gather(src, dst, stream) : renumbered->scatter(src, T(0), dst, stream);
  }
#else
  (void)stream;
#endif
  if (!renumbered) {
    std::copy(src, src + n, dst);
    return;
  }
  if (to_plan) plan_detail::gather_host(renumbered->old_of_new(), src, dst, threads);
  else plan_detail::scatter_host(renumbered->new_of_old(), src, T(0), dst, threads);
}

template <class T>
void Plan<T>::apply(const T* x, T* y, T alpha, T beta) {
  impl_->run(false, x, y, alpha, beta, Stream{});
}

template <class T>
void Plan<T>::apply(const T* x, T* y, T alpha, T beta, Stream stream) {
  impl_->run(false, x, y, alpha, beta, stream);
}

template <class T>
void Plan<T>::apply_transpose(const T* x, T* y, T alpha, T beta) {
  impl_->run(true, x, y, alpha, beta, Stream{});
}

template <class T>
void Plan<T>::apply_transpose(const T* x, T* y, T alpha, T beta, Stream stream) {
  impl_->run(true, x, y, alpha, beta, stream);
}

template <class T>
void Plan<T>::apply_in_plan_numbering(const T* x, T* y, T alpha, T beta) {
  apply_in_plan_numbering(x, y, alpha, beta, Stream{});
}

template <class T>
void Plan<T>::apply_in_plan_numbering(const T* x, T* y, T alpha, T beta, Stream stream) {
  Impl& p = *impl_;
  p.run_kernel(plan_detail::kernel_in_plan_numbering(*p.spmv), p.cols, p.rows, "Plan::apply_in_plan_numbering", x, y,
               alpha, beta, stream);
}

template <class T>
void Plan<T>::to_plan_numbering(const T* user, T* plan, std::int64_t n, Stream stream) {
  impl_->permute(true, user, plan, n, stream);
}

template <class T>
void Plan<T>::from_plan_numbering(const T* plan, T* user, std::int64_t n, Stream stream) {
  impl_->permute(false, plan, user, n, stream);
}

template <class T>
bool Plan<T>::renumbered() const { return impl_->renumbered != nullptr; }
template <class T>
std::string Plan<T>::block_kernel() const { return impl_->block->kernel(); }
template <class T>
bool Plan<T>::block_renumbered() const { return impl_->block->in_plan_numbering(); }
template <class T>
const std::vector<std::int64_t>& Plan<T>::numbering() const { return impl_->numbering; }

template <class T>
void Plan<T>::apply(const T* x, std::int64_t ldx, T* y, std::int64_t ldy, std::int64_t k, T alpha, T beta,
                    Stream stream) {
  Impl& p = *impl_;
  if (k < 0) throw Error("Plan::apply: the block has k = " + std::to_string(k) + " vectors, must be >= 0");
  if (ldx < k || ldy < k)
    throw Error("Plan::apply: row-major blocks need ldx >= k and ldy >= k (k " + std::to_string(k) + ", ldx " +
                std::to_string(ldx) + ", ldy " + std::to_string(ldy) + ")");
  if (k == 0 || p.rows == 0) return;
  if ((p.cols > 0 && !x) || !y) throw Error("Plan::apply: null X or Y");
  bool device_pointers = false;
#ifdef SPKIT_HAVE_CUDA
  if (p.backend == Backend::cuda) device_pointers = p.on_device(x, y, p.cols, p.rows, "Plan::apply");
#endif
  // k >= 2: one SpMM product (block_apply.hpp). k = 1: the plan's own SpMV kernel, chosen for this
  // matrix (renumbering included), on the column gathered into a contiguous vector when it is strided.
  if (k > 1) return p.block->run(x, ldx, y, ldy, k, alpha, beta, stream, device_pointers);
  if (ldx == 1 && ldy == 1) return p.run(false, x, y, alpha, beta, stream);
#ifdef SPKIT_HAVE_CUDA
  if (device_pointers) {  // the column gathered on the device by a strided copy, run, copied back into Y
    p.make_device_buffers();
    T* dx = p.dx.template as<T>();
    T* dy = p.dy.template as<T>();
    plan_device::copy_strided(dx, 1, x, ldx, sizeof(T), p.cols, stream);
    if (beta != T(0)) plan_device::copy_strided(dy, 1, y, ldy, sizeof(T), p.rows, stream);
    p.spmv->run(alpha, dx, beta, dy, stream);
    plan_device::copy_strided(y, ldy, dy, 1, sizeof(T), p.rows, stream);
    return;
  }
#endif
  p.column_x.resize(static_cast<std::size_t>(p.cols));
  p.column_y.resize(static_cast<std::size_t>(p.rows));
  for (std::int64_t j = 0; j < p.cols; ++j) p.column_x[j] = x[j * ldx];
  if (beta != T(0))
    for (std::int64_t i = 0; i < p.rows; ++i) p.column_y[i] = y[i * ldy];
  p.run(false, p.column_x.data(), p.column_y.data(), alpha, beta, stream);
  for (std::int64_t i = 0; i < p.rows; ++i) y[i * ldy] = p.column_y[i];
}

template <class T>
std::int64_t Plan<T>::rows() const { return impl_->rows; }
template <class T>
std::int64_t Plan<T>::cols() const { return impl_->cols; }
template <class T>
const std::string& Plan<T>::kernel() const { return impl_->selection.kernel; }
template <class T>
Backend Plan<T>::backend() const { return impl_->backend; }
template <class T>
const Selection& Plan<T>::selection() const { return impl_->selection; }
template <class T>
double Plan<T>::plan_ms() const { return impl_->plan_ms; }
template <class T>
std::uint64_t Plan<T>::bytes_moved() const { return impl_->spmv->bytes_moved(); }
template <class T>
std::uint64_t Plan<T>::bytes_moved_in_plan_numbering() const {
  return plan_detail::kernel_in_plan_numbering(*impl_->spmv).bytes_moved();
}
template <class T>
std::string Plan<T>::transpose_detail() const {
  const Impl& p = *impl_;
  std::string text = plan_detail::to_string(p.transpose_mode);
  if (p.transposed && !p.transposed->detail().empty()) text += " (" + p.transposed->detail() + ")";
  return text;
}

template class Plan<float>;
template class Plan<double>;

}  // namespace spkit
