// spkit._spkit: the nanobind extension behind the `spkit` Python package. A thin layer: every call goes
// to the library (readers, registry, Plan<T>, statistics, generator) or the harness (the benchmark
// suite); the extension only moves arrays across (NumPy arrays adopt the library's vectors without a
// copy, DLPack arrays are used in place), checks what Python hands over, releases the GIL around long
// calls and maps spkit's exceptions to Python's. This file: the module and its exceptions; the topics
// are in io.cpp, info.cpp, plan.cpp and bench.cpp.
#include "ext_common.hpp"

#include <initializer_list>

#include "spkit/config.hpp"

namespace spkit_py {

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

}  // namespace

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


}  // namespace spkit_py

NB_MODULE(_spkit, m) {
  m.doc() = "spkit's C++ library, bound with nanobind (use the `spkit` package, not this module)";
  spkit_py::register_exceptions(m);
  m.attr("__version__") = SPKIT_VERSION;
  spkit_py::register_io(m);
  spkit_py::register_info(m);
  spkit_py::register_bench(m);
  spkit_py::register_plan(m);
  spkit_py::register_spgemm(m);
}
