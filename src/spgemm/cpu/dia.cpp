// CPU SpGEMM of diagonal-structured matrices (banded and other few-diagonal matrices), on their CSR arrays.
// When A and B store few diagonals, each on one contiguous run of rows (dia_structure.hpp), diagonal d1 of
// A times diagonal d2 of B lands on diagonal d1 + d2 of C: c_{d1+d2}(i) += a_{d1}(i) b_{d2}(i + d1), as in
// the DIA products of the SpMV literature (Bell and Garland, "Implementing sparse matrix-vector
// multiplication on throughput-oriented processors", SC 2009) carried to matrix products. So:
//   - a row of A inside every diagonal's run holds exactly A's diagonals, in offset order; where the rows
//     of B it reaches are such rows too ("interior" rows, one interval), row i of C holds every diagonal
//     of C, and is a small convolution of row i of A with those rows of B: products added into C's row
//     at the slot of their diagonal, with no column read, no presence flag and no sort;
//   - the other rows (near the matrix's edges) are accumulated per diagonal of C, with presence bytes;
//   - C's row pointers follow: a count per edge row, the number of C's diagonals per interior row.
// Each thread owns a contiguous range of C's rows (one thread: rows appended to C through a buffer in L1).
// Every entry is summed as 0 + p1 + p2 + ... in A's then B's storage order, as Gustavson's kernels do
// (accumulators.hpp): C is theirs (pattern, exact zeros dropped, values), the same at any thread count.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "platform/huge_pages.hpp"
#include "spgemm/cpu/dia_structure.hpp"
#include "spgemm/cpu/one_pass.hpp"
#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

using detail::DiagonalStructure;

// The product's diagonals: A's (da), B's (db), C's (dc: the distinct sums), and where each product lands.
struct DiagonalPlan {
  std::vector<std::int64_t> da, db, dc;
  std::vector<std::int32_t> slot;  // slot[t * db.size() + s]: index in dc of da[t] + db[s]
  bool consecutive = false;        // da and db consecutive offsets: slot = t + s
  std::int64_t interior_first = 0, interior_last = 0;  // C's interior rows [first, last)

  DiagonalPlan(const DiagonalStructure& a, const DiagonalStructure& b, std::int64_t a_rows) {
    for (const auto& r : a.runs) da.push_back(r.offset);
    for (const auto& r : b.runs) db.push_back(r.offset);
    for (std::int64_t x : da)
      for (std::int64_t y : db) dc.push_back(x + y);
    std::sort(dc.begin(), dc.end());
    dc.erase(std::unique(dc.begin(), dc.end()), dc.end());
    for (std::int64_t x : da)
      for (std::int64_t y : db) slot.push_back(static_cast<std::int32_t>(lane(x + y)));
    const auto runs_consecutive = [](const std::vector<std::int64_t>& d) {
      return d.empty() || d.back() - d.front() + 1 == static_cast<std::int64_t>(d.size());
    };
    consecutive = runs_consecutive(da) && runs_consecutive(db);
    if (da.empty() || db.empty()) return;  // no products: every row is empty, no interior needed
    // Row i is interior when it is a full row of A and rows i + da[t] are full rows of B for every t.
    interior_first = std::max(a.full_first(), b.full_first() - da.front());
    interior_last = std::min({a.full_last(), b.full_last() - da.back(), a_rows});
    if (interior_last <= interior_first) interior_first = interior_last = 0;
  }
  // Index in dc of diagonal d (present by construction).
  std::int64_t lane(std::int64_t d) const { return std::lower_bound(dc.begin(), dc.end(), d) - dc.begin(); }
};

// A row near the edges: products accumulated into value[lane], lanes present marked; emitted in lane
// (column) order. Returns the lanes present (count only, when out_col is null).
template <class T>
class EdgeRows {
 public:
  explicit EdgeRows(const DiagonalPlan& plan) : plan_(plan), value_(plan.dc.size(), T(0)), present_(plan.dc.size(), 0) {}
  std::int64_t row(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int32_t* out_col, T* out_val) {
    std::int64_t lo = static_cast<std::int64_t>(plan_.dc.size()), hi = -1;  // lanes reached
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const std::int32_t k = a.col_idx[p];
      const T aik = a.values[p];
      for (std::int64_t q = b.row_ptr[k]; q < b.row_ptr[k + 1]; ++q) {
        const std::int64_t u = plan_.lane(b.col_idx[q] - i);
        value_[u] += aik * b.values[q];
        present_[u] = 1;
        lo = std::min(lo, u), hi = std::max(hi, u);
      }
    }
    std::int64_t n = 0;
    for (std::int64_t u = lo; u <= hi; ++u) {
      if (!present_[u]) continue;
      if (out_col) out_col[n] = static_cast<std::int32_t>(i + plan_.dc[u]), out_val[n] = value_[u];
      ++n;
      value_[u] = T(0), present_[u] = 0;
    }
    return n;
  }

 private:
  const DiagonalPlan& plan_;
  std::vector<T> value_;
  std::vector<std::uint8_t> present_;
};

// Interior row i of C, every lane present: row i of A (one entry per diagonal of A, in order) convolved
// with rows i + da[t] of B (one entry per diagonal of B, in order).
template <class T, bool kConsecutive>
void interior_row(const Csr<T>& a, const Csr<T>& b, const DiagonalPlan& plan, std::int64_t i, std::int32_t* out_col,
                  T* out_val) {
  const std::int64_t na = static_cast<std::int64_t>(plan.da.size()), nb = static_cast<std::int64_t>(plan.db.size());
  const std::int64_t nc = static_cast<std::int64_t>(plan.dc.size());
  for (std::int64_t u = 0; u < nc; ++u) out_val[u] = T(0), out_col[u] = static_cast<std::int32_t>(i + plan.dc[u]);
  const T* av = a.values.data() + a.row_ptr[i];
  const T* bv = b.values.data();
  const std::int64_t* bp = b.row_ptr.data();
  for (std::int64_t t = 0; t < na; ++t) {
    const T ait = av[t];
    const T* brow = bv + bp[i + plan.da[t]];
    if constexpr (kConsecutive) {
      T* c = out_val + t;
      for (std::int64_t s = 0; s < nb; ++s) c[s] += ait * brow[s];
    } else {
      const std::int32_t* slot = plan.slot.data() + t * nb;
      for (std::int64_t s = 0; s < nb; ++s) out_val[slot[s]] += ait * brow[s];
    }
  }
}

// Rows [first, last) of C written at (col, val), entry p of C at index p - base (C's structural entries,
// row_ptr known); returns the exact zeros written.
template <class T>
std::int64_t write_rows(const Csr<T>& a, const Csr<T>& b, const DiagonalPlan& plan, EdgeRows<T>& edge,
                        const std::int64_t* row_ptr, std::int64_t first, std::int64_t last, std::int32_t* col, T* val,
                        std::int64_t base) {
  const auto at = [&](std::int64_t i) { return row_ptr[i] - base; };
  const std::int64_t in0 = std::clamp(plan.interior_first, first, last);
  const std::int64_t in1 = std::clamp(plan.interior_last, in0, last);
  for (std::int64_t i = first; i < in0; ++i) edge.row(a, b, i, col + at(i), val + at(i));
  if (plan.consecutive)
    for (std::int64_t i = in0; i < in1; ++i) interior_row<T, true>(a, b, plan, i, col + at(i), val + at(i));
  else
    for (std::int64_t i = in0; i < in1; ++i) interior_row<T, false>(a, b, plan, i, col + at(i), val + at(i));
  for (std::int64_t i = in1; i < last; ++i) edge.row(a, b, i, col + at(i), val + at(i));
  std::int64_t zeros = 0;
  for (std::int64_t p = at(first); p < at(last); ++p) zeros += val[p] == T(0);
  return zeros;
}

template <class T>
SpgemmResult<T> dia_spgemm(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  const int threads = std::max(1, opts.threads);
  const detail::ScopedOmpThreads team(opts.threads);
  const detail::StageMarks marks(opts);
  // The structure and C's row pointers on one thread: passes over row pointers, cheaper than waking a
  // team on a loaded machine (measured: 7-8 ms each for two parallel scans at load 4 on the dev box).
  marks.host("structure");
  const std::int64_t max_diagonals = tuning::spgemm::kCpuDiaMaxDiagonals;
  const DiagonalStructure sa = detail::diagonal_structure(a, max_diagonals);
  if (!sa.ok()) throw NotApplicable("diagonal SpGEMM: A is not diagonal-structured: " + sa.why);
  const DiagonalStructure sb = &a == &b ? sa : detail::diagonal_structure(b, max_diagonals);
  if (!sb.ok()) throw NotApplicable("diagonal SpGEMM: B is not diagonal-structured: " + sb.why);
  const DiagonalPlan plan(sa, sb, a.rows);

  marks.host("symbolic");
  // Row pointers: the edge rows counted, every lane in an interior row.
  Csr<T> c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  std::int64_t* rp = c.row_ptr.data();
  {
    EdgeRows<T> edge(plan);
    const std::int64_t nc = static_cast<std::int64_t>(plan.dc.size());
    for (std::int64_t i = 0; i < a.rows; ++i)
      rp[i + 1] = rp[i] + (i >= plan.interior_first && i < plan.interior_last ? nc : edge.row(a, b, i, nullptr, nullptr));
  }
  const std::int64_t nnz = rp[a.rows];
  detail::check_spgemm_memory("SpGEMM output C with " + std::to_string(nnz) + " non-zeros",
                              static_cast<std::uint64_t>(nnz) * (sizeof(std::int32_t) + sizeof(T)) +
                                  static_cast<std::uint64_t>(a.rows + 1) * sizeof(std::int64_t));

  marks.host("numeric");
  std::int64_t zeros = 0;
  if (threads == 1) {
    // One thread: rows go through a buffer in L1 and are appended to C, reserved at its size, so that C's
    // pages are written once (resize would zero them first).
    detail::reserve_rows(c.col_idx, c.values, nnz);
    EdgeRows<T> edge(plan);
    const std::int64_t buffer = std::max<std::int64_t>(tuning::spgemm::kOnePassRowBufferEntries,
                                                       static_cast<std::int64_t>(plan.dc.size()));
    std::vector<std::int32_t> col(static_cast<std::size_t>(buffer));
    std::vector<T> val(static_cast<std::size_t>(buffer));
    for (std::int64_t i = 0, e; i < a.rows; i = e) {
      for (e = i + 1; e < a.rows && rp[e + 1] - rp[i] <= buffer;) ++e;  // as many rows as the buffer holds
      const std::int64_t n = rp[e] - rp[i];
      zeros += write_rows(a, b, plan, edge, rp, i, e, col.data(), val.data(), rp[i]);
      c.col_idx.insert(c.col_idx.end(), col.begin(), col.begin() + n);
      c.values.insert(c.values.end(), val.begin(), val.begin() + n);
    }
  } else {
    // Several threads: C sized at once (its pages faulted by all threads), each thread writing a contiguous
    // range of rows of about equal entries. Measured against Gustavson's one-pass route with these rows
    // (the first thread appending the others' chunks): 1.2-1.6x faster at 2 threads (banded 500K and 2M,
    // fp64 and fp32, minima of 4 runs each; docs/perf/spgemm-cpu.md), the copy of half of C costing more
    // than the zeroing of all of it.
    resize_huge(c.col_idx, static_cast<std::size_t>(nnz));
    resize_huge(c.values, static_cast<std::size_t>(nnz));
#pragma omp parallel num_threads(threads) reduction(+ : zeros)
    {
      const int t = omp_get_thread_num(), n = omp_get_num_threads();
      const auto cut = [&](int k) {
        return static_cast<std::int64_t>(std::lower_bound(rp, rp + a.rows, nnz * k / n) - rp);
      };
      EdgeRows<T> edge(plan);
      const std::int64_t first = cut(t), last = t + 1 == n ? a.rows : cut(t + 1);
      if (first < last) zeros += write_rows(a, b, plan, edge, rp, first, last, c.col_idx.data(), c.values.data(), 0);
    }
  }
  if (zeros > 0) detail::drop_exact_zeros(c, threads);
  marks.end();
  SpgemmResult<T> r;
  r.c = std::move(c);
  r.detail = std::to_string(plan.da.size()) + " x " + std::to_string(plan.db.size()) + " diagonals -> " +
             std::to_string(plan.dc.size()) + ", " + std::to_string(plan.interior_last - plan.interior_first) +
             " interior rows, " + std::to_string(threads) + " threads";
  return r;
}

}  // namespace

void register_cpu_dia_spgemm(SpgemmRegistry& reg) {
  SpgemmKernelInfo k;
  k.name = "cpu.dia.spgemm";
  k.format = Format::dia;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.description =
      "Diagonal SpGEMM for banded and few-diagonal matrices: diagonal d1 of A times diagonal d2 of B adds to "
      "diagonal d1 + d2 of C (DIA products after Bell and Garland), each row of C a convolution of rows on "
      "the CSR arrays, OpenMP over row ranges; refuses matrices that are not diagonal-structured";
  k.run_f32 = dia_spgemm<float>;
  k.run_f64 = dia_spgemm<double>;
  reg.add(std::move(k));
}

}  // namespace spkit
