// CPU SpGEMM on CSR: Gustavson's row-by-row product, OpenMP over rows. Each row's products (the sum of
// the lengths of the rows of B it reaches) are counted first; they bound the row's length in C, as in
// Nagasaka et al.'s "High-performance sparse matrix-matrix products on Intel KNL and multicore
// architectures" (ICPP-W 2018). Then one of two routes:
//   one pass  (the bounds fit in memory) rows written, sorted, exact zeros dropped, into arrays reserved
//             at the bound but touched only as far as they are written: with one thread C's own; with
//             several, rows are cut into chunks of equal products, thread 0 writes the chunks it takes
//             from the front into C's arrays and the others the chunks they take from the back into
//             arrays of their own, copied into C once all are done;
//   two pass  the exact number of distinct columns of each row first (symbolic), then C allocated at
//             its exact size and each row written in place (numeric), compacted when exact zeros fell.
// Stages "symbolic" (bounds, or exact counts) and "numeric" (accumulation, writing C) in both routes.
// Two accumulators for one row of C (accumulators.hpp):
//   cpu.csr.gustavson_dense  a dense array of B.cols values and a presence bitmap per thread (O(1)
//                            access, no hashing, rows of narrow span emitted in order without a sort;
//                            B.cols * (sizeof(T) + 1/8) bytes per thread: for moderate widths);
//   cpu.csr.gustavson_hash   an open-addressing hash table sized to the row (2x its distinct
//                            columns, a power of two): small and cache-resident however wide B is.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "platform/huge_pages.hpp"
#include "spgemm/cpu/accumulators.hpp"
#include "spgemm/cpu/gustavson.hpp"
#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

using detail::DenseAccumulator;
using detail::HashAccumulator;

// What each row of C costs and may hold, from the row lengths alone (O(nnz(A))).
struct RowBounds {
  std::vector<std::int64_t> products;  // products of row i
  std::vector<std::int64_t> prefix;    // size rows + 1: products of rows < i
  std::vector<std::int64_t> bound;     // size rows + 1: prefix of min(products, B.cols), C's length bound
};

template <class T>
RowBounds row_bounds(const Csr<T>& a, const Csr<T>& b, int threads) {
  const std::int64_t rows = a.rows;
  RowBounds r;
  r.products.resize(static_cast<std::size_t>(rows));
  r.prefix.resize(static_cast<std::size_t>(rows) + 1);
  r.bound.resize(static_cast<std::size_t>(rows) + 1);
#pragma omp parallel for num_threads(threads) schedule(dynamic, tuning::spgemm::kBoundRowsPerChunk)
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t n = 0;
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) n += b.row_length(a.col_idx[p]);
    r.products[i] = r.prefix[i] = n;
    r.bound[i] = std::min(n, b.cols);
  }
  r.prefix[rows] = r.bound[rows] = 0;
  detail::exclusive_scan_inplace(r.prefix);
  detail::exclusive_scan_inplace(r.bound);
  return r;
}

// First row of thread t's range: rows split into `threads` contiguous ranges of equal products.
std::int64_t range_begin(const std::vector<std::int64_t>& prefix, int t, int threads) {
  const std::int64_t rows = static_cast<std::int64_t>(prefix.size()) - 1;
  if (t == 0) return 0;
  if (t == threads) return rows;
  const std::int64_t target = static_cast<std::int64_t>(static_cast<double>(prefix[rows]) * t / threads);
  return std::lower_bound(prefix.begin(), prefix.end() - 1, target) - prefix.begin();
}

// One thread's rows of C: column and value arrays reserved at their bound (virtual memory only, with
// huge pages asked for), grown row by row.
template <class T>
struct RowsOut {
  std::vector<std::int32_t> col;
  std::vector<T> val;
  void reserve(std::int64_t n) {
    col.reserve(static_cast<std::size_t>(n));
    val.reserve(static_cast<std::size_t>(n));
    if (n * static_cast<std::int64_t>(sizeof(T)) >= tuning::spgemm::kHugePageMinBytes) {
      advise_huge_pages(col.data(), col.capacity() * sizeof(std::int32_t));
      advise_huge_pages(val.data(), val.capacity() * sizeof(T));
    }
  }
  template <class Acc>
  std::int64_t add_row(Acc& acc, const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t products) {
    const std::size_t at = col.size();
    const std::int64_t distinct = acc.accumulate(a, b, i, products, products);
    col.resize(at + static_cast<std::size_t>(distinct));
    val.resize(at + static_cast<std::size_t>(distinct));
    const std::int64_t kept = acc.emit(col.data() + at, val.data() + at);
    col.resize(at + static_cast<std::size_t>(kept));
    val.resize(at + static_cast<std::size_t>(kept));
    return kept;
  }
};

// Claims chunks of rows for the one-pass route: thread 0 from the front, the others from the back, until
// they meet. Returns the chunk claimed, or -1 when none is left.
class ChunkClaims {
 public:
  explicit ChunkClaims(int chunks) : back_(chunks) {}
  int claim(bool from_front) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (front_ == back_) return -1;
    return from_front ? front_++ : --back_;
  }
  int front_chunks() const { return front_; }  // once every thread is done

 private:
  std::mutex mutex_;
  int front_ = 0, back_;
};

// Rows are cut into chunks of equal products. Thread 0 takes chunks from the front and writes their
// rows straight into C's arrays, reserved at C's bound; the other threads take chunks from the back,
// each chunk into arrays of its own, copied behind thread 0's rows at the end. Whatever thread 0 does
// costs no copy, and on a loaded machine the threads that run take the chunks of those that do not.
template <class T, template <class> class Accumulator>
Csr<T> one_pass(const Csr<T>& a, const Csr<T>& b, const RowBounds& bounds, int threads, bool copy_all,
                const detail::StageMarks& marks) {
  const std::int64_t rows = a.rows;
  Csr<T> c;
  c.rows = rows;
  c.cols = b.cols;
  c.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  const int chunks = threads == 1 ? 1 : threads * tuning::spgemm::kOnePassChunksPerThread;
  std::vector<std::int64_t> first(static_cast<std::size_t>(chunks) + 1);
  for (int k = 0; k <= chunks; ++k) first[k] = range_begin(bounds.prefix, k, chunks);
  RowsOut<T> front;
  std::vector<RowsOut<T>> back(static_cast<std::size_t>(chunks));
  ChunkClaims claims(chunks);
  marks.host("numeric");
#pragma omp parallel num_threads(threads)
  {
    const bool is_front = omp_get_thread_num() == 0 && !copy_all;
    if (omp_get_thread_num() == 0) front.reserve(bounds.bound[rows]);
    Accumulator<T> acc(b.cols);
    for (int k; (k = claims.claim(is_front)) >= 0;) {
      RowsOut<T>& out = is_front ? front : back[k];
      if (!is_front) out.reserve(bounds.bound[first[k + 1]] - bounds.bound[first[k]]);
      for (std::int64_t i = first[k]; i < first[k + 1]; ++i)
        c.row_ptr[i + 1] = out.add_row(acc, a, b, i, bounds.products[i]);
    }
  }
  const int split = claims.front_chunks();
  std::vector<std::size_t> at(static_cast<std::size_t>(chunks) + 1, front.col.size());
  for (int k = split; k < chunks; ++k) at[k + 1] = at[k] + back[k].col.size();
  c.col_idx = std::move(front.col);
  c.values = std::move(front.val);
  if (split < chunks) {
    // The copies' destination pages are first touched by all threads (the kernel zeroes each fresh page
    // at its first touch), then one resize, then the chunks copied; one team for the three steps.
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(dynamic, 1)
      for (int k = split; k < chunks; ++k) {
        touch_pages_parallel(c.col_idx.data() + at[k], (at[k + 1] - at[k]) * sizeof(std::int32_t));
        touch_pages_parallel(c.values.data() + at[k], (at[k + 1] - at[k]) * sizeof(T));
      }
#pragma omp single
      {
        c.col_idx.resize(at[chunks]);
        c.values.resize(at[chunks]);
      }
#pragma omp for schedule(dynamic, 1)
      for (int k = split; k < chunks; ++k) {
        std::copy(back[k].col.begin(), back[k].col.end(), c.col_idx.begin() + static_cast<std::ptrdiff_t>(at[k]));
        std::copy(back[k].val.begin(), back[k].val.end(), c.values.begin() + static_cast<std::ptrdiff_t>(at[k]));
        back[k] = RowsOut<T>{};
      }
    }
  }
  for (std::int64_t i = 0; i < rows; ++i) c.row_ptr[i + 1] += c.row_ptr[i];
  return c;
}

template <class T, template <class> class Accumulator>
Csr<T> two_pass(const Csr<T>& a, const Csr<T>& b, const RowBounds& bounds, int threads,
                const detail::StageMarks& marks) {
  const std::int64_t rows = a.rows;
  Csr<T> c;
  c.rows = rows;
  c.cols = b.cols;
  std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    Accumulator<T> acc(b.cols);
#pragma omp for schedule(dynamic, tuning::spgemm::kGustavsonRowsPerChunk)
    for (std::int64_t i = 0; i < rows; ++i) row_ptr[i] = acc.symbolic_row(a, b, i, bounds.products[i]);
  }
  const std::int64_t structural = detail::exclusive_scan_inplace(row_ptr);

  marks.host("numeric");
  detail::check_spgemm_memory("SpGEMM output C with " + std::to_string(structural) + " non-zeros",
                              static_cast<std::uint64_t>(structural) * (sizeof(std::int32_t) + sizeof(T)) +
                                  static_cast<std::uint64_t>(rows + 1) * sizeof(std::int64_t));
  resize_huge(c.col_idx, static_cast<std::size_t>(structural));
  resize_huge(c.values, static_cast<std::size_t>(structural));
  std::vector<std::int64_t> kept(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    Accumulator<T> acc(b.cols);
#pragma omp for schedule(dynamic, tuning::spgemm::kGustavsonRowsPerChunk)
    for (std::int64_t i = 0; i < rows; ++i) {
      acc.accumulate(a, b, i, bounds.products[i], row_ptr[i + 1] - row_ptr[i]);
      kept[i] = acc.emit(c.col_idx.data() + row_ptr[i], c.values.data() + row_ptr[i]);
    }
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
  return c;
}

template <class T, template <class> class Accumulator>
SpgemmResult<T> gustavson(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts, detail::GustavsonRoute route) {
  detail::check_spgemm_shapes(a, b);
  const int threads = std::max(1, opts.threads);
  const detail::ScopedOmpThreads team(opts.threads);
  detail::check_spgemm_memory(
      std::string("SpGEMM ") + Accumulator<T>::kName + " scratch for " + std::to_string(threads) + " threads",
      detail::mul_sat(Accumulator<T>::scratch_bytes(b.cols), static_cast<std::uint64_t>(threads)), 0.5);

  const detail::StageMarks marks(opts);
  marks.host("symbolic");
  const RowBounds bounds = row_bounds(a, b, threads);
  // The one-pass route reserves C's bound (twice with several threads) as address space only; it is
  // taken while that fits in the memory available now, so that an overcommit-free system can grant it.
  const std::uint64_t bound_bytes = detail::mul_sat(static_cast<std::uint64_t>(bounds.bound[a.rows]),
                                                    (threads > 1 ? 2 : 1) * (sizeof(std::int32_t) + sizeof(T)));
  const auto budget = static_cast<double>(available_memory_bytes()) * tuning::spgemm::kOnePassMemoryShare;
  const bool copy_all = route == detail::GustavsonRoute::one_pass_copied;
  const bool one = route == detail::GustavsonRoute::one_pass || copy_all ||
                   (route == detail::GustavsonRoute::automatic && static_cast<double>(bound_bytes) <= budget);
  SpgemmResult<T> r;
  r.c = one ? one_pass<T, Accumulator>(a, b, bounds, threads, copy_all, marks)
             : two_pass<T, Accumulator>(a, b, bounds, threads, marks);
  marks.end();
  r.detail = std::string(Accumulator<T>::kName) + (one ? ", one pass, " : ", symbolic + numeric, ") +
             std::to_string(threads) + " threads";
  return r;
}

template <class T>
SpgemmResult<T> gustavson_dense(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  return gustavson<T, DenseAccumulator>(a, b, opts, detail::GustavsonRoute::automatic);
}
template <class T>
SpgemmResult<T> gustavson_hash(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  return gustavson<T, HashAccumulator>(a, b, opts, detail::GustavsonRoute::automatic);
}

}  // namespace

template <class T>
SpgemmResult<T> detail::cpu_gustavson(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts,
                                      GustavsonAccumulator accumulator, GustavsonRoute route) {
  return accumulator == GustavsonAccumulator::dense ? gustavson<T, DenseAccumulator>(a, b, opts, route)
                                                    : gustavson<T, HashAccumulator>(a, b, opts, route);
}
template SpgemmResult<float> detail::cpu_gustavson(const Csr<float>&, const Csr<float>&, const SpgemmOptions&,
                                                   GustavsonAccumulator, GustavsonRoute);
template SpgemmResult<double> detail::cpu_gustavson(const Csr<double>&, const Csr<double>&, const SpgemmOptions&,
                                                    GustavsonAccumulator, GustavsonRoute);

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
