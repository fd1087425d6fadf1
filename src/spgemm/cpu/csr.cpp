// CPU SpGEMM on CSR: Gustavson's row-by-row product, OpenMP over rows. Each row's products (the sum of
// the lengths of the rows of B it reaches) bound the row's length in C, as in Nagasaka et al.'s
// "High-performance sparse matrix-matrix products on Intel KNL and multicore architectures" (ICPP-W
// 2018). Their sum bounds C (each row's taken at most B.cols when the plain sum does not fit in
// memory), and picks one of two routes:
//   one pass  (the bound fits in memory) rows written, sorted, exact zeros dropped, into arrays reserved
//             at the bound but touched only as far as they are written, in one OpenMP team with no
//             barrier but its end: thread 0 writes straight into C, the others into arenas of their
//             own that thread 0 appends or takes over (one_pass.hpp);
//   two pass  the exact number of distinct columns of each row first (symbolic), then C allocated at
//             its exact size and each row written in place (numeric), compacted when exact zeros fell.
// Stages "symbolic" (the bound, or exact counts) and "numeric" (accumulation, writing C) in both routes.
// Two accumulators for one row of C (accumulators.hpp):
//   cpu.csr.gustavson_dense  a dense array of B.cols values and presence bytes per thread (O(1)
//                            access, no hashing, rows in dense bands emitted in order without a sort;
//                            B.cols * (sizeof(T) + 1) bytes per thread: for moderate widths);
//   cpu.csr.gustavson_hash   an open-addressing hash table sized to the row (2x its distinct
//                            columns, a power of two): small and cache-resident however wide B is.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "platform/huge_pages.hpp"
#include "spgemm/cpu/accumulators.hpp"
#include "spgemm/cpu/gustavson.hpp"
#include "spgemm/cpu/one_pass.hpp"
#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

using detail::DenseAccumulator;
using detail::HashAccumulator;

// The products of every row, for the two-pass route (rows on a dynamic schedule: their costs vary).
template <class T>
std::vector<std::int64_t> all_row_products(const Csr<T>& a, const Csr<T>& b, int threads) {
  std::vector<std::int64_t> products(static_cast<std::size_t>(a.rows));
#pragma omp parallel for num_threads(threads) schedule(dynamic, tuning::spgemm::kBoundRowsPerChunk)
  for (std::int64_t i = 0; i < a.rows; ++i) products[i] = detail::row_products(a, b, i);
  return products;
}

template <class T, template <class> class Accumulator>
Csr<T> two_pass(const Csr<T>& a, const Csr<T>& b, int threads, const detail::StageMarks& marks) {
  const std::int64_t rows = a.rows;
  const std::vector<std::int64_t> products = all_row_products(a, b, threads);
  Csr<T> c;
  c.rows = rows;
  c.cols = b.cols;
  std::vector<std::int64_t> row_ptr(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    Accumulator<T> acc(b.cols);
#pragma omp for schedule(dynamic, tuning::spgemm::kGustavsonRowsPerChunk)
    for (std::int64_t i = 0; i < rows; ++i) row_ptr[i] = acc.symbolic_row(a, b, i, products[i]);
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
      acc.accumulate(a, b, i, products[i], row_ptr[i + 1] - row_ptr[i]);
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
  // The one-pass route reserves a bound of C (twice with several threads: the other threads' arenas)
  // as address space only; it is taken while that fits in the memory available now, so that an
  // overcommit-free system can grant it. The bound is all the products, or, when those do not fit,
  // the tighter sum over rows of min(products, B.cols).
  const auto budget = static_cast<double>(available_memory_bytes()) * tuning::spgemm::kOnePassMemoryShare;
  const auto reserved_bytes = [&](std::int64_t entries) {
    return static_cast<double>(detail::mul_sat(static_cast<std::uint64_t>(entries),
                                               (threads > 1 ? 2 : 1) * (sizeof(std::int32_t) + sizeof(T))));
  };
  std::int64_t bound = detail::product_count(a, b);
  if (reserved_bytes(bound) > budget) bound = detail::output_bound(a, b, 0, a.rows);
  const bool one = route == detail::GustavsonRoute::one_pass || route == detail::GustavsonRoute::one_pass_copied ||
                   route == detail::GustavsonRoute::one_pass_stolen || route == detail::GustavsonRoute::one_pass_assembled ||
                   (route == detail::GustavsonRoute::automatic && reserved_bytes(bound) <= budget);
  const detail::OnePassMode mode = route == detail::GustavsonRoute::one_pass_copied   ? detail::OnePassMode::copied
                                   : route == detail::GustavsonRoute::one_pass_stolen ? detail::OnePassMode::stolen
                                   : route == detail::GustavsonRoute::one_pass_assembled
                                       ? detail::OnePassMode::assembled
                                       : detail::OnePassMode::direct;
  SpgemmResult<T> r;
  if (one) {
    marks.host("numeric");
    r.c = detail::one_pass<T, Accumulator>(a, b, bound, threads, mode);
  } else {
    r.c = two_pass<T, Accumulator>(a, b, threads, marks);
  }
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
