// CPU SpGEMM on CSR: Gustavson's row-by-row product, OpenMP over rows, in two phases:
//   symbolic  the exact number of distinct columns of each row of C, then a prefix sum;
//   numeric   C's arrays allocated at their exact size, each row accumulated, its columns sorted and
//             its exact zeros (cancellation) dropped; rows that lost entries are compacted at the end.
// Two accumulators for one row of C:
//   cpu.csr.gustavson_dense  a dense array of B.cols values and a presence bitmap per thread (O(1)
//                            access, no hashing, rows of narrow span emitted in order without a sort;
//                            B.cols * (sizeof(T) + 1/8) bytes per thread: for moderate widths);
//   cpu.csr.gustavson_hash   an open-addressing hash table sized to the row (2x its distinct
//                            columns, a power of two): small and cache-resident however wide B is.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

// Dense accumulator: value[k] for every column of B, and a presence bitmap (1 bit per column). A row
// of C comes out in column order by scanning the bitmap words between its lowest and highest column
// when that span is short against the row (stencils, FEM, banded: no sort at all), else by sorting
// the row's column list.
template <class T>
class DenseAccumulator {
 public:
  static constexpr const char* kName = "dense accumulator";
  static std::uint64_t scratch_bytes(std::int64_t b_cols) {
    return static_cast<std::uint64_t>(b_cols) * sizeof(T) + (static_cast<std::uint64_t>(b_cols) + 63) / 64 * 8;
  }
  // Values are left uninitialised (each is set on its column's first touch in a row), so a thread
  // pays only for the pages its rows reach, not for a B.cols-long memset.
  DenseAccumulator(std::int64_t b_cols, bool numeric)
      : value_(numeric ? new T[static_cast<std::size_t>(b_cols)] : nullptr),
        present_((static_cast<std::size_t>(b_cols) + 63) / 64, 0) {}

  std::int64_t symbolic_row(const Csr<T>& a, const Csr<T>& b, std::int64_t i) {
    cols_.clear();
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        if (!test_and_set(k)) cols_.push_back(k);
      }
    }
    for (std::int32_t k : cols_) present_[k >> 6] = 0;
    return static_cast<std::int64_t>(cols_.size());
  }

  // Writes row i of C (sorted, exact zeros dropped) to out_col/out_val; returns the count written.
  std::int64_t numeric_row(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t /*row_nnz*/,
                           std::int32_t* out_col, T* out_val) {
    cols_.clear();
    std::int32_t lo = std::numeric_limits<std::int32_t>::max(), hi = -1;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      const T aij = a.values[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        if (!test_and_set(k)) {
          value_[k] = T(0), cols_.push_back(k);
          lo = std::min(lo, k), hi = std::max(hi, k);
        }
        value_[k] += aij * b.values[q];
      }
    }
    std::int64_t n = 0;
    if (cols_.empty()) return 0;
    const std::int64_t first_word = lo >> 6, last_word = hi >> 6;
    const std::int64_t span_limit = tuning::spgemm::kDenseScanWordsPerEntry * static_cast<std::int64_t>(cols_.size());
    if (last_word - first_word + 1 <= span_limit) {
      for (std::int64_t w = first_word; w <= last_word; ++w) {
        for (std::uint64_t word = present_[w]; word; word &= word - 1) {
          const std::int32_t k = static_cast<std::int32_t>(w * 64 + __builtin_ctzll(word));
          if (value_[k] != T(0)) out_col[n] = k, out_val[n] = value_[k], ++n;
        }
        present_[w] = 0;
      }
    } else {
      std::sort(cols_.begin(), cols_.end());
      for (std::int32_t k : cols_) {
        if (value_[k] != T(0)) out_col[n] = k, out_val[n] = value_[k], ++n;
        present_[k >> 6] = 0;
      }
    }
    return n;
  }

 private:
  // Whether column k was present already; marks it present.
  bool test_and_set(std::int32_t k) {
    std::uint64_t& word = present_[k >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (k & 63);
    const bool was = word & bit;
    word |= bit;
    return was;
  }
  std::unique_ptr<T[]> value_;
  std::vector<std::uint64_t> present_;
  std::vector<std::int32_t> cols_;
};

// Hash accumulator: linear probing on a power-of-two table of (column, value), at least twice the
// row's distinct columns (its intermediate products in the symbolic phase, the exact count after).
template <class T>
class HashAccumulator {
 public:
  static constexpr const char* kName = "hash accumulator";
  static std::uint64_t scratch_bytes(std::int64_t) { return 0; }  // grows with the widest row only
  HashAccumulator(std::int64_t, bool) {}

  std::int64_t symbolic_row(const Csr<T>& a, const Csr<T>& b, std::int64_t i) {
    std::int64_t products = 0;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) products += b.row_length(a.col_idx[p]);
    const std::uint32_t mask = prepare(std::min<std::int64_t>(products, b.cols));
    std::int64_t n = 0;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        for (std::uint32_t h = hash(k) & mask;; h = (h + 1) & mask) {
          if (key_[h] == k) break;
          if (key_[h] < 0) {
            key_[h] = k, used_.push_back(h), ++n;
            break;
          }
        }
      }
    }
    for (std::uint32_t h : used_) key_[h] = -1;
    used_.clear();
    return n;
  }

  std::int64_t numeric_row(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t row_nnz,
                           std::int32_t* out_col, T* out_val) {
    const std::uint32_t mask = prepare(row_nnz);
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t j = a.col_idx[p];
      const T aij = a.values[p];
      for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
        const std::int32_t k = b.col_idx[q];
        std::uint32_t h = hash(k) & mask;
        while (key_[h] != k && key_[h] >= 0) h = (h + 1) & mask;
        if (key_[h] < 0) key_[h] = k, value_[h] = T(0), used_.push_back(h);
        value_[h] += aij * b.values[q];
      }
    }
    // Sort the occupied slots by column, then emit the non-zero values.
    std::sort(used_.begin(), used_.end(), [&](std::uint32_t x, std::uint32_t y) { return key_[x] < key_[y]; });
    std::int64_t n = 0;
    for (std::uint32_t h : used_) {
      if (value_[h] != T(0)) out_col[n] = key_[h], out_val[n] = value_[h], ++n;
      key_[h] = -1;
    }
    used_.clear();
    return n;
  }

 private:
  // Multiplicative (Fibonacci) hashing: consecutive columns spread over the table.
  static std::uint32_t hash(std::int32_t k) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(k) * 0x9E3779B97F4A7C15ull) >> 32);
  }
  // Table of at least 2 * distinct entries, a power of two; returns the mask. Only grows.
  std::uint32_t prepare(std::int64_t distinct) {
    std::size_t size = 16;
    while (size < static_cast<std::size_t>(2 * distinct)) size *= 2;
    if (key_.size() < size) key_.assign(size, -1), value_.resize(size);
    return static_cast<std::uint32_t>(size - 1);
  }
  std::vector<std::int32_t> key_;
  std::vector<T> value_;
  std::vector<std::uint32_t> used_;
};

template <class T, template <class> class Accumulator>
SpgemmResult<T> gustavson(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  const int threads = std::max(1, opts.threads);
  const std::int64_t rows = a.rows;
  const detail::ScopedOmpThreads team(opts.threads);
  detail::check_spgemm_memory(
      std::string("SpGEMM ") + Accumulator<T>::kName + " scratch for " + std::to_string(threads) + " threads",
      detail::mul_sat(Accumulator<T>::scratch_bytes(b.cols), static_cast<std::uint64_t>(threads)), 0.5);

  const detail::StageMarks marks(opts);
  marks.host("symbolic");
  Csr<T> c;
  c.rows = rows;
  c.cols = b.cols;
  std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    Accumulator<T> acc(b.cols, /*numeric=*/false);
#pragma omp for schedule(dynamic, tuning::spgemm::kGustavsonRowsPerChunk)
    for (std::int64_t i = 0; i < rows; ++i) row_ptr[i] = acc.symbolic_row(a, b, i);
  }
  const std::int64_t structural = detail::exclusive_scan_inplace(row_ptr);

  marks.host("numeric");
  detail::check_spgemm_memory("SpGEMM output C with " + std::to_string(structural) + " non-zeros",
                              static_cast<std::uint64_t>(structural) * (sizeof(std::int32_t) + sizeof(T)) +
                                  static_cast<std::uint64_t>(rows + 1) * sizeof(std::int64_t));
  c.col_idx.resize(static_cast<std::size_t>(structural));
  c.values.resize(static_cast<std::size_t>(structural));
  std::vector<std::int64_t> kept(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    Accumulator<T> acc(b.cols, /*numeric=*/true);
#pragma omp for schedule(dynamic, tuning::spgemm::kGustavsonRowsPerChunk)
    for (std::int64_t i = 0; i < rows; ++i)
      kept[i] = acc.numeric_row(a, b, i, row_ptr[i + 1] - row_ptr[i], c.col_idx.data() + row_ptr[i],
                                c.values.data() + row_ptr[i]);
  }
  const std::int64_t nnz = detail::exclusive_scan_inplace(kept);
  if (nnz == structural) {
    c.row_ptr = std::move(row_ptr);
  } else {
    // Cancellation left exact zeros: move each row's kept prefix to its final place.
    std::vector<std::int32_t> col(static_cast<std::size_t>(nnz));
    std::vector<T> val(static_cast<std::size_t>(nnz));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < rows; ++i) {
      std::copy_n(c.col_idx.begin() + row_ptr[i], kept[i + 1] - kept[i], col.begin() + kept[i]);
      std::copy_n(c.values.begin() + row_ptr[i], kept[i + 1] - kept[i], val.begin() + kept[i]);
    }
    c.col_idx = std::move(col);
    c.values = std::move(val);
    c.row_ptr = std::move(kept);
  }
  marks.end();
  SpgemmResult<T> r;
  r.c = std::move(c);
  r.detail = std::string(Accumulator<T>::kName) + ", " + std::to_string(threads) + " threads";
  return r;
}

template <class T>
SpgemmResult<T> gustavson_dense(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  return gustavson<T, DenseAccumulator>(a, b, opts);
}
template <class T>
SpgemmResult<T> gustavson_hash(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  return gustavson<T, HashAccumulator>(a, b, opts);
}

}  // namespace

void register_cpu_csr_spgemm(SpgemmRegistry& reg) {
  SpgemmKernelInfo dense;
  dense.name = "cpu.csr.gustavson_dense";
  dense.format = Format::csr;
  dense.backend = Backend::cpu;
  dense.parallel = true;
  dense.description =
      "Gustavson's row-by-row product (1978), OpenMP over rows, dense accumulator per thread (symbolic + numeric)";
  dense.run_f32 = gustavson_dense<float>;
  dense.run_f64 = gustavson_dense<double>;
  reg.add(std::move(dense));

  SpgemmKernelInfo hash;
  hash.name = "cpu.csr.gustavson_hash";
  hash.format = Format::csr;
  hash.backend = Backend::cpu;
  hash.parallel = true;
  hash.description =
      "Gustavson's row-by-row product (1978), OpenMP over rows, hash accumulator sized per row as in Nagasaka et "
      "al.'s nsparse (for wide matrices)";
  hash.run_f32 = gustavson_hash<float>;
  hash.run_f64 = gustavson_hash<double>;
  reg.add(std::move(hash));
}

}  // namespace spkit
