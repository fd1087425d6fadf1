// spkit._spkit: spgemm(), one sparse matrix-matrix product C = A B through the library's entry point
// (spkit/spgemm.hpp: the kernel named or auto's candidates with their fallback, row batches under a
// memory limit). Returns C's CSR arrays (adopted by NumPy without a copy) and what ran.
#include "ext_common.hpp"

#include <nanobind/stl/tuple.h>

#include "spkit/spgemm.hpp"

namespace spkit_py {

using namespace nb::literals;

namespace {

template <class T>
nb::tuple run_spgemm(std::int64_t a_rows, std::int64_t a_cols, HostVector<std::int64_t> a_ptr,
                     HostVector<std::int32_t> a_idx, HostVector<T> a_val, bool same, std::int64_t b_rows,
                     std::int64_t b_cols, HostVector<std::int64_t> b_ptr, HostVector<std::int32_t> b_idx,
                     HostVector<T> b_val, const spkit::SpgemmRequest& request) {
  const spkit::Csr<T> a = csr_from_python<T>(a_rows, a_cols, a_ptr, a_idx, a_val);
  spkit::Csr<T> b_own;
  if (!same) b_own = csr_from_python<T>(b_rows, b_cols, b_ptr, b_idx, b_val);
  const spkit::Csr<T>& b = same ? a : b_own;  // the same object: kernels convert it once
  if (a.cols != b.rows)
    throw nb::value_error(("cannot multiply: A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) +
                           " but B is " + std::to_string(b.rows) + "x" + std::to_string(b.cols) +
                           " (A's columns must equal B's rows)")
                              .c_str());
  spkit::SpgemmRun<T> run;
  {
    nb::gil_scoped_release release;
    run = spkit::spgemm(a, b, request);
  }
  nb::list refused;
  for (const auto& r : run.refused) refused.append(nb::make_tuple(r.kernel, r.reason));
  nb::dict what;
  what["kernel"] = run.kernel;
  what["reason"] = run.reason;
  what["refused"] = refused;
  what["batches"] = run.plan.batches();
  what["detail"] = run.result.detail;
  what["summary"] = run.summary();
  return nb::make_tuple(csr_to_python(std::move(run.result.c)), what);
}

}  // namespace

template <class T>
void def_spgemm(nb::module_& m, const char* name) {
  m.def(
      name,
      [](std::int64_t a_rows, std::int64_t a_cols, HostVector<std::int64_t> a_ptr, HostVector<std::int32_t> a_idx,
         HostVector<T> a_val, bool same, std::int64_t b_rows, std::int64_t b_cols, HostVector<std::int64_t> b_ptr,
         HostVector<std::int32_t> b_idx, HostVector<T> b_val, const std::string& kernel, const std::string& backend,
         int threads, int device, std::uint64_t memory_limit) {
        spkit::SpgemmRequest request;
        request.kernel = kernel;
        if (backend == "cpu") request.backend = spkit::Backend::cpu;
        else if (backend == "cuda") request.backend = spkit::Backend::cuda;
        else throw nb::value_error(("device must be \"cpu\" or \"cuda[:N]\", got \"" + backend + "\"").c_str());
        request.threads = threads;
        request.device = device;
        request.memory_limit = memory_limit;
        return run_spgemm<T>(a_rows, a_cols, a_ptr, a_idx, a_val, same, b_rows, b_cols, b_ptr, b_idx, b_val, request);
      },
      "a_rows"_a, "a_cols"_a, "a_indptr"_a, "a_indices"_a, "a_data"_a, "same"_a, "b_rows"_a, "b_cols"_a, "b_indptr"_a,
      "b_indices"_a, "b_data"_a, "kernel"_a, "backend"_a, "threads"_a, "device"_a, "memory_limit"_a,
      "C = A B (A A when same): ((indptr, indices, data, rows, cols) of C, dict of what ran).");
}

void register_spgemm(nb::module_& m) {
  def_spgemm<float>(m, "spgemm_f32");
  def_spgemm<double>(m, "spgemm_f64");
  m.def("parse_memory_bytes", [](const std::string& text) { return spkit::parse_memory_bytes(text, "memory_limit"); },
        "text"_a, "\"512M\", \"2G\", ... in bytes (the syntax of SPKIT_DEVICE_MEMORY_LIMIT).");
}

}  // namespace spkit_py
