#pragma once
// What the files of the extension spkit._spkit share: the nanobind includes, the conversions of arrays
// between NumPy/DLPack and the library's CSR, and one registration function per topic (module.cpp calls
// them). The public API and its documentation live in python/spkit/__init__.py.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit_py {

namespace nb = nanobind;

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

inline std::string dtype_name(const nb::dlpack::dtype& d) {
  const char* kind = d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float)  ? "float"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Int)  ? "int"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::UInt) ? "uint"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bool) ? "bool"
                     : d.code == static_cast<std::uint8_t>(nb::dlpack::dtype_code::Complex) ? "complex"
                                                                                               : "other";
  return std::string(kind) + std::to_string(d.bits);
}

inline const char* device_name(int device_type) {
  switch (device_type) {
    case nb::device::cpu::value: return "cpu";
    case nb::device::cuda::value: return "cuda";
    case nb::device::cuda_host::value: return "cuda_host";
    case nb::device::cuda_managed::value: return "cuda_managed";
    default: return "another device";
  }
}

// One per topic, each in its own file.
void register_exceptions(nb::module_& m);  // module.cpp
void register_io(nb::module_& m);          // io.cpp: readers, writers, the generator
void register_info(nb::module_& m);        // info.cpp: kernels, statistics, devices
void register_plan(nb::module_& m);        // plan.cpp: Plan and Precision
void register_bench(nb::module_& m);       // bench.cpp: the benchmark suite
void register_spgemm(nb::module_& m);      // spgemm.cpp: C = A B

}  // namespace spkit_py
