// CPU bmSparse SpGEMM, block by block (Berger et al.'s bmSparse pipeline on the host; the reference for the
// GPU one):
//   convert   A and B to bmSparse (csr_to_bmsparse; once when B is A), not part of the product time;
//   multiply  OpenMP over block rows i of C: every pair A(i,j) B(j,k) (a task) is expanded to two
//             dense 8x8 blocks and multiplied into a dense 8x8 accumulator for C(i,k); then each
//             output block gets its bitmap from its non-zero entries (exact zeros dropped) and its
//             values packed, into the thread's own buffers;
//   compact   block rows concatenated into C's arrays (blocks that cancelled to all zeros gone);
//   to CSR    bmsparse_to_csr(C), not part of the product time (the contract returns CSR).
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spgemm/spgemm_util.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

constexpr int kDim = 8;
constexpr int kBlock = kDim * kDim;

// The packed values of one block into a dense row-major 8x8 array (bit 63 - e is element e): zero
// the block, then visit only the set bits (count-leading-zeros gives the next element), so the cost
// follows the block's non-zeros rather than a 64-step dependent walk.
template <class T>
inline void expand_block(std::uint64_t bitmap, const T* packed, T* dense) {
  for (int e = 0; e < kBlock; ++e) dense[e] = T(0);
  while (bitmap) {
    const int e = __builtin_clzll(bitmap);
    dense[e] = *packed++;
    bitmap ^= std::uint64_t{1} << (63 - e);
  }
}

// acc += x * y for dense 8x8 blocks (512 multiply-adds; the compiler vectorises the inner loop).
template <class T>
inline void multiply_add_block(const T* __restrict x, const T* __restrict y, T* __restrict acc) {
  for (int r = 0; r < kDim; ++r)
    for (int t = 0; t < kDim; ++t) {
      const T xr = x[r * kDim + t];
#pragma omp simd
      for (int c = 0; c < kDim; ++c) acc[r * kDim + c] += xr * y[t * kDim + c];
    }
}

// What one thread produced: output blocks of the block rows it handled, back to back.
template <class T>
struct ThreadBlocks {
  std::vector<std::uint64_t> keys, bitmaps;
  std::vector<std::int32_t> counts;  // values per block
  std::vector<T> values;
};

// Where block row i's output sits in its thread's buffers.
struct BlockRowSpan {
  int thread = 0;
  std::int64_t first_block = 0, blocks = 0, first_value = 0, values = 0;
};

template <class T>
SpgemmResult<T> bmsparse_blocks(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  const int threads = std::max(1, opts.threads);
  const detail::ScopedOmpThreads team(opts.threads);
  const std::int64_t block_cols_c = (b.cols + kDim - 1) / kDim;
  detail::check_spgemm_memory(
      "bmSparse SpGEMM block-column scratch for " + std::to_string(threads) + " threads",
      detail::mul_sat(static_cast<std::uint64_t>(block_cols_c) * sizeof(std::int32_t),
                      static_cast<std::uint64_t>(threads)),
      0.5);

  const detail::StageMarks marks(opts);
  marks.host("convert", false);
  const BmSparse<T> abm = csr_to_bmsparse(a);
  BmSparse<T> bbm_own;
  if (&a != &b) bbm_own = csr_to_bmsparse(b);
  const BmSparse<T>& bbm = &a != &b ? bbm_own : abm;
  marks.host("multiply");

  const std::int64_t block_rows = abm.block_rows();
  std::vector<ThreadBlocks<T>> out(static_cast<std::size_t>(threads));
  std::vector<BlockRowSpan> span(static_cast<std::size_t>(block_rows));
  std::int64_t tasks = 0;
#pragma omp parallel num_threads(threads) reduction(+ : tasks)
  {
    const int tid = omp_get_thread_num();
    ThreadBlocks<T>& mine = out[tid];
    std::vector<std::int32_t> slot(static_cast<std::size_t>(block_cols_c), -1);  // block column -> tile
    std::vector<std::int32_t> touched;
    std::vector<T> tiles;  // 64 values per touched output block
    alignas(64) T ablock[kBlock];
    alignas(64) T bblock[kBlock];
#pragma omp for schedule(dynamic, tuning::spgemm::kBmsparseBlockRowsPerChunk)
    for (std::int64_t i = 0; i < block_rows; ++i) {
      touched.clear();
      tiles.clear();
      for (std::int64_t n = abm.block_row_ptr[i]; n < abm.block_row_ptr[i + 1]; ++n) {
        const std::int64_t j = BmSparse<T>::key_col(abm.keys[n]);
        expand_block(abm.bitmaps[n], abm.values.data() + abm.offsets[n], ablock);
        for (std::int64_t m = bbm.block_row_ptr[j]; m < bbm.block_row_ptr[j + 1]; ++m) {
          const std::int64_t k = BmSparse<T>::key_col(bbm.keys[m]);
          if (slot[k] < 0) {
            slot[k] = static_cast<std::int32_t>(touched.size());
            touched.push_back(static_cast<std::int32_t>(k));
            tiles.resize(tiles.size() + kBlock, T(0));
          }
          expand_block(bbm.bitmaps[m], bbm.values.data() + bbm.offsets[m], bblock);
          multiply_add_block(ablock, bblock, tiles.data() + static_cast<std::size_t>(slot[k]) * kBlock);
          ++tasks;
        }
      }
      // Output blocks in block-column order; bitmap and packed values of the non-zero entries.
      std::sort(touched.begin(), touched.end());
      BlockRowSpan& s = span[i];
      s.thread = tid;
      s.first_block = static_cast<std::int64_t>(mine.keys.size());
      s.first_value = static_cast<std::int64_t>(mine.values.size());
      for (std::int32_t k : touched) {
        const T* tile = tiles.data() + static_cast<std::size_t>(slot[k]) * kBlock;
        slot[k] = -1;
        std::uint64_t bitmap = 0;
        std::int32_t count = 0;
        for (int e = 0; e < kBlock; ++e)
          if (tile[e] != T(0)) bitmap |= std::uint64_t{1} << (63 - e), mine.values.push_back(tile[e]), ++count;
        if (bitmap == 0) continue;  // the whole block cancelled
        mine.keys.push_back((static_cast<std::uint64_t>(i) << 32) | static_cast<std::uint64_t>(k));
        mine.bitmaps.push_back(bitmap);
        mine.counts.push_back(count);
      }
      s.blocks = static_cast<std::int64_t>(mine.keys.size()) - s.first_block;
      s.values = static_cast<std::int64_t>(mine.values.size()) - s.first_value;
    }
  }
  marks.host("compact");

  BmSparse<T> cbm;
  cbm.rows = a.rows;
  cbm.cols = b.cols;
  cbm.block_row_ptr.assign(static_cast<std::size_t>(block_rows) + 1, 0);
  std::vector<std::int64_t> value_start(static_cast<std::size_t>(block_rows) + 1, 0);
  for (std::int64_t i = 0; i < block_rows; ++i)
    cbm.block_row_ptr[i] = span[i].blocks, value_start[i] = span[i].values;
  const std::int64_t blocks = detail::exclusive_scan_inplace(cbm.block_row_ptr);
  const std::int64_t nnz = detail::exclusive_scan_inplace(value_start);
  detail::check_spgemm_memory("bmSparse SpGEMM output C with " + std::to_string(blocks) + " blocks",
                              static_cast<std::uint64_t>(blocks) * 24 + static_cast<std::uint64_t>(nnz) * sizeof(T));
  cbm.keys.resize(static_cast<std::size_t>(blocks));
  cbm.bitmaps.resize(static_cast<std::size_t>(blocks));
  cbm.offsets.resize(static_cast<std::size_t>(blocks) + 1);
  cbm.values.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 64)
  for (std::int64_t i = 0; i < block_rows; ++i) {
    const BlockRowSpan& s = span[i];
    const ThreadBlocks<T>& from = out[s.thread];
    std::int64_t offset = value_start[i];
    for (std::int64_t q = 0; q < s.blocks; ++q) {
      const std::int64_t dst = cbm.block_row_ptr[i] + q, src = s.first_block + q;
      cbm.keys[dst] = from.keys[src];
      cbm.bitmaps[dst] = from.bitmaps[src];
      cbm.offsets[dst] = offset;
      offset += from.counts[src];
    }
    std::copy_n(from.values.begin() + s.first_value, s.values, cbm.values.begin() + value_start[i]);
  }
  cbm.offsets[blocks] = nnz;
  marks.host("to CSR", false);
  SpgemmResult<T> r;
  r.c = bmsparse_to_csr(cbm);
  marks.end();
  r.out_blocks = blocks;
  r.tasks = tasks;
  r.detail = "dense 8x8 block products, " + std::to_string(threads) + " threads";
  return r;
}

}  // namespace

void register_cpu_bmsparse_spgemm(SpgemmRegistry& reg) {
  SpgemmKernelInfo k;
  k.name = "cpu.bmsparse.blocks";
  k.format = Format::bmsparse;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.description =
      "bmSparse (Berger et al.) block by block: A(i,j) B(j,k) pairs expanded to dense 8x8, multiplied, accumulated "
      "per output block";
  k.run_f32 = bmsparse_blocks<float>;
  k.run_f64 = bmsparse_blocks<double>;
  reg.add(std::move(k));
}

}  // namespace spkit
