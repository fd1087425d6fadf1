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
//   - C's size follows: a count per edge row, the number of C's diagonals per interior row.
// Rows are written by Gustavson's one-pass route (one_pass.hpp: C reserved at its exact size and written
// once; with several threads, chunks of contiguous rows, the first thread never waiting for the others).
// Every entry is summed as 0 + p1 + p2 + ... in A's then B's storage order, as Gustavson's kernels do
// (accumulators.hpp): C is theirs (pattern, exact zeros dropped, values), the same at any thread count.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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
    const std::int64_t first = static_cast<std::int64_t>(plan_.dc.size());
    std::int64_t lo = first, hi = -1;
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

// The row accumulator that one_pass.hpp's route drives (the interface of accumulators.hpp): accumulate
// notes the row and returns its structural length, emit writes it, exact zeros dropped.
template <class T>
class DiagonalRows {
 public:
  DiagonalRows(std::int64_t /*b_cols*/, const DiagonalPlan& plan) : plan_(plan), edge_(plan) {}
  std::int64_t accumulate(const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::int64_t /*products*/,
                          std::int64_t /*distinct_bound*/) {
    a_ = &a, b_ = &b, row_ = i;
    interior_ = i >= plan_.interior_first && i < plan_.interior_last;
    return interior_ ? static_cast<std::int64_t>(plan_.dc.size()) : edge_.row(a, b, i, nullptr, nullptr);
  }
  std::int64_t emit(std::int32_t* out_col, T* out_val) {
    std::int64_t n;
    if (interior_) {
      n = static_cast<std::int64_t>(plan_.dc.size());
      if (plan_.consecutive) interior_row<T, true>(*a_, *b_, plan_, row_, out_col, out_val);
      else interior_row<T, false>(*a_, *b_, plan_, row_, out_col, out_val);
    } else {
      n = edge_.row(*a_, *b_, row_, out_col, out_val);
    }
    bool zero = false;
    for (std::int64_t u = 0; u < n; ++u) zero |= out_val[u] == T(0);
    if (!zero) return n;
    std::int64_t kept = 0;  // cancellation: drop the exact zeros, as Gustavson's kernels do
    for (std::int64_t u = 0; u < n; ++u) {
      out_col[kept] = out_col[u], out_val[kept] = out_val[u];
      kept += out_val[u] != T(0);
    }
    return kept;
  }

 private:
  const DiagonalPlan& plan_;
  EdgeRows<T> edge_;
  const Csr<T>* a_ = nullptr;
  const Csr<T>* b_ = nullptr;
  std::int64_t row_ = 0;
  bool interior_ = false;
};

template <class T>
SpgemmResult<T> dia_spgemm(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  const int threads = std::max(1, opts.threads);
  const detail::ScopedOmpThreads team(opts.threads);
  const detail::StageMarks marks(opts);
  // The structure and C's size on one thread: a few passes over row pointers, cheaper than waking a team
  // on a loaded machine (measured: 7 ms for a second thread's first wake-up at load 4 on the dev box).
  marks.host("structure");
  const std::int64_t max_diagonals = tuning::spgemm::kCpuDiaMaxDiagonals;
  const DiagonalStructure sa = detail::diagonal_structure(a, max_diagonals);
  if (!sa.ok()) throw NotApplicable("diagonal SpGEMM: A is not diagonal-structured: " + sa.why);
  const DiagonalStructure sb = &a == &b ? sa : detail::diagonal_structure(b, max_diagonals);
  if (!sb.ok()) throw NotApplicable("diagonal SpGEMM: B is not diagonal-structured: " + sb.why);
  const DiagonalPlan plan(sa, sb, a.rows);

  marks.host("symbolic");
  // C's entries: every lane in an interior row, the edge rows counted.
  std::int64_t nnz = (plan.interior_last - plan.interior_first) * static_cast<std::int64_t>(plan.dc.size());
  {
    EdgeRows<T> edge(plan);
    for (std::int64_t i = 0; i < plan.interior_first; ++i) nnz += edge.row(a, b, i, nullptr, nullptr);
    for (std::int64_t i = plan.interior_last; i < a.rows; ++i) nnz += edge.row(a, b, i, nullptr, nullptr);
  }
  detail::check_spgemm_memory("SpGEMM output C with " + std::to_string(nnz) + " non-zeros",
                              static_cast<std::uint64_t>(nnz) * (sizeof(std::int32_t) + sizeof(T)) +
                                  static_cast<std::uint64_t>(a.rows + 1) * sizeof(std::int64_t));

  // Gustavson's one-pass route with diagonal rows: C reserved at its exact size, written once; with
  // several threads, one team whose first thread never waits for the others (one_pass.hpp).
  marks.host("numeric");
  SpgemmResult<T> r;
  r.c = detail::one_pass<T, DiagonalRows>(a, b, nnz, threads, detail::OnePassMode::direct, plan);
  marks.end();
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
