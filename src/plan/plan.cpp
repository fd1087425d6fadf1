// The plan-once API (spkit/plan.hpp): pick or look up a kernel, build its SpmvPlan once, then apply
// y = alpha*A*x + beta*y on host or device pointers: one run of the kernel, which computes alpha and
// beta itself (no scratch vector, no second pass).
#include "spkit/plan.hpp"

#include <omp.h>

#include <chrono>
#include <string>
#include <vector>

#include "spkit/config.hpp"
#include "plan/permuted_spmv.hpp"
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
  double plan_ms = 0;
#ifdef SPKIT_HAVE_CUDA
  plan_device::DeviceArray dx, dy;  // host-pointer applies: x and y on the device (made on first need)

  void apply_cuda(const T* x, T* y, T alpha, T beta, Stream stream);
#endif
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
void Plan<T>::Impl::apply_cuda(const T* x, T* y, T alpha, T beta, Stream stream) {
  if (rows == 0) return;  // nothing to write
  plan_device::select_device(device);
  const std::size_t xb = static_cast<std::size_t>(cols) * sizeof(T), yb = static_cast<std::size_t>(rows) * sizeof(T);
  // Without columns x is never read (and may be null): y alone says where the vectors live.
  const plan_device::PointerKind ky = plan_device::pointer_kind(y);
  const plan_device::PointerKind kx = cols > 0 ? plan_device::pointer_kind(x) : ky;
  if (kx != ky)
    throw Error("Plan::apply: x and y must both be host or both be device pointers (x is " +
                std::string(kx == plan_device::PointerKind::host ? "host" : "device") + ", y is " +
                std::string(ky == plan_device::PointerKind::host ? "host" : "device") + ")");
  if (kx == plan_device::PointerKind::device) {  // no copies, nothing waited for
    spmv->run(alpha, x, beta, y, stream);
    return;
  }
  // Host pointers: x (and y when beta reads it) go up through buffers allocated once, y comes back.
  if (dx.empty()) dx = plan_device::DeviceArray(xb, "plan x");
  if (dy.empty()) dy = plan_device::DeviceArray(yb, "plan y");
  plan_device::upload(dx.as<T>(), x, xb, stream);
  if (beta != T(0)) plan_device::upload(dy.as<T>(), y, yb, stream);
  spmv->run(alpha, dx.as<T>(), beta, dy.as<T>(), stream);
  plan_device::download(y, dy.as<T>(), yb, stream);
  plan_device::synchronize(stream);  // y is the caller's once apply returns; a fault surfaces here
}
#endif

template <class T>
void Plan<T>::apply(const T* x, T* y, T alpha, T beta) {
  apply(x, y, alpha, beta, Stream{});
}

template <class T>
void Plan<T>::apply(const T* x, T* y, T alpha, T beta, Stream stream) {
  Impl& p = *impl_;
  if ((p.cols > 0 && !x) || (p.rows > 0 && !y)) throw Error("Plan::apply: null x or y");
  if (p.backend == Backend::cpu) return p.spmv->run(alpha, x, beta, y, stream);
#ifdef SPKIT_HAVE_CUDA
  return p.apply_cuda(x, y, alpha, beta, stream);
#else
  throw DeviceError("Plan::apply", "this build of spkit has no CUDA support");
#endif
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

template class Plan<float>;
template class Plan<double>;

}  // namespace spkit
