// spkit._spkit: the nanobind extension behind the `spkit` Python package. A thin layer: every call goes
// to the library (readers, registry, Plan<T>, statistics, generator, benchmark runner); this file only
// moves arrays across (NumPy arrays adopt the library's vectors without a copy, DLPack arrays are used
// in place), checks what Python hands over, releases the GIL around long calls and maps spkit's
// exceptions to Python's. The public API and its documentation live in python/spkit/__init__.py.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "spkit/bench/machine.hpp"
#include "spkit/bench/report.hpp"
#include "spkit/bench/results.hpp"
#include "spkit/bench/runner.hpp"
#include "spkit/bench/suite.hpp"
#include "spkit/config.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/gen.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"
#include "spkit/kernel.hpp"
#include "spkit/plan.hpp"
#include "spkit/stats.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ---- exceptions: spkit.Error and its subclasses, each also a subclass of the builtin a Python user
// would catch (ParseError is a ValueError, TooLarge a MemoryError, ...).
PyObject* g_error = nullptr;
PyObject* g_parse_error = nullptr;
PyObject* g_too_large = nullptr;
PyObject* g_not_applicable = nullptr;
PyObject* g_device_error = nullptr;

PyObject* new_exception(nb::module_& m, const char* name, std::initializer_list<PyObject*> bases, const char* doc) {
  nb::object tuple = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(bases.size())));
  Py_ssize_t i = 0;
  for (PyObject* b : bases) {
    Py_INCREF(b);
    PyTuple_SET_ITEM(tuple.ptr(), i++, b);
  }
  const std::string qualified = std::string("spkit.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, tuple.ptr(), nullptr);
  if (!type) throw nb::python_error();
  m.attr(name) = nb::handle(type);  // the module keeps a reference; the globals borrow it
  return type;
}

void register_exceptions(nb::module_& m) {
  g_error = new_exception(m, "Error", {PyExc_RuntimeError}, "Base of every spkit error.");
  g_parse_error = new_exception(m, "ParseError", {g_error, PyExc_ValueError},
                                "Malformed matrix file; the message starts with file:line.");
  g_too_large = new_exception(m, "TooLarge", {g_error, PyExc_MemoryError},
                              "A structure would need more memory than allowed or than its index type addresses.");
  g_not_applicable = new_exception(m, "NotApplicable", {g_error, PyExc_ValueError},
                                   "The kernel does not apply to this matrix (or no such kernel).");
  g_device_error = new_exception(m, "DeviceError", {g_error, PyExc_RuntimeError},
                                 "A failed CUDA or cuSPARSE call, or no usable GPU.");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const spkit::ParseError& e) {
      PyErr_SetString(g_parse_error, e.what());
    } catch (const spkit::TooLarge& e) {
      PyErr_SetString(g_too_large, e.what());
    } catch (const spkit::NotApplicable& e) {
      PyErr_SetString(g_not_applicable, e.what());
    } catch (const spkit::DeviceError& e) {
      PyErr_SetString(g_device_error, e.what());
    } catch (const spkit::Error& e) {
      PyErr_SetString(g_error, e.what());
    }
  });
}

// ---- arrays

// A NumPy array that owns `v` (moved to the heap, freed with the array): no copy of the data.
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> adopt(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  nb::capsule owner(heap, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(heap->data(), {heap->size()}, owner);
}

// (indptr int64, indices int32, data, rows, cols): what the Python side turns into a csr_array.
template <class T>
nb::tuple csr_to_python(spkit::Csr<T>&& a) {
  const std::int64_t rows = a.rows, cols = a.cols;
  auto indptr = adopt(std::move(a.row_ptr));
  auto indices = adopt(std::move(a.col_idx));
  auto data = adopt(std::move(a.values));
  return nb::make_tuple(indptr, indices, data, rows, cols);
}

template <class T>
using HostVector = nb::ndarray<const T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// The library's CSR from the three arrays of a scipy CSR matrix (the Python side has made them int64,
// int32 and T). One copy: Csr owns its vectors. Inconsistent structure raises ValueError.
template <class T>
spkit::Csr<T> csr_from_python(std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr,
                              HostVector<std::int32_t> indices, HostVector<T> data) {
  if (rows < 0 || cols < 0) throw nb::value_error("matrix shape must be non-negative");
  if (static_cast<std::int64_t>(indptr.shape(0)) != rows + 1)
    throw nb::value_error(("indptr has " + std::to_string(indptr.shape(0)) + " entries, a " + std::to_string(rows) +
                           "-row CSR matrix needs " + std::to_string(rows + 1)).c_str());
  if (indices.shape(0) != data.shape(0))
    throw nb::value_error("indices and data of the CSR matrix differ in length");
  spkit::Csr<T> a;
  a.rows = rows;
  a.cols = cols;
  {
    nb::gil_scoped_release release;
    a.row_ptr.assign(indptr.data(), indptr.data() + indptr.shape(0));
    a.col_idx.assign(indices.data(), indices.data() + indices.shape(0));
    a.values.assign(data.data(), data.data() + data.shape(0));
    try {
      spkit::check_csr(a);
    } catch (const spkit::Error& e) {
      nb::gil_scoped_acquire acquire;
      throw nb::value_error((std::string("not a valid CSR matrix: ") + e.what()).c_str());
    }
  }
  return a;
}

std::string dtype_name(const nb::dlpack::dtype& d) {
  const char* kind = d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)  ? "float"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)  ? "int"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt) ? "uint"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bool) ? "bool"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex) ? "complex"
                                                                                               : "other";
  return std::string(kind) + std::to_string(d.bits);
}

const char* device_name(int device_type) {
  switch (device_type) {
    case nb::device::cpu::value: return "cpu";
    case nb::device::cuda::value: return "cuda";
    case nb::device::cuda_host::value: return "cuda_host";
    case nb::device::cuda_managed::value: return "cuda_managed";
    default: return "another device";
  }
}

// ---- the plan

enum class Where { host, cuda };

// Memory the CPU reads directly: ordinary and CUDA-pinned host memory.
bool is_host(int device_type) {
  return device_type == nb::device::cpu::value || device_type == nb::device::cuda_host::value;
}

template <class Array>
void check_vector(const Array& v, const char* name, std::int64_t expected, nb::dlpack::dtype want, Where where,
                  int device) {
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
                           std::to_string(expected) + (name[0] == 'x' ? " (its columns)" : " (its rows)"))
                              .c_str());
  if (v.shape(0) > 1 && v.stride(0) != 1)
    throw nb::value_error((std::string(name) + " is not contiguous (stride " + std::to_string(v.stride(0)) +
                           " elements): pass a contiguous copy, e.g. numpy.ascontiguousarray(" + name + ")")
                              .c_str());
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
         const std::string& kernel, const std::string& backend, int threads, int device, std::int64_t expected_products)
      : precision_(precision) {
    spkit::PlanSettings s;
    s.kernel = kernel;
    if (backend == "cpu") s.backend = spkit::Backend::cpu;
    else if (backend == "cuda") s.backend = spkit::Backend::cuda;
    else throw nb::value_error(("device must be \"cpu\" or \"cuda[:N]\", got \"" + backend + "\"").c_str());
    s.threads = threads;
    s.device = device;
    s.expected_products = expected_products;
    where_ = s.backend == spkit::Backend::cuda ? Where::cuda : Where::host;
    device_ = device;
    if (precision == spkit::Precision::f32) make<float>(rows, cols, indptr, indices, data, s);
    else make<double>(rows, cols, indptr, indices, data, s);
  }

  // y = alpha*A*x + beta*y in place; returns y (the same object).
  nb::object apply(nb::handle x_obj, nb::handle y_obj, double alpha, double beta) {
    nb::ndarray<nb::ro> x;
    nb::ndarray<> y;
    if (!nb::try_cast(x_obj, x, false))
      throw nb::type_error(("x must be a NumPy, CuPy or other DLPack-capable array, got " +
                            std::string(nb::type_name(x_obj.type()).c_str()))
                               .c_str());
    if (!nb::try_cast(y_obj, y, false))
      throw nb::type_error(("y must be a writable NumPy, CuPy or other DLPack-capable array, got " +
                            std::string(nb::type_name(y_obj.type()).c_str()))
                               .c_str());
    run(x, y, alpha, beta);
    return nb::borrow(y_obj);
  }

  // y = alpha*A*x (+ beta*y when y is given): y is allocated (NumPy) for host x when None.
  nb::object call(nb::handle x_obj, nb::handle y_obj, double alpha, double beta) {
    if (!y_obj.is_none()) return apply(x_obj, y_obj, alpha, beta);
    nb::ndarray<nb::ro> x;
    if (!nb::try_cast(x_obj, x, false))
      throw nb::type_error(("x must be a NumPy, CuPy or other DLPack-capable array, got " +
                            std::string(nb::type_name(x_obj.type()).c_str()))
                               .c_str());
    if (!is_host(x.device_type())) {
      // A device x: ask x's own library for y on the same device (spkit/_device.py).
      nb::object y_new = nb::module_::import_("spkit._device").attr("empty_like_device")(x_obj, rows(), dtype_str());
      return apply(x_obj, y_new, alpha, beta);
    }
    nb::object y_new = precision_ == spkit::Precision::f32 ? new_host<float>() : new_host<double>();
    nb::ndarray<> y = nb::cast<nb::ndarray<>>(y_new);
    run(x, y, alpha, 0.0);
    return y_new;
  }

  // The baseline of the binding's overhead (bench/python/python_bench.py): `reps` calls of
  // Plan<T>::apply in a C++ loop on the same arrays, after the same checks; total seconds.
  double time_cpp_apply(nb::handle x_obj, nb::handle y_obj, int reps, double alpha, double beta) {
    apply(x_obj, y_obj, alpha, beta);  // the binding's checks, and a warm-up
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
  std::uint64_t bytes_moved() const { return std::visit([](auto& p) { return p->bytes_moved(); }, plan_); }
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

  template <class T>
  nb::object new_host() const {
    const std::size_t n = static_cast<std::size_t>(rows());
    T* buf = new T[n > 0 ? n : 1];
    nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<T*>(p); });
    return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(buf, {n}, owner));
  }

  template <class T>
  void run_typed(spkit::Plan<T>& p, const nb::ndarray<nb::ro>& x, nb::ndarray<>& y, double alpha, double beta) {
    const nb::dlpack::dtype want = nb::dtype<T>();
    check_vector(x, "x", p.cols(), want, where_, device_);
    check_vector(y, "y", p.rows(), want, where_, device_);
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
    if (p.rows() + p.cols() + static_cast<std::int64_t>(p.bytes_moved() / 64) < (1 << 16)) {
      std::lock_guard<std::mutex> lock(mutex_);
      p.apply(xp, yp, static_cast<T>(alpha), static_cast<T>(beta));
    } else {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mutex_);
      p.apply(xp, yp, static_cast<T>(alpha), static_cast<T>(beta));
    }
  }

  void run(const nb::ndarray<nb::ro>& x, nb::ndarray<>& y, double alpha, double beta) {
    std::visit([&](auto& p) { run_typed(*p, x, y, alpha, beta); }, plan_);
  }

  std::mutex mutex_;
  spkit::Precision precision_;
  Where where_ = Where::host;
  int device_ = 0;
  std::variant<std::unique_ptr<spkit::Plan<float>>, std::unique_ptr<spkit::Plan<double>>> plan_;
};

// ---- statistics

nb::dict stats_dict(const spkit::MatrixStats& s) {
  nb::dict d;
  d["rows"] = s.rows;
  d["cols"] = s.cols;
  d["nnz"] = s.nnz;
  d["row_nnz_min"] = s.row_nnz_min;
  d["row_nnz_max"] = s.row_nnz_max;
  d["row_nnz_mean"] = s.row_nnz_mean;
  d["row_nnz_std"] = s.row_nnz_std;
  d["empty_rows"] = s.empty_rows;
  d["max_diag_distance"] = s.max_diag_distance;
  d["hub_column_share"] = s.hub_column_share;
  d["diagonals"] = s.diagonals;
  d["symmetric"] = s.symmetric;
  d["ell_width"] = s.ell_width;
  d["ell_padding_ratio"] = s.ell_padding_ratio;
  d["hack_size"] = s.hack_size;
  d["hll_padding_ratio"] = s.hll_padding_ratio;
  d["hyb_width"] = s.hyb_width;
  d["hyb_coo_entries"] = s.hyb_coo_entries;
  d["bm_blocks"] = s.bm_blocks;
  d["bm_nnz_per_block"] = s.bm_nnz_per_block;
  nb::list hist;  // [k - 1] = blocks holding k non-zeros, k = 1..64
  for (int k = 1; k <= 64; ++k) hist.append(s.bm_block_histogram[static_cast<std::size_t>(k)]);
  d["bm_block_histogram"] = hist;
  nb::dict bytes;
  const std::pair<const char*, const spkit::MatrixStats::Bytes*> formats[] = {
      {"coo", &s.bytes_coo}, {"csr", &s.bytes_csr}, {"ell", &s.bytes_ell},
      {"hll", &s.bytes_hll}, {"hyb", &s.bytes_hyb}, {"bmsparse", &s.bytes_bmsparse}};
  for (const auto& [name, b] : formats) {
    nb::dict per;
    per["float64"] = b->f64;
    per["float32"] = b->f32;
    bytes[name] = per;
  }
  d["bytes"] = bytes;
  return d;
}

// ---- benchmark (the loop of `spkit bench`, over the same library calls, without files unless `out`)

struct Interrupted {};  // not a std::exception: the runner's catch clauses let it through

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

spkit::DeviceSelect parse_device_select(const std::string& s) {
  if (s == "cpu") return spkit::DeviceSelect::cpu;
  if (s == "gpu" || s == "cuda") return spkit::DeviceSelect::gpu;
  if (s == "all") return spkit::DeviceSelect::all;
  throw nb::value_error(("device must be \"cpu\", \"gpu\" or \"all\", got \"" + s + "\"").c_str());
}

std::string bench(const std::vector<std::string>& matrices, const std::string& kernels, const std::string& device,
                  const std::vector<std::string>& precisions, std::vector<int> threads, int reps, int warmup,
                  const std::string& size, bool generated, std::uint64_t seed, const std::string& out,
                  bool measure_bandwidth, nb::object progress, const std::string& command) {
  using namespace spkit::bench;
  const auto wall_start = std::chrono::steady_clock::now();
  const spkit::DeviceSelect dev = parse_device_select(device);
  std::vector<spkit::Precision> precs;
  for (const auto& p : precisions) {
    if (p == "float64") precs.push_back(spkit::Precision::f64);
    else if (p == "float32") precs.push_back(spkit::Precision::f32);
    else throw nb::value_error(("unknown precision \"" + p + "\"").c_str());
  }
  if (precs.empty()) throw nb::value_error("precision selects nothing");
  if (threads.empty()) threads = default_thread_sweep(omp_get_num_procs());
  for (int t : threads)
    if (t < 1) throw nb::value_error("threads must be positive integers");
  if (reps < 1) throw nb::value_error("reps must be at least 1");
  if (warmup < 0) throw nb::value_error("warmup must be >= 0");
  const bool gpu_available = spkit::gpu_count() > 0;
  if (dev == spkit::DeviceSelect::gpu && !gpu_available)
    throw spkit::DeviceError("bench", std::string("device=\"gpu\", but no usable GPU (built with CUDA: ") +
                                          (spkit::cuda_compiled() ? "yes" : "no") + ")");
  const auto selected = select_kernels(kernels, dev, gpu_available);
  if (selected.empty())
    throw spkit::NotApplicable("no kernel matches kernels=\"" + kernels + "\" on this machine (see spkit.kernels())");
  std::string names;
  for (const auto* k : selected) names += (names.empty() ? "" : ",") + k->name;

  std::vector<SuiteMatrix> suite;
  if (generated) suite = generated_suite(parse_suite_size(size), seed);
  for (auto& m : matrix_files(matrices)) suite.push_back(std::move(m));
  make_names_unique(suite);
  if (suite.empty()) throw nb::value_error("nothing to run: generated=False and no matrices");

  BenchResults results;
  results.spkit_version = SPKIT_VERSION;
  results.git_commit = "unknown";
  results.created_utc = utc_now();
  results.command = command;
  auto join_threads = [&] {
    std::string s;
    for (int t : threads) s += (s.empty() ? "" : ",") + std::to_string(t);
    return s;
  };
  std::string prec_names;
  for (const auto& p : precisions) prec_names += (prec_names.empty() ? "" : ",") + p;
  results.options = {{"size", generated ? size : "none"}, {"kernels", kernels},          {"device", device},
                     {"precision", prec_names},            {"threads", join_threads()}, {"reps", std::to_string(reps)},
                     {"warmup", std::to_string(warmup)},   {"seed", std::to_string(seed)}};

  // Ctrl-C: the callback below runs before every cell with the GIL taken back and asks Python whether a
  // signal arrived; the Python error is kept and raised once the run has stopped cleanly.
  std::unique_ptr<nb::python_error> pending;
  auto check_python = [&](const nb::dict* event) {
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      pending = std::make_unique<nb::python_error>();
      throw Interrupted{};
    }
    if (event && !progress.is_none()) {
      try {
        progress(*event);
      } catch (nb::python_error& e) {
        pending = std::make_unique<nb::python_error>(std::move(e));
        throw Interrupted{};
      }
    }
  };

  {
    nb::gil_scoped_release release;
    try {
      const bool tiny = generated && parse_suite_size(size) == SuiteSize::tiny;
      results.machine = collect_machine_info(measure_bandwidth, 0, tiny ? (std::uint64_t(128) << 20) : 0);
      const std::uint64_t memory_budget = results.machine.memory_bytes / 4;
      for (std::size_t i = 0; i < suite.size(); ++i) {
        const SuiteMatrix& sm = suite[i];
        check_python(nullptr);
        LoadedMatrix loaded = load_suite_matrix(sm, !sm.generated);
        MatrixRecord record;
        record.name = sm.name;
        record.family = sm.family;
        record.source = sm.source;
        record.generated = sm.generated;
        record.load_ms = loaded.load_ms;
        record.file_mb = loaded.file_mb;
        record.parse_mb_s = loaded.parse_mb_s;
        record.stats = spkit::compute_stats(loaded.a);
        results.matrices.push_back(record);
        spkit::SpmvRunOptions o;
        o.kernels = names;
        o.device = dev;
        o.precisions = precs;
        o.threads = threads;
        o.timing.warmup = warmup;
        o.timing.reps = reps;
        o.include_comparison = true;
        o.add_baselines = true;
        o.seed = seed;
        o.memory_budget_bytes = memory_budget;
        o.on_cell = [&](const spkit::KernelInfo& k, spkit::Precision p, int t, std::size_t index, std::size_t total) {
          if (progress.ptr() == Py_None) return check_python(nullptr);
          nb::gil_scoped_acquire acquire;
          nb::dict event;
          event["matrix"] = sm.name;
          event["matrix_index"] = i;
          event["matrices"] = suite.size();
          event["kernel"] = k.name;
          event["precision"] = std::string(spkit::to_string(p));
          event["threads"] = t;
          event["cell"] = index;
          event["cells"] = total;
          check_python(&event);
        };
        for (auto& r : spkit::run_spmv(loaded.a, o)) results.rows.push_back(BenchRow{sm.name, std::move(r)});
        if (!out.empty()) write_results(out, results);
      }
      results.complete = true;
    } catch (const Interrupted&) {
      results.complete = false;  // rows of the matrices finished so far are kept
    }
    results.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    if (!out.empty()) write_results(out, results);
  }
  if (pending) throw *pending;
  return results_to_json(results);
}

// ---- readers and writers

nb::tuple read_matrix(const std::string& path) {
  spkit::MmHeader header;
  spkit::Csr<double> a;
  {
    nb::gil_scoped_release release;
    a = spkit::load_matrix(path, &header);
  }
  nb::dict h;
  h["field"] = std::string(spkit::to_string(header.field));
  h["symmetry"] = std::string(spkit::to_string(header.symmetry));
  h["stored_entries"] = header.stored_entries;
  nb::tuple arrays = csr_to_python(std::move(a));
  return nb::make_tuple(arrays, h);
}

void write_matrix(const std::string& path, std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr,
                  HostVector<std::int32_t> indices, HostVector<double> data, bool spkb, const std::string& comment) {
  spkit::Csr<double> a = csr_from_python<double>(rows, cols, indptr, indices, data);
  nb::gil_scoped_release release;
  if (spkb) spkit::write_spkb(path, a);
  else spkit::write_matrix_market(path, a, spkit::MmField::real, comment);
}

}  // namespace

NB_MODULE(_spkit, m) {
  m.doc() = "spkit's C++ library, bound with nanobind (use the `spkit` package, not this module)";
  register_exceptions(m);
  m.attr("__version__") = SPKIT_VERSION;

  m.def("read_matrix", &read_matrix, "path"_a);
  m.def("write_matrix", &write_matrix, "path"_a, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a, "spkb"_a,
        "comment"_a);

  m.def("kernels", [] {
    nb::list out;
    for (const spkit::KernelInfo& k : spkit::registry().all()) {
      nb::dict d;
      d["name"] = k.name;
      d["format"] = std::string(spkit::to_string(k.format));
      d["backend"] = std::string(spkit::to_string(k.backend));
      d["parallel"] = k.parallel;
      d["comparison"] = k.comparison;
      d["auto"] = static_cast<bool>(k.cost);
      d["description"] = k.description;
      out.append(d);
    }
    return out;
  });

  m.def("info", [](std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr,
                   HostVector<std::int32_t> indices, HostVector<double> data, int hack_size) {
    spkit::Csr<double> a = csr_from_python<double>(rows, cols, indptr, indices, data);
    spkit::MatrixStats s;
    {
      nb::gil_scoped_release release;
      s = spkit::compute_stats(a, hack_size);
    }
    return stats_dict(s);
  }, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a, "hack_size"_a);

  m.def("generator_families", &spkit::generator_families);
  m.def("generate", [](const std::string& family, std::int64_t n, std::int64_t cols, int points, int dof, int per_row,
                       int bandwidth, double zipf_s, std::uint64_t seed) {
    spkit::GenOptions o;
    o.family = family;
    o.n = n;
    o.cols = cols;
    o.points = points;
    o.dof = dof;
    o.per_row = per_row;
    o.bandwidth = bandwidth;
    o.zipf_s = zipf_s;
    o.seed = seed;
    spkit::Csr<double> a;
    {
      nb::gil_scoped_release release;
      a = spkit::generate(o);
    }
    return csr_to_python(std::move(a));
  }, "family"_a, "n"_a, "cols"_a, "points"_a, "dof"_a, "per_row"_a, "bandwidth"_a, "zipf_s"_a, "seed"_a);

  m.def("cuda_compiled", &spkit::cuda_compiled);
  m.def("gpu_count", &spkit::gpu_count);
  m.def("bench_row_keys", &spkit::bench::row_keys);
  m.def("bench", &bench, "matrices"_a, "kernels"_a, "device"_a, "precisions"_a, "threads"_a, "reps"_a, "warmup"_a,
        "size"_a, "generated"_a, "seed"_a, "out"_a, "measure_bandwidth"_a, "progress"_a.none(), "command"_a);

  nb::class_<PyPlan>(m, "Plan")
      .def(nb::init<spkit::Precision, std::int64_t, std::int64_t, HostVector<std::int64_t>, HostVector<std::int32_t>,
                    nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>, const std::string&,
                    const std::string&, int, int, std::int64_t>(),
           "precision"_a, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a, "kernel"_a, "backend"_a, "threads"_a,
           "device"_a, "expected_products"_a)
      .def("__call__", &PyPlan::call, "x"_a, "y"_a.none() = nb::none(), "alpha"_a = 1.0, "beta"_a = 0.0,
           "y = alpha*A*x + beta*y. Without y, returns a new array (A x times alpha) on x's device; with y,\n"
           "updates y in place and returns it. x, y: 1-D contiguous arrays of the plan's dtype.")
      .def("apply", &PyPlan::apply, "x"_a, "y"_a, "alpha"_a = 1.0, "beta"_a = 0.0,
           "y = alpha*A*x + beta*y in place (y required); returns y.")
      .def("_time_cpp_apply", &PyPlan::time_cpp_apply, "x"_a, "y"_a, "reps"_a, "alpha"_a = 1.0, "beta"_a = 0.0)
      .def_prop_ro("rows", &PyPlan::rows)
      .def_prop_ro("cols", &PyPlan::cols)
      .def_prop_ro("kernel", &PyPlan::kernel)
      .def_prop_ro("backend", &PyPlan::backend)
      .def_prop_ro("device", &PyPlan::device)
      .def_prop_ro("dtype", &PyPlan::dtype_str)
      .def_prop_ro("plan_ms", &PyPlan::plan_ms)
      .def_prop_ro("bytes_moved", &PyPlan::bytes_moved)
      .def_prop_ro("selection", &PyPlan::selection);

  nb::enum_<spkit::Precision>(m, "Precision").value("float32", spkit::Precision::f32).value("float64", spkit::Precision::f64);
}
