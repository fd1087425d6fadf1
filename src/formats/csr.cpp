// CSR conversions: COO -> CSR by counting sort (O(nnz)), columns sorted within rows, duplicates summed.
#include "spkit/formats/csr.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "spkit/error.hpp"

namespace spkit {

template <class T>
Csr<T> coo_to_csr(const Coo<T>& coo, bool sum_duplicates) {
  if (coo.rows < 0 || coo.cols < 0) throw Error("negative matrix dimensions");
  if (coo.cols > std::numeric_limits<std::int32_t>::max() || coo.rows > std::numeric_limits<std::int32_t>::max())
    throw Error("matrix has " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols) +
                " dimensions; spkit stores 32-bit row and column indices (at most 2147483647)");
  const std::int64_t nnz = coo.nnz();
  Csr<T> csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  csr.row_ptr.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
  // Count entries per row, then prefix-sum into row starts (64-bit offsets).
  for (std::int64_t k = 0; k < nnz; ++k) ++csr.row_ptr[static_cast<std::size_t>(coo.row_idx[k]) + 1];
  std::partial_sum(csr.row_ptr.begin(), csr.row_ptr.end(), csr.row_ptr.begin());
  std::vector<std::int32_t> cols(static_cast<std::size_t>(nnz));
  std::vector<T> vals(static_cast<std::size_t>(nnz));
  {
    std::vector<std::int64_t> next(csr.row_ptr.begin(), csr.row_ptr.end() - 1);
    for (std::int64_t k = 0; k < nnz; ++k) {
      std::int64_t dst = next[coo.row_idx[k]]++;
      cols[dst] = coo.col_idx[k];
      vals[dst] = coo.values[k];
    }
  }
  // Sort each row by column (stable, short rows: insertion sort; long: index sort), merge duplicates.
  std::vector<std::int64_t> new_len(static_cast<std::size_t>(coo.rows), 0);
#pragma omp parallel
  {
    std::vector<std::pair<std::int32_t, T>> tmp;
#pragma omp for schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < coo.rows; ++i) {
      const std::int64_t b = csr.row_ptr[i], e = csr.row_ptr[i + 1];
      bool sorted = true;
      for (std::int64_t k = b + 1; k < e; ++k)
        if (cols[k] <= cols[k - 1]) { sorted = false; break; }
      if (!sorted) {
        tmp.clear();
        for (std::int64_t k = b; k < e; ++k) tmp.emplace_back(cols[k], vals[k]);
        std::stable_sort(tmp.begin(), tmp.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
        std::int64_t out = b;
        for (std::size_t t = 0; t < tmp.size(); ++t) {
          if (sum_duplicates && out > b && cols[out - 1] == tmp[t].first) {
            vals[out - 1] += tmp[t].second;
          } else {
            cols[out] = tmp[t].first;
            vals[out] = tmp[t].second;
            ++out;
          }
        }
        new_len[i] = out - b;
      } else {
        new_len[i] = e - b;
      }
    }
  }
  // Compact rows that lost duplicates.
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < coo.rows; ++i) total += new_len[i];
  if (total == nnz) {
    csr.col_idx = std::move(cols);
    csr.values = std::move(vals);
    return csr;
  }
  csr.col_idx.resize(static_cast<std::size_t>(total));
  csr.values.resize(static_cast<std::size_t>(total));
  std::int64_t out = 0;
  for (std::int64_t i = 0; i < coo.rows; ++i) {
    const std::int64_t b = csr.row_ptr[i];
    std::copy_n(cols.begin() + b, new_len[i], csr.col_idx.begin() + out);
    std::copy_n(vals.begin() + b, new_len[i], csr.values.begin() + out);
    csr.row_ptr[i] = out;
    out += new_len[i];
  }
  csr.row_ptr[coo.rows] = out;
  return csr;
}

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

}  // namespace spkit
