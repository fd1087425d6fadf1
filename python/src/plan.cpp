// spkit._spkit: Plan, one prepared SpMV (spkit/plan.hpp) over NumPy, CuPy or any DLPack arrays.
#include "ext_common.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <variant>

#include "spkit/kernel.hpp"
#include "spkit/plan.hpp"

namespace spkit_py {

using namespace nb::literals;

namespace {

enum class Where { host, cuda };

// Which product a call runs: A, A^T, or P A P^T on vectors in the plan's numbering.
enum class Op { forward, transpose, in_plan_numbering };

// Memory the CPU reads directly: ordinary and CUDA-pinned host memory.
bool is_host(int device_type) {
  return device_type == nb::device::cpu::value || device_type == nb::device::cuda_host::value;
}

// The array lives where the plan can read it (its device, or host memory).
template <class Array>
void check_place(const Array& v, const char* name, Where where, int device) {
  const int dt = v.device_type();
  const bool on_host = is_host(dt);
  const bool on_gpu = dt == nb::device::cuda::value || dt == nb::device::cuda_managed::value;
  if (where == Where::host && !on_host)
    throw nb::value_error((std::string(name) + " lives on " + device_name(dt) +
                           ", the plan runs on the CPU: make the plan with device=\"cuda\" or pass a NumPy array")
                              .c_str());
  if (where == Where::cuda && !on_gpu && !on_host)
    throw nb::value_error((std::string(name) + " lives on " + device_name(dt) + ", the plan runs on CUDA").c_str());
  if (where == Where::cuda && on_gpu && v.device_id() != device)
    throw nb::value_error((std::string(name) + " is on CUDA device " + std::to_string(v.device_id()) +
                           ", the plan on device " + std::to_string(device))
                              .c_str());
}

template <class Array>
void check_vector(const Array& v, const char* name, std::int64_t expected, nb::dlpack::dtype want, Where where,
                  int device, const char* length_is) {
  if (v.dtype() != want)
    throw nb::type_error((std::string(name) + " has dtype " + dtype_name(v.dtype()) + ", the plan computes in " +
                          dtype_name(want) + ": convert it (e.g. " + name + ".astype(" +
                          (want.bits == 32 ? "numpy.float32" : "numpy.float64") +
                          ")) or make the plan with precision=\"" + dtype_name(want) + "\"")
                             .c_str());
  if (v.ndim() != 1)
    throw nb::value_error((std::string(name) + " must be 1-dimensional, got " + std::to_string(v.ndim()) +
                           " dimensions")
                              .c_str());
  if (static_cast<std::int64_t>(v.shape(0)) != expected)
    throw nb::value_error((std::string(name) + " has " + std::to_string(v.shape(0)) + " elements, the matrix needs " +
                           std::to_string(expected) + " (its " + length_is + ")")
                              .c_str());
  if (v.shape(0) > 1 && v.stride(0) != 1)
    throw nb::value_error((std::string(name) + " is not contiguous (stride " + std::to_string(v.stride(0)) +
                           " elements): pass a contiguous copy, e.g. numpy.ascontiguousarray(" + name + ")")
                              .c_str());
  check_place(v, name, where, device);
}

template <class P>
struct plan_value;
template <class T>
struct plan_value<spkit::Plan<T>> {
  using type = T;
};

class PyPlan {
 public:
  PyPlan(spkit::Precision precision, std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr,
         HostVector<std::int32_t> indices, nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu> data,
         const std::string& kernel, const std::string& backend, int threads, int device, std::int64_t expected_products,
         const std::string& ordering, const std::string& tuning, double tuning_budget_ms,
         std::int64_t expected_transpose_products, bool vectors_in_plan_numbering)
      : precision_(precision) {
    spkit::PlanSettings s;
    s.kernel = kernel;
    if (backend == "cpu") s.backend = spkit::Backend::cpu;
    else if (backend == "cuda") s.backend = spkit::Backend::cuda;
    else throw nb::value_error(("device must be \"cpu\" or \"cuda[:N]\", got \"" + backend + "\"").c_str());
    s.threads = threads;
    s.device = device;
    s.expected_products = expected_products;
    s.ordering = ordering;
    s.tuning = tuning;
    s.tuning_budget_ms = tuning_budget_ms;
    s.expected_transpose_products = expected_transpose_products;
    s.vectors_in_plan_numbering = vectors_in_plan_numbering;
    where_ = s.backend == spkit::Backend::cuda ? Where::cuda : Where::host;
    device_ = device;
    if (precision == spkit::Precision::f32) make<float>(rows, cols, indptr, indices, data, s);
    else make<double>(rows, cols, indptr, indices, data, s);
  }

  // y = alpha*op(A)*x + beta*y in place (op(A) = A^T when transpose); returns y (the same object).
  nb::object apply(nb::handle x_obj, nb::handle y_obj, double alpha, double beta, bool transpose) {
    return apply_op(x_obj, y_obj, alpha, beta, transpose ? Op::transpose : Op::forward);
  }
  nb::object apply_op(nb::handle x_obj, nb::handle y_obj, double alpha, double beta, Op op) {
    const nb::ndarray<nb::ro> x = as_array(x_obj, "x");
    nb::ndarray<> y = as_writable(y_obj, "y");
    run(x, y, alpha, beta, op);
    return nb::borrow(y_obj);
  }

  // y = alpha*A*x (+ beta*y when y is given): y is allocated (NumPy) for host x when None.
  nb::object call(nb::handle x_obj, nb::handle y_obj, double alpha, double beta, bool transpose) {
    return call_op(x_obj, y_obj, alpha, beta, transpose ? Op::transpose : Op::forward);
  }
  // y' = alpha*(P A P^T)*x' (+ beta*y'), x' and y' in the plan's numbering (Plan<T>::apply_in_plan_numbering).
  nb::object matvec_in_plan_numbering(nb::handle x_obj, nb::handle y_obj, double alpha, double beta) {
    return call_op(x_obj, y_obj, alpha, beta, Op::in_plan_numbering);
  }
  nb::object call_op(nb::handle x_obj, nb::handle y_obj, double alpha, double beta, Op op) {
    if (!y_obj.is_none()) return apply_op(x_obj, y_obj, alpha, beta, op);
    const nb::ndarray<nb::ro> x = as_array(x_obj, "x");
    nb::object y_new = new_like(x_obj, x, op == Op::transpose ? cols() : rows());
    nb::ndarray<> y = nb::cast<nb::ndarray<>>(y_new);
    run(x, y, alpha, 0.0, op);
    return y_new;
  }

  // out = x in the plan's numbering (to_plan) or back in the caller's; out is allocated when None.
  nb::object permute(nb::handle x_obj, nb::handle out_obj, bool to_plan) {
    const nb::ndarray<nb::ro> x = as_array(x_obj, "x");
    const std::int64_t length = x.ndim() == 1 && static_cast<std::int64_t>(x.shape(0)) == cols() ? cols() : rows();
    nb::object out_new = out_obj.is_none() ? new_like(x_obj, x, length) : nb::borrow(out_obj);
    nb::ndarray<> out = as_writable(out_new, "out");
    std::visit([&](auto& p) { permute_typed(*p, x, out, length, to_plan); }, plan_);
    return out_new;
  }

  // Y = alpha*A*X + beta*Y on row-major blocks (Plan<T>::apply with k vectors); returns Y.
  nb::object apply_block(nb::handle x_obj, nb::handle y_obj, double alpha, double beta) {
    nb::ndarray<nb::ro> x;
    nb::ndarray<> y;
    if (!nb::try_cast(x_obj, x, false) || !nb::try_cast(y_obj, y, false))
      throw nb::type_error("X and Y must be NumPy, CuPy or other DLPack-capable 2-D arrays (Y writable)");
    std::visit([&](auto& p) { run_block(*p, x, y, alpha, beta); }, plan_);
    return nb::borrow(y_obj);
  }

  // The baseline of the binding's overhead (bench/python/python_bench.py): `reps` calls of
  // Plan<T>::apply in a C++ loop on the same arrays, after the same checks; total seconds.
  double time_cpp_apply(nb::handle x_obj, nb::handle y_obj, int reps, double alpha, double beta) {
    apply(x_obj, y_obj, alpha, beta, false);  // the binding's checks, and a warm-up
    nb::ndarray<nb::ro> x = nb::cast<nb::ndarray<nb::ro>>(x_obj);
    nb::ndarray<> y = nb::cast<nb::ndarray<>>(y_obj);
    nb::gil_scoped_release release;
    return std::visit(
        [&](auto& p) {
          using T = typename plan_value<std::remove_reference_t<decltype(*p)>>::type;
          const auto* xp = static_cast<const T*>(x.data());
          auto* yp = static_cast<T*>(y.data());
          std::lock_guard<std::mutex> lock(mutex_);
          const auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < reps; ++i) p->apply(xp, yp, static_cast<T>(alpha), static_cast<T>(beta));
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        },
        plan_);
  }

  std::int64_t rows() const { return std::visit([](auto& p) { return p->rows(); }, plan_); }
  std::int64_t cols() const { return std::visit([](auto& p) { return p->cols(); }, plan_); }
  std::string kernel() const { return std::visit([](auto& p) { return p->kernel(); }, plan_); }
  std::string backend() const {
    return std::string(spkit::to_string(std::visit([](auto& p) { return p->backend(); }, plan_)));
  }
  int device() const { return device_; }
  const char* dtype_str() const { return precision_ == spkit::Precision::f32 ? "float32" : "float64"; }
  double plan_ms() const { return std::visit([](auto& p) { return p->plan_ms(); }, plan_); }
  std::string transpose_detail() const {
    return std::visit([](auto& p) { return p->transpose_detail(); }, plan_);
  }
  std::uint64_t bytes_moved() const { return std::visit([](auto& p) { return p->bytes_moved(); }, plan_); }
  std::uint64_t bytes_moved_in_plan_numbering() const {
    return std::visit([](auto& p) { return p->bytes_moved_in_plan_numbering(); }, plan_);
  }
  bool renumbered() const { return std::visit([](auto& p) { return p->renumbered(); }, plan_); }
  // Plan row i is row numbering[i] of A: a new int64 NumPy array (empty when the plan is not renumbered).
  nb::object numbering() const {
    const std::vector<std::int64_t>& v =
        std::visit([](auto& p) -> const std::vector<std::int64_t>& { return p->numbering(); }, plan_);
    const std::size_t n = v.size();
    auto* buf = new std::int64_t[n > 0 ? n : 1];
    std::copy(v.begin(), v.end(), buf);
    nb::capsule owner(buf, [](void* q) noexcept { delete[] static_cast<std::int64_t*>(q); });
    return nb::cast(nb::ndarray<nb::numpy, std::int64_t, nb::ndim<1>>(buf, {n}, owner));
  }
  nb::dict selection() const {
    const spkit::Selection& s = std::visit([](auto& p) -> const spkit::Selection& { return p->selection(); }, plan_);
    nb::list candidates;
    for (const auto& c : s.candidates) {
      nb::dict d;
      d["kernel"] = c.kernel;
      d["applicable"] = c.applicable;
      d["spmv_ms"] = c.spmv_ms;
      d["convert_ms"] = c.convert_ms;
      d["note"] = c.note;
      candidates.append(d);
    }
    nb::dict out;
    out["kernel"] = s.kernel;
    out["reason"] = s.reason;
    out["threads"] = s.options.threads;
    out["candidates"] = candidates;
    out["ordering"] = s.ordering;
    out["ordering_reason"] = s.ordering_reason;
    out["reorder_ms"] = s.reorder_ms;
    out["tuning"] = s.tuning;
    out["tuning_ms"] = s.tuning_ms;
    out["tuning_budget_ms"] = s.tuning_budget_ms;
    nb::list measured;
    for (const auto& m : s.measured) {
      nb::dict d;
      d["kernel"] = m.kernel;
      d["ordering"] = m.ordering;
      d["predicted_ms"] = m.predicted_ms;
      d["measured_ms"] = m.measured_ms;
      d["note"] = m.note;
      measured.append(d);
    }
    out["measured"] = measured;
    return out;
  }

 private:
  template <class T>
  void make(std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr, HostVector<std::int32_t> indices,
            nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu> data, const spkit::PlanSettings& s) {
    if (data.dtype() != nb::dtype<T>())
      throw nb::type_error(("matrix data has dtype " + dtype_name(data.dtype()) + ", expected " +
                            dtype_name(nb::dtype<T>()))
                               .c_str());
    HostVector<T> values(data);
    spkit::Csr<T> a = csr_from_python<T>(rows, cols, indptr, indices, values);
    std::unique_ptr<spkit::Plan<T>> plan;
    {
      nb::gil_scoped_release release;
      plan = std::make_unique<spkit::Plan<T>>(a, s);
    }
    plan_ = std::move(plan);
  }

  static nb::ndarray<nb::ro> as_array(nb::handle obj, const char* name) {
    nb::ndarray<nb::ro> a;
    if (!nb::try_cast(obj, a, false))
      throw nb::type_error((std::string(name) + " must be a NumPy, CuPy or other DLPack-capable array, got " +
                            std::string(nb::type_name(obj.type()).c_str()))
                               .c_str());
    return a;
  }
  static nb::ndarray<> as_writable(nb::handle obj, const char* name) {
    nb::ndarray<> a;
    if (!nb::try_cast(obj, a, false))
      throw nb::type_error((std::string(name) + " must be a writable NumPy, CuPy or other DLPack-capable array, got " +
                            std::string(nb::type_name(obj.type()).c_str()))
                               .c_str());
    return a;
  }

  // A new vector of `length` elements of the plan's dtype where x lives: NumPy for host x, else x's own
  // library allocates it on x's device (spkit/_device.py).
  nb::object new_like(nb::handle x_obj, const nb::ndarray<nb::ro>& x, std::int64_t length) const {
    if (!is_host(x.device_type()))
      return nb::module_::import_("spkit._device").attr("empty_like_device")(x_obj, length, dtype_str());
    return precision_ == spkit::Precision::f32 ? new_host<float>(length) : new_host<double>(length);
  }

  template <class T>
  nb::object new_host(std::int64_t length) const {
    const std::size_t n = static_cast<std::size_t>(length);
    T* buf = new T[n > 0 ? n : 1];
    nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<T*>(p); });
    return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(buf, {n}, owner));
  }

  template <class T>
  void run_typed(spkit::Plan<T>& p, const nb::ndarray<nb::ro>& x, nb::ndarray<>& y, double alpha, double beta, Op op) {
    const bool transpose = op == Op::transpose;
    const nb::dlpack::dtype want = nb::dtype<T>();
    check_vector(x, "x", transpose ? p.rows() : p.cols(), want, where_, device_, transpose ? "rows, for A^T" : "columns");
    check_vector(y, "y", transpose ? p.cols() : p.rows(), want, where_, device_, transpose ? "columns, for A^T" : "rows");
    const bool x_host = is_host(x.device_type());
    const bool y_host = is_host(y.device_type());
    if (x_host != y_host)
      throw nb::value_error("x and y must both be host arrays or both be device arrays");
    const auto* xp = static_cast<const T*>(x.data());
    auto* yp = static_cast<T*>(y.data());
    const std::size_t xb = x.shape(0) * sizeof(T), yb = y.shape(0) * sizeof(T);
    const auto* x0 = reinterpret_cast<const char*>(xp);
    const auto* y0 = reinterpret_cast<const char*>(yp);
    if (xb && yb && x.device_id() == y.device_id() && x0 < y0 + yb && y0 < x0 + xb)
      throw nb::value_error("x and y overlap in memory: the product cannot be computed in place over x");
    // Short products stay under the GIL: releasing and taking it back costs more than they do.
    // The plan's scratch buffers make it one product at a time: calls from several Python threads queue
    // on this mutex (taken after the GIL is released, so no thread waits for it holding the GIL).
    const auto product = [&] {
      if (transpose) p.apply_transpose(xp, yp, static_cast<T>(alpha), static_cast<T>(beta));
      else if (op == Op::in_plan_numbering) p.apply_in_plan_numbering(xp, yp, static_cast<T>(alpha), static_cast<T>(beta));
      else p.apply(xp, yp, static_cast<T>(alpha), static_cast<T>(beta));
    };
    if (p.rows() + p.cols() + static_cast<std::int64_t>(p.bytes_moved() / 64) < (1 << 16)) {
      std::lock_guard<std::mutex> lock(mutex_);
      product();
    } else {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      product();
    }
  }

  void run(const nb::ndarray<nb::ro>& x, nb::ndarray<>& y, double alpha, double beta, Op op) {
    std::visit([&](auto& p) { run_typed(*p, x, y, alpha, beta, op); }, plan_);
  }

  template <class T>
  void permute_typed(spkit::Plan<T>& p, const nb::ndarray<nb::ro>& x, nb::ndarray<>& out, std::int64_t length,
                     bool to_plan) {
    const nb::dlpack::dtype want = nb::dtype<T>();
    const char* length_is = length == p.cols() ? "columns" : "rows";
    check_vector(x, "x", length, want, where_, device_, length_is);
    check_vector(out, "out", length, want, where_, device_, length_is);
    if (is_host(x.device_type()) != is_host(out.device_type()))
      throw nb::value_error("x and out must both be host arrays or both be device arrays");
    const auto* xp = static_cast<const T*>(x.data());
    auto* op = static_cast<T*>(out.data());
    nb::gil_scoped_release release;  // spkit::Error (e.g. x and out overlap) is translated after
    std::lock_guard<std::mutex> lock(mutex_);
    if (to_plan) p.to_plan_numbering(xp, op, length);
    else p.from_plan_numbering(xp, op, length);
  }

  // A row-major block of `rows` rows: 2-D, the plan's dtype, unit stride along a row, rows `ld` apart.
  template <class T, class Array>
  std::int64_t check_block(const Array& v, const char* name, std::int64_t rows, std::int64_t k) const {
    if (v.ndim() != 2) throw nb::value_error((std::string(name) + " must be 2-dimensional").c_str());
    if (v.dtype() != nb::dtype<T>())
      throw nb::type_error((std::string(name) + " has dtype " + dtype_name(v.dtype()) + ", the plan computes in " +
                            dtype_name(nb::dtype<T>()))
                               .c_str());
    if (static_cast<std::int64_t>(v.shape(0)) != rows || static_cast<std::int64_t>(v.shape(1)) != k)
      throw nb::value_error((std::string(name) + " has shape (" + std::to_string(v.shape(0)) + ", " +
                             std::to_string(v.shape(1)) + "), expected (" + std::to_string(rows) + ", " +
                             std::to_string(k) + ")")
                                .c_str());
    if ((k > 1 && v.stride(1) != 1) || (rows > 1 && v.stride(0) < k))
      throw nb::value_error((std::string(name) + " must be row-major with contiguous rows (C order): pass "
                             "numpy.ascontiguousarray(" + name + ")")
                                .c_str());
    check_place(v, name, where_, device_);
    return rows > 1 ? static_cast<std::int64_t>(v.stride(0)) : k;
  }

  template <class T>
  void run_block(spkit::Plan<T>& p, const nb::ndarray<nb::ro>& x, nb::ndarray<>& y, double alpha, double beta) {
    const std::int64_t k = y.ndim() == 2 ? static_cast<std::int64_t>(y.shape(1)) : 0;
    const std::int64_t ldx = check_block<T>(x, "X", p.cols(), k);
    const std::int64_t ldy = check_block<T>(y, "Y", p.rows(), k);
    if (is_host(x.device_type()) != is_host(y.device_type()))
      throw nb::value_error("X and Y must both be host arrays or both be device arrays");
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    p.apply(static_cast<const T*>(x.data()), ldx, static_cast<T*>(y.data()), ldy, k, static_cast<T>(alpha),
            static_cast<T>(beta));
  }

  std::mutex mutex_;
  spkit::Precision precision_;
  Where where_ = Where::host;
  int device_ = 0;
  std::variant<std::unique_ptr<spkit::Plan<float>>, std::unique_ptr<spkit::Plan<double>>> plan_;
};

}  // namespace

void register_plan(nb::module_& m) {
  nb::class_<PyPlan>(m, "Plan")
      .def(nb::init<spkit::Precision, std::int64_t, std::int64_t, HostVector<std::int64_t>, HostVector<std::int32_t>,
                    nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>, const std::string&,
                    const std::string&, int, int, std::int64_t, const std::string&, const std::string&, double, std::int64_t,
                    bool>(),
           "precision"_a, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a, "kernel"_a, "backend"_a, "threads"_a,
           "device"_a, "expected_products"_a, "ordering"_a, "tuning"_a, "tuning_budget_ms"_a,
           "expected_transpose_products"_a = 0, "vectors_in_plan_numbering"_a = false)
      .def("__call__", &PyPlan::call, "x"_a, "y"_a.none() = nb::none(), "alpha"_a = 1.0, "beta"_a = 0.0,
           "transpose"_a = false,
           "y = alpha*A*x + beta*y. Without y, returns a new array (A x times alpha) on x's device; with y,\n"
           "updates y in place and returns it. x, y: 1-D contiguous arrays of the plan's dtype.\n"
           "transpose=True: A^T instead of A (the plan needs expected_transpose_products > 0).")
      .def("apply", &PyPlan::apply, "x"_a, "y"_a, "alpha"_a = 1.0, "beta"_a = 0.0, "transpose"_a = false,
           "y = alpha*A*x + beta*y (A^T with transpose=True) in place (y required); returns y.")
      .def("apply_block", &PyPlan::apply_block, "X"_a, "Y"_a, "alpha"_a = 1.0, "beta"_a = 0.0,
           "Y = alpha*A*X + beta*Y in place on row-major (C-order) 2-D blocks of k vectors; returns Y.")
      .def("matvec_in_plan_numbering", &PyPlan::matvec_in_plan_numbering, "x"_a, "y"_a.none() = nb::none(),
           "alpha"_a = 1.0, "beta"_a = 0.0,
           "y' = alpha*(P A P^T)*x' + beta*y' with x', y' in the plan's numbering (see to_plan_numbering): the\n"
           "kernel alone, no gather or scatter per product. Without y, returns a new array.")
      .def("to_plan_numbering", [](PyPlan& p, nb::handle x, nb::handle out) { return p.permute(x, out, true); },
           "x"_a, "out"_a.none() = nb::none(),
           "x in the plan's numbering: out[i] = x[numbering[i]] (a copy when the plan is not renumbered).\n"
           "x: rows or cols elements; out (allocated when None) must not overlap x. Returns out.")
      .def("from_plan_numbering", [](PyPlan& p, nb::handle x, nb::handle out) { return p.permute(x, out, false); },
           "x"_a, "out"_a.none() = nb::none(),
           "The inverse of to_plan_numbering: out[numbering[i]] = x[i]. Returns out.")
      .def("_time_cpp_apply", &PyPlan::time_cpp_apply, "x"_a, "y"_a, "reps"_a, "alpha"_a = 1.0, "beta"_a = 0.0)
      .def_prop_ro("rows", &PyPlan::rows)
      .def_prop_ro("cols", &PyPlan::cols)
      .def_prop_ro("kernel", &PyPlan::kernel)
      .def_prop_ro("backend", &PyPlan::backend)
      .def_prop_ro("device", &PyPlan::device)
      .def_prop_ro("dtype", &PyPlan::dtype_str)
      .def_prop_ro("plan_ms", &PyPlan::plan_ms)
      .def_prop_ro("bytes_moved", &PyPlan::bytes_moved)
      .def_prop_ro("bytes_moved_in_plan_numbering", &PyPlan::bytes_moved_in_plan_numbering)
      .def_prop_ro("renumbered", &PyPlan::renumbered)
      .def_prop_ro("numbering", &PyPlan::numbering)
      .def_prop_ro("transpose_detail", &PyPlan::transpose_detail)
      .def_prop_ro("selection", &PyPlan::selection);

  nb::enum_<spkit::Precision>(m, "Precision").value("float32", spkit::Precision::f32).value("float64", spkit::Precision::f64);
}

}  // namespace spkit_py
