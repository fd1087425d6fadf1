// CSR conversions: COO -> CSR (input already in order: taken over; else the row-bucket sort of
// src/formats/row_buckets.cpp, O(nnz)), columns sorted within rows, duplicates summed in input order;
// CSR -> COO, value casts, and the structure checks and queries.
#include "spkit/formats/csr.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>

#include "formats/conversion_trace.hpp"
#include "formats/convert_util.hpp"
#include "formats/csr_detail.hpp"
#include "formats/row_buckets.hpp"
#include "platform/huge_pages.hpp"
#include "spkit/error.hpp"

namespace spkit {

namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

struct OrderCheck {
  bool in_range = true;
  bool sorted = true;      // (row, col) non-decreasing
  bool duplicates = false; // some (row, col) repeated (only meaningful when sorted)
};

template <class T>
OrderCheck check_order(const Coo<T>& coo, int threads) {
  const std::int64_t nnz = coo.nnz();
  const std::int32_t* r = coo.row_idx.data();
  const std::int32_t* c = coo.col_idx.data();
  const std::int64_t rows = coo.rows, cols = coo.cols;
  bool in_range = true, sorted = true, dups = false;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : in_range, sorted) reduction(|| : dups) if (nnz > 65536)
  for (std::int64_t k = 0; k < nnz; ++k) {
    in_range = in_range && r[k] >= 0 && r[k] < rows && c[k] >= 0 && c[k] < cols;
    if (k > 0) {
      const std::uint64_t prev = (std::uint64_t(std::uint32_t(r[k - 1])) << 32) | std::uint32_t(c[k - 1]);
      const std::uint64_t cur = (std::uint64_t(std::uint32_t(r[k])) << 32) | std::uint32_t(c[k]);
      sorted = sorted && prev <= cur;
      dups = dups || prev == cur;
    }
  }
  return {in_range, sorted, dups};
}

// The same for entries whose indices are known to be inside the matrix (the Matrix Market parser
// checked each one): only the order is left to find, and a file in random order shows it within its
// first entries, so the scan stops there (the full check read 72 MB for nothing: 14 ms of a 1-thread
// load of a 9 M-entry shuffled file).
template <class T>
OrderCheck check_order_of_checked_indices(const Coo<T>& coo, int threads) {
  const std::int64_t nnz = coo.nnz();
  const std::int32_t* r = coo.row_idx.data();
  const std::int32_t* c = coo.col_idx.data();
  constexpr std::int64_t kBlock = 1 << 16;
  const std::int64_t blocks = (nnz + kBlock - 1) / kBlock;
  std::atomic<bool> unsorted{false};
  bool dups = false;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(|| : dups) if (blocks > 1)
  for (std::int64_t bk = 0; bk < blocks; ++bk) {
    if (unsorted.load(std::memory_order_relaxed)) continue;
    const std::int64_t b = std::max<std::int64_t>(1, bk * kBlock), e = std::min(nnz, (bk + 1) * kBlock);
    bool sorted = true;
    for (std::int64_t k = b; k < e; ++k) {
      const std::uint64_t prev = (std::uint64_t(std::uint32_t(r[k - 1])) << 32) | std::uint32_t(c[k - 1]);
      const std::uint64_t cur = (std::uint64_t(std::uint32_t(r[k])) << 32) | std::uint32_t(c[k]);
      sorted = sorted && prev <= cur;
      dups = dups || prev == cur;
    }
    if (!sorted) unsorted.store(true, std::memory_order_relaxed);
  }
  return {true, !unsorted.load(), dups};
}

// Row pointers of entries already sorted by row: row_ptr[r] = first k with row[k] >= r.
void row_ptr_from_sorted(const std::int32_t* row, std::int64_t nnz, std::int64_t rows, std::int64_t* row_ptr,
                         int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (nnz > 65536)
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t prev = k == 0 ? -1 : row[k - 1];
    for (std::int64_t r = prev + 1; r <= row[k]; ++r) row_ptr[r] = k;
  }
  const std::int64_t last = nnz == 0 ? -1 : row[nnz - 1];
  for (std::int64_t r = last + 1; r <= rows; ++r) row_ptr[r] = nnz;
}

template <class T>
void check_dimensions(const Coo<T>& coo) {
  if (coo.rows < 0 || coo.cols < 0) throw Error("negative matrix dimensions");
  if (coo.cols > kInt32Max || coo.rows > kInt32Max)
    throw Error("matrix has " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols) +
                " dimensions; spkit stores 32-bit row and column indices (at most 2147483647)");
  if (coo.row_idx.size() != coo.values.size() || coo.col_idx.size() != coo.values.size())
    throw Error("COO: row_idx, col_idx and values differ in size");
}

template <class T>
Csr<T> coo_to_csr_impl(const Coo<T>& coo, bool sum_duplicates, Coo<T>* consumable, bool indices_checked) {
  check_dimensions(coo);
  const int threads = omp_get_max_threads();
  formats_detail::PhaseClock clock;
  const OrderCheck oc = indices_checked ? check_order_of_checked_indices(coo, threads) : check_order(coo, threads);
  if (!oc.in_range) throw Error("COO: an entry's row or column index is outside the matrix");
  clock.lap(indices_checked ? "order check (checked indices)" : "order and range check");
  if (oc.sorted && (!oc.duplicates || !sum_duplicates)) {
    // Already in CSR order (typical of files written by tools): row pointers from the row indices,
    // columns and values taken over as they are.
    Csr<T> csr;
    csr.rows = coo.rows;
    csr.cols = coo.cols;
    resize_huge(csr.row_ptr, static_cast<std::size_t>(coo.rows) + 1);
    row_ptr_from_sorted(coo.row_idx.data(), coo.nnz(), coo.rows, csr.row_ptr.data(), threads);
    if (consumable) {
      csr.col_idx = std::move(consumable->col_idx);
      csr.values = std::move(consumable->values);
    } else {
      resize_huge(csr.col_idx, coo.col_idx.size());
      resize_huge(csr.values, coo.values.size());
      const std::int64_t n = coo.nnz();
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 65536)
      for (std::int64_t k = 0; k < n; ++k) {
        csr.col_idx[k] = coo.col_idx[k];
        csr.values[k] = coo.values[k];
      }
    }
    return csr;
  }
  return formats_detail::bucket_sort_to_csr(coo, sum_duplicates, threads, consumable);
}

}  // namespace

template <class T>
Csr<T> coo_to_csr(const Coo<T>& coo, bool sum_duplicates) {
  return coo_to_csr_impl(coo, sum_duplicates, static_cast<Coo<T>*>(nullptr), false);
}

// Internal (declared in src/formats/csr_detail.hpp): the same conversion, free to take over coo's arrays; its
// indices were checked against the dimensions by the parser that made it.
Csr<double> coo_to_csr_consume(Coo<double>&& coo) { return coo_to_csr_impl(coo, true, &coo, true); }

template <class T>
Coo<T> csr_to_coo(const Csr<T>& csr) {
  Coo<T> coo;
  coo.rows = csr.rows;
  coo.cols = csr.cols;
  coo.row_idx.resize(csr.col_idx.size());
  coo.col_idx = csr.col_idx;
  coo.values = csr.values;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < csr.rows; ++i)
    for (std::int64_t k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) coo.row_idx[k] = static_cast<std::int32_t>(i);
  return coo;
}

template <class To, class From>
Csr<To> csr_cast(const Csr<From>& csr) {
  Csr<To> out;
  out.rows = csr.rows;
  out.cols = csr.cols;
  out.row_ptr = csr.row_ptr;
  out.col_idx = csr.col_idx;
  out.values.resize(csr.values.size());
  const std::int64_t n = csr.nnz();
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) out.values[k] = static_cast<To>(csr.values[k]);
  return out;
}

template <class T>
void check_csr(const Csr<T>& csr) {
  if (csr.rows < 0 || csr.cols < 0) throw Error("CSR: negative dimensions");
  if (csr.row_ptr.size() != static_cast<std::size_t>(csr.rows) + 1) throw Error("CSR: row_ptr has wrong size");
  if (csr.row_ptr[0] != 0) throw Error("CSR: row_ptr[0] != 0");
  if (csr.col_idx.size() != csr.values.size()) throw Error("CSR: col_idx and values differ in size");
  if (csr.row_ptr[csr.rows] != static_cast<std::int64_t>(csr.values.size()))
    throw Error("CSR: row_ptr[rows] != nnz");
  for (std::int64_t i = 0; i < csr.rows; ++i) {
    if (csr.row_ptr[i + 1] < csr.row_ptr[i]) throw Error("CSR: row_ptr decreases at row " + std::to_string(i));
    for (std::int64_t k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) {
      if (csr.col_idx[k] < 0 || csr.col_idx[k] >= csr.cols)
        throw Error("CSR: column out of range in row " + std::to_string(i));
      if (k > csr.row_ptr[i] && csr.col_idx[k] <= csr.col_idx[k - 1])
        throw Error("CSR: columns not strictly increasing in row " + std::to_string(i));
    }
  }
}

template <class T>
bool is_exactly_symmetric(const Csr<T>& a) {
  if (a.rows != a.cols) return false;
  const std::int64_t rows = detail::safe_rows(a);
  bool symmetric = true;
#pragma omp parallel for schedule(dynamic, 1024) reduction(&& : symmetric)
  for (std::int64_t i = 0; i < rows; ++i) {
    if (!symmetric) continue;
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int32_t j = a.col_idx[k];
      if (j <= i) continue;  // each pair is checked from its upper entry (counts below catch the rest)
      const auto first = a.col_idx.begin() + a.row_ptr[j], last = a.col_idx.begin() + a.row_ptr[j + 1];
      const auto it = std::lower_bound(first, last, static_cast<std::int32_t>(i));
      if (it == last || *it != i || !(a.values[static_cast<std::size_t>(it - a.col_idx.begin())] == a.values[k])) {
        symmetric = false;
        break;
      }
    }
  }
  if (!symmetric) return false;
  // Every upper entry has its mirror; the pattern is symmetric iff the lower triangle has no more.
  std::int64_t upper = 0, lower = 0;
#pragma omp parallel for schedule(static) reduction(+ : upper, lower)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      upper += a.col_idx[k] > i;
      lower += a.col_idx[k] < i;
    }
  return upper == lower;
}

template Csr<float> coo_to_csr(const Coo<float>&, bool);
template Csr<double> coo_to_csr(const Coo<double>&, bool);
template Coo<float> csr_to_coo(const Csr<float>&);
template Coo<double> csr_to_coo(const Csr<double>&);
template Csr<float> csr_cast<float, double>(const Csr<double>&);
template Csr<double> csr_cast<double, float>(const Csr<float>&);
template Csr<double> csr_cast<double, double>(const Csr<double>&);
template Csr<float> csr_cast<float, float>(const Csr<float>&);
template void check_csr(const Csr<float>&);
template void check_csr(const Csr<double>&);
template bool is_exactly_symmetric(const Csr<float>&);
template bool is_exactly_symmetric(const Csr<double>&);

}  // namespace spkit
