#pragma once
// Helpers shared by the CPU kernels: thread count, nnz-balanced row partition, byte accounting,
// the vectorised row dot product, the fused alpha/beta epilogue and a first-touch aligned array.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit::cpu {

inline int plan_threads(int requested) { return std::max(1, requested); }

// Contiguous row ranges with balanced non-zero counts: the cut after a part falls where
// the running count passes part * nnz / parts; empty ranges are dropped. Returns the range
// boundaries (first 0, last rows).
inline std::vector<std::int64_t> nnz_balanced_rows(const std::vector<std::int64_t>& row_ptr, std::int64_t rows,
                                                   int parts) {
  std::vector<std::int64_t> cut{0};
  if (rows <= 0) return cut;  // no ranges at all
  const std::int64_t nnz = row_ptr[rows];
  for (int p = 1; p < parts; ++p) {
    const std::int64_t target = nnz * p / parts;
    // First row starting at or past the target: the rows before it hold at most `target` entries.
    const std::int64_t r = std::lower_bound(row_ptr.begin(), row_ptr.begin() + rows, target) - row_ptr.begin();
    if (r > cut.back() && r < rows) cut.push_back(r);
  }
  cut.push_back(rows);
  return cut;
}

// Bytes a CSR SpMV must move: row pointers, indices and values once, x once, y once.
template <class T>
std::uint64_t csr_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::size_t row_ptr_bytes = 8) {
  return static_cast<std::uint64_t>(rows + 1) * row_ptr_bytes + static_cast<std::uint64_t>(nnz) * (4 + sizeof(T)) +
         static_cast<std::uint64_t>(cols + rows) * sizeof(T);
}

// sum_{k in [b, e)} val[k] * x[col[k]], vectorised (gather) with a reduction.
template <class T, class Off>
inline T row_dot(const T* __restrict val, const std::int32_t* __restrict col, Off b, Off e, const T* __restrict x) {
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (Off k = b; k < e; ++k) sum += val[k] * x[col[k]];
  return sum;
}

// The epilogue of y = alpha*A*x + beta*y, applied where a kernel writes a row's finished sum. Which form
// it takes is a template parameter, fixed once per run by with_epilogue, so no row loop carries the
// alpha/beta branches: `assign` (alpha = 1, beta = 0: the plain product, not one instruction more than
// y = A x), `scale` (beta = 0) and `axpby`. Only `axpby` reads y, so a NaN in y never meets 0 * NaN.
enum class EpilogueKind { assign, scale, axpby };

template <class T, EpilogueKind Kind>
struct Epilogue {
  static constexpr EpilogueKind kind = Kind;
  static constexpr bool reads_y = Kind == EpilogueKind::axpby;
  T alpha, beta;
  void write(T& yi, T sum) const {
    if constexpr (Kind == EpilogueKind::assign) yi = sum;
    else if constexpr (Kind == EpilogueKind::scale) yi = alpha * sum;
    else yi = alpha * sum + beta * yi;
  }
  // The same on a vector V of consecutive rows starting at yp (V: a GCC vector of T, simd_vec.hpp).
  template <class V>
  void write_vec(T* yp, V sum) const {
    V out;
    if constexpr (Kind == EpilogueKind::assign) out = sum;
    else if constexpr (Kind == EpilogueKind::scale) out = alpha * sum;
    else {
      V old;
      std::memcpy(&old, yp, sizeof old);
      out = alpha * sum + beta * old;
    }
    std::memcpy(yp, &out, sizeof out);
  }
};

// Calls body(Epilogue<T, kind>) with the kind alpha and beta ask for: the row loop inside `body` (a
// generic lambda) is compiled once for each.
template <class T, class Body>
inline void with_epilogue(T alpha, T beta, Body&& body) {
  if (beta != T(0)) body(Epilogue<T, EpilogueKind::axpby>{alpha, beta});
  else if (alpha != T(1)) body(Epilogue<T, EpilogueKind::scale>{alpha, beta});
  else body(Epilogue<T, EpilogueKind::assign>{alpha, beta});
}

// 64-byte aligned array whose pages are not touched on allocation, so the threads that first write
// them own them (first-touch placement on NUMA machines).
template <class T>
class FirstTouchArray {
 public:
  FirstTouchArray() = default;
  explicit FirstTouchArray(std::size_t n) : n_(n) {
    if (n == 0) return;
    // (Transparent huge pages were tried: no measurable SpMV gain here, and 2-3x the plan time.)
    const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    ptr_.reset(static_cast<T*>(p));
  }
  T* data() { return ptr_.get(); }
  const T* data() const { return ptr_.get(); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return ptr_.get()[i]; }
  const T& operator[](std::size_t i) const { return ptr_.get()[i]; }

 private:
  struct Free { void operator()(T* p) const { std::free(p); } };
  std::unique_ptr<T, Free> ptr_;
  std::size_t n_ = 0;
};

inline std::string percent(double part, double whole) {
  if (whole <= 0) return "0%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * part / whole);
  return buf;
}

}  // namespace spkit::cpu
