// cpu.bsr.spgemm: Gustavson's row-wise SpGEMM over the dense b x b blocks (b = 2, 3 or 4) that A and B are made
// of, as vector-valued finite-element matrices numbered node by node are (three dofs: every coupling of two nodes
// a full 3x3 block). Per block row of C, one accumulator slot per block column (b*b values) instead of one per
// scalar column: a ninth of the index work at b = 3, and each block of B read as b contiguous runs of b values
// (row k of a block row starts at row 0's start + k x its length in CSR). Symbolic (distinct block columns per
// block row), then numeric (blocks summed in A's row order, block columns sorted, C's b rows written); OpenMP
// over block rows in both passes. Refuses (NotApplicable) matrices that are not made of such blocks.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "platform/huge_pages.hpp"
#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"

namespace spkit {
namespace {

constexpr const char* kName = "cpu.bsr.spgemm";

// Block rows of C per dynamic chunk of the team (a few thousand block products each on meshes).
constexpr std::int64_t kChunk = 64;

template <class T, int B>
struct BlockProduct {
  const Csr<T>& a;
  const Csr<T>& b;
  std::int64_t block_cols;  // of B

  // Distinct block columns of block row I of C; mark[J] == I once J is counted.
  std::int64_t count(std::int64_t I, std::int64_t* mark) const {
    const std::int64_t a0 = a.row_ptr[B * I], a_len = a.row_ptr[B * I + 1] - a0;
    std::int64_t n = 0;
    for (std::int64_t t = 0; t < a_len; t += B) {
      const std::int64_t k = a.col_idx[a0 + t] / B;
      const std::int64_t b0 = b.row_ptr[B * k], b_len = b.row_ptr[B * k + 1] - b0;
      for (std::int64_t u = 0; u < b_len; u += B) {
        const std::int32_t j = b.col_idx[b0 + u] / B;
        if (mark[j] != I) mark[j] = I, ++n;
      }
    }
    return n;
  }

  // Block row I of C into C's arrays from out (its b rows, each `width` entries); returns the exact zeros written.
  // slot[J]: J's accumulator while mark[J] == I; acc holds count * B * B values, cols the block columns.
  std::int64_t numeric(std::int64_t I, std::int64_t out, std::int64_t* mark, std::int32_t* slot, T* acc,
                       std::int32_t* cols, std::int32_t* c_col, T* c_val) const {
    const std::int64_t a0 = a.row_ptr[B * I], a_len = a.row_ptr[B * I + 1] - a0;
    std::int32_t n = 0;
    for (std::int64_t t = 0; t < a_len; t += B) {
      T av[B][B];
      for (int i = 0; i < B; ++i)
        for (int k = 0; k < B; ++k) av[i][k] = a.values[a0 + i * a_len + t + k];
      const std::int64_t kb = a.col_idx[a0 + t] / B;
      const std::int64_t b0 = b.row_ptr[B * kb], b_len = b.row_ptr[B * kb + 1] - b0;
      for (std::int64_t u = 0; u < b_len; u += B) {
        const std::int32_t j = b.col_idx[b0 + u] / B;
        T* s;
        if (mark[j] != I) {
          mark[j] = I, slot[j] = n, cols[n] = j;
          s = acc + static_cast<std::int64_t>(n++) * B * B;
          for (int e = 0; e < B * B; ++e) s[e] = T(0);
        } else {
          s = acc + static_cast<std::int64_t>(slot[j]) * B * B;
        }
        const T* bv = b.values.data() + b0 + u;
        for (int i = 0; i < B; ++i)
          for (int c = 0; c < B; ++c) {
            T sum = av[i][0] * bv[c];
            for (int k = 1; k < B; ++k) sum += av[i][k] * bv[k * b_len + c];
            s[i * B + c] += sum;
          }
      }
    }
    std::sort(cols, cols + n);
    const std::int64_t width = static_cast<std::int64_t>(n) * B;
    std::int64_t zeros = 0;
    for (std::int32_t r = 0; r < n; ++r) {
      const T* s = acc + static_cast<std::int64_t>(slot[cols[r]]) * B * B;
      for (int i = 0; i < B; ++i)
        for (int c = 0; c < B; ++c) {
          const std::int64_t at = out + i * width + static_cast<std::int64_t>(r) * B + c;
          c_col[at] = cols[r] * B + c;
          c_val[at] = s[i * B + c];
          zeros += s[i * B + c] == T(0);
        }
    }
    return zeros;
  }
};

template <class T, int B>
Csr<T> block_product(const Csr<T>& a, const Csr<T>& b, int threads, const detail::StageMarks& marks) {
  const BlockProduct<T, B> p{a, b, b.cols / B};
  const std::int64_t block_rows = a.rows / B;
  marks.host("symbolic");
  std::vector<std::int64_t> count(static_cast<std::size_t>(block_rows), 0);
  std::int64_t widest = 0;
#pragma omp parallel num_threads(threads) reduction(max : widest)
  {
    std::vector<std::int64_t> mark(static_cast<std::size_t>(p.block_cols), -1);
#pragma omp for schedule(dynamic, kChunk)
    for (std::int64_t I = 0; I < block_rows; ++I) {
      count[I] = p.count(I, mark.data());
      widest = std::max(widest, count[I]);
    }
  }
  Csr<T> c;
  c.rows = a.rows, c.cols = b.cols;
  c.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (std::int64_t I = 0; I < block_rows; ++I)
    for (int i = 0; i < B; ++i) c.row_ptr[B * I + i + 1] = c.row_ptr[B * I + i] + count[I] * B;
  const std::int64_t nnz = c.row_ptr.back();
  detail::check_spgemm_memory("SpGEMM output C with " + std::to_string(nnz) + " non-zeros",
                              static_cast<std::uint64_t>(nnz) * (sizeof(std::int32_t) + sizeof(T)));

  marks.host("numeric");
  resize_huge(c.col_idx, static_cast<std::size_t>(nnz));
  resize_huge(c.values, static_cast<std::size_t>(nnz));
  std::int64_t zeros = 0;
#pragma omp parallel num_threads(threads) reduction(+ : zeros)
  {
    std::vector<std::int64_t> mark(static_cast<std::size_t>(p.block_cols), -1);
    std::vector<std::int32_t> slot(static_cast<std::size_t>(p.block_cols));
    std::vector<T> acc(static_cast<std::size_t>(widest) * B * B);
    std::vector<std::int32_t> cols(static_cast<std::size_t>(widest));
#pragma omp for schedule(dynamic, kChunk)
    for (std::int64_t I = 0; I < block_rows; ++I)
      zeros += p.numeric(I, c.row_ptr[B * I], mark.data(), slot.data(), acc.data(), cols.data(), c.col_idx.data(),
                         c.values.data());
  }
  if (zeros > 0) detail::drop_exact_zeros(c, threads);
  return c;
}

template <class T>
SpgemmResult<T> bsr_spgemm(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  const int threads = std::max(1, opts.threads);
  const detail::ScopedOmpThreads team(opts.threads);
  const detail::StageMarks marks(opts);
  marks.host("structure");
  const int ba = detail::full_block_size(a);
  const int bb = &a == &b ? ba : detail::full_block_size(b);
  // The largest block size both are made of (a matrix of full 4x4 blocks is one of 2x2 blocks too).
  int bs = 0;
  for (int cand : {4, 3, 2})
    if (bs == 0 && ba % cand == 0 && bb % cand == 0 && ba > 0 && bb > 0 && b.cols % cand == 0) bs = cand;
  if (bs == 0)
    throw NotApplicable(std::string(kName) + ": A and B are not made of aligned full 2x2, 3x3 or 4x4 blocks "
                        "(as vector-valued finite-element matrices numbered node by node are)");
  SpgemmResult<T> r;
  r.c = bs == 4 ? block_product<T, 4>(a, b, threads, marks)
                : bs == 3 ? block_product<T, 3>(a, b, threads, marks) : block_product<T, 2>(a, b, threads, marks);
  marks.end();
  r.detail = std::to_string(bs) + "x" + std::to_string(bs) + " blocks, " + std::to_string(threads) + " threads";
  return r;
}

}  // namespace

void register_cpu_bsr_spgemm(SpgemmRegistry& reg) {
  SpgemmKernelInfo k;
  k.name = kName;
  k.format = Format::bsr;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.description =
      "Gustavson's row-wise product over the dense 2x2-4x4 blocks of vector-valued finite-element matrices: one "
      "accumulator slot per block column of C, b x b block products summed in A's row order, OpenMP over block "
      "rows; refuses matrices not made of full blocks";
  k.run_f32 = bsr_spgemm<float>;
  k.run_f64 = bsr_spgemm<double>;
  reg.add(std::move(k));
}

}  // namespace spkit
