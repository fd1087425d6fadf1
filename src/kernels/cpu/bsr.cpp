// CPU BSR kernel (cpu.bsr.omp): register-blocked SpMV over dense b x b blocks (b = 2, 3 or 4), for
// matrices assembled from dense degree-of-freedom blocks (3-dof FEM, elasticity). One column index per
// block instead of one per entry, and x read once per block column: a 3 x 3 float block moves 4 + 4/9
// bytes per non-zero with 32-bit block columns, about 4 + 2/9 with 16-bit deltas (MKL's BSR: 4 + 4/9),
// against CSR's 8. The block size is detected at plan time: the b whose aligned blocks move the fewest
// bytes, refused (NotApplicable) where the blocks are not nearly full or would move more than CSR.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "formats/bm_blocks.hpp"
#include "kernels/cost_model.hpp"
#include "kernels/cpu/bsr_block.hpp"
#include "kernels/cpu/cpu_common.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/format_common.hpp"
#include "spkit/kernel.hpp"
#include "tuning.hpp"

namespace spkit {
namespace {

template <class T>
class BsrOmp : public CpuSpmvPlan<T> {
 public:
  BsrOmp(const Csr<T>& a, const PlanOptions& o)
      : threads_(cpu::plan_threads(o.threads)), rows_(a.rows), cols_(a.cols), nnz_(a.nnz()) {
    if (nnz_ == 0 || rows_ == 0) throw NotApplicable("cpu.bsr.omp: no non-zeros");
    if (cols_ / kMinBlock >= std::numeric_limits<std::int32_t>::max())
      throw NotApplicable("cpu.bsr.omp: more than 2^31 block columns");
    choose_block(a);
    fill(a, o);
  }

  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      if (delta16_) dispatch<cpu::DeltaColumns>(x, y, out);
      else dispatch<cpu::AbsoluteColumns>(x, y, out);
    });
  }

  std::uint64_t bytes_moved() const override {
    const std::uint64_t columns = delta16_ ? 2 * static_cast<std::uint64_t>(blocks_) + 4 * far_.size()
                                           : 4 * static_cast<std::uint64_t>(blocks_);
    return static_cast<std::uint64_t>(blocks_) * static_cast<std::uint64_t>(b_ * b_) * sizeof(T) + columns +
           static_cast<std::uint64_t>(block_rows_ + 1) * 8 + ragged_end_.size() +
           static_cast<std::uint64_t>(rows_ + cols_) * sizeof(T);
  }
  std::string detail() const override {
    char fill[32];
    std::snprintf(fill, sizeof fill, "%.2f", static_cast<double>(blocks_) * b_ * b_ / static_cast<double>(nnz_));
    const std::string columns = delta16_ ? "16-bit delta block columns (" + std::to_string(far_.size()) + " escaped)"
                                         : "32-bit block columns";
    return std::to_string(b_) + "x" + std::to_string(b_) + " blocks, fill " + fill + ", " + columns + ", " +
           std::to_string(cut_.size() - 1) + " block-row ranges";
  }

 private:
  static constexpr int kMinBlock = 2, kMaxBlock = 4;

  // The block size whose BSR moves the fewest bytes; refused where even that one stores more than
  // tuning::kCpuBsrMaxFill entries per non-zero or moves more than CSR with 32-bit columns.
  void choose_block(const Csr<T>& a) {
    double best_bytes = 0, best_fill = 0;
    for (int b = kMinBlock; b <= kMaxBlock; ++b) {
      std::vector<std::int64_t> count = detail::blocks_per_block_row(a, b, threads_);
      std::int64_t blocks = 0;
      for (std::int64_t c : count) blocks += c;
      const double fill = static_cast<double>(blocks) * b * b / static_cast<double>(nnz_);
      const double bytes = static_cast<double>(blocks) * (b * b * sizeof(T) + 4);
      if (b_ == 0 || bytes < best_bytes) {
        b_ = b, best_bytes = bytes, best_fill = fill, blocks_ = blocks;
        count_ = std::move(count);
      }
    }
    const double csr_bytes = static_cast<double>(nnz_) * (sizeof(T) + 4);
    if (best_fill > tuning::kCpuBsrMaxFill || best_bytes >= csr_bytes) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "cpu.bsr.omp: the best block size (%dx%d) stores %.2f entries per non-zero (at most %.2f pays)",
                    b_, b_, best_fill, tuning::kCpuBsrMaxFill);
      throw NotApplicable(buf);
    }
  }

  void fill(const Csr<T>& a, const PlanOptions& o) {
    const int b = b_;
    block_rows_ = (rows_ + b - 1) / b;
    block_cols_ = (cols_ + b - 1) / b;
    const std::uint64_t need = static_cast<std::uint64_t>(blocks_) * (b * b * sizeof(T) + 4);
    FormatLimits limits;
    limits.memory_budget_bytes = o.memory_budget_bytes;
    if (need > effective_budget(limits)) throw TooLarge("cpu.bsr.omp: the blocks exceed the memory budget", need);
    bptr_.assign(static_cast<std::size_t>(block_rows_) + 1, 0);
    for (std::int64_t br = 0; br < block_rows_; ++br) bptr_[br + 1] = bptr_[br] + count_[br];
    count_.clear();
    count_.shrink_to_fit();
    cut_ = cpu::nnz_balanced_rows(bptr_, block_rows_, threads_);
    const int ranges = static_cast<int>(cut_.size()) - 1;
    val_ = cpu::FirstTouchArray<T>(static_cast<std::size_t>(blocks_) * b * b);
    std::vector<std::int32_t> bcol(static_cast<std::size_t>(blocks_));
    std::vector<std::int64_t> escapes(static_cast<std::size_t>(ranges) + 1, 0);
    if (cols_ % b != 0) ragged_end_.assign(static_cast<std::size_t>(block_rows_), 0);
    // Each range filled by the thread that will read it (first touch), with the same assignment as run().
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int r = omp_get_thread_num(); r < ranges; r += nt)
        for (std::int64_t br = cut_[r]; br < cut_[r + 1]; ++br) {
          std::int64_t k = bptr_[br], prev = cpu::DeltaColumns::row_start(br);
          detail::for_each_block(a, b, br, [&](std::int64_t bc, int nr, const std::int64_t* rb, const std::int64_t* re) {
            T* v = val_.data() + k * b * b;
            std::fill(v, v + b * b, T(0));
            for (int q = 0; q < nr; ++q)
              for (std::int64_t j = rb[q]; j < re[q]; ++j) v[q * b + (a.col_idx[j] - bc * b)] = a.values[j];
            bcol[k++] = static_cast<std::int32_t>(bc);
            escapes[r + 1] += cpu::DeltaColumns::delta(prev, bc) == 0;
            prev = bc;
          });
          if (!ragged_end_.empty()) ragged_end_[br] = k > bptr_[br] && bcol[k - 1] == block_cols_ - 1;
        }
    }
    for (int r = 0; r < ranges; ++r) escapes[r + 1] += escapes[r];
    // 16-bit deltas pay while fewer than half the blocks escape to a 32-bit column (2 + 4 bytes each).
    delta16_ = 2 * escapes[ranges] < blocks_;
    if (delta16_) {
      col16_ = cpu::FirstTouchArray<std::uint16_t>(static_cast<std::size_t>(blocks_));
      far_ = cpu::FirstTouchArray<std::int32_t>(static_cast<std::size_t>(escapes[ranges]));
      far_begin_ = escapes;
    } else {
      col32_ = cpu::FirstTouchArray<std::int32_t>(static_cast<std::size_t>(blocks_));
    }
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int r = omp_get_thread_num(); r < ranges; r += nt) {
        std::int64_t f = delta16_ ? far_begin_[r] : 0;
        for (std::int64_t br = cut_[r]; br < cut_[r + 1]; ++br) {
          std::int64_t prev = cpu::DeltaColumns::row_start(br);
          for (std::int64_t k = bptr_[br]; k < bptr_[br + 1]; ++k) {
            if (!delta16_) {
              col32_[k] = bcol[k];
              continue;
            }
            const std::uint16_t d = cpu::DeltaColumns::delta(prev, bcol[k]);
            col16_[k] = d;
            if (d == 0) far_[f++] = bcol[k];
            prev = bcol[k];
          }
        }
      }
    }
  }

  template <class Columns, class Out>
  void dispatch(const T* x, T* y, Out out) {
    switch (b_) {
      case 2: run_with<2, Columns>(x, y, out); break;
      case 3: run_with<3, Columns>(x, y, out); break;
      default: run_with<4, Columns>(x, y, out); break;
    }
  }

  template <int B, class Columns, class Out>
  void run_with(const T* __restrict x, T* __restrict y, Out out) {
    const std::int64_t* __restrict bptr = bptr_.data();
    const T* __restrict val = val_.data();
    const int ranges = static_cast<int>(cut_.size()) - 1;
    // A last block column past the matrix (cols not a multiple of B) must not read x beyond cols.
    const std::int64_t ragged_bc = block_cols_ - 1;
    const int ragged_width = static_cast<int>(cols_ % B);
#pragma omp parallel num_threads(threads_)
    {
      const int nt = omp_get_num_threads();
      for (int r = omp_get_thread_num(); r < ranges; r += nt) {
        Columns columns = make_columns<Columns>(r);
        for (std::int64_t br = cut_[r]; br < cut_[r + 1]; ++br) {
          std::int64_t k = bptr[br], e = bptr[br + 1];
          const bool ragged = !ragged_end_.empty() && ragged_end_[br];
          if (ragged) --e;
          columns.start_row(br);
          cpu::BlockSums<T, B> sums;
          cpu::bsr_block_row(sums, val, columns, k, e, x);  // the AVX-512 overload where there is one
          if (ragged) {
            columns(e);  // its column is the last block column; the decoder moves past it
            sums.add_clipped(val + e * B * B, x + ragged_bc * B, ragged_width);
          }
          const int nr = static_cast<int>(std::min<std::int64_t>(B, rows_ - br * B));
          for (int q = 0; q < nr; ++q) out.write(y[br * B + q], sums.row(q));
        }
      }
    }
  }

  template <class Columns>
  Columns make_columns(int range) const {
    if constexpr (std::is_same_v<Columns, cpu::DeltaColumns>)
      return cpu::DeltaColumns{col16_.data(), far_.data() + far_begin_[range]};
    else
      return cpu::AbsoluteColumns{col32_.data()};
  }

  int threads_;
  std::int64_t rows_, cols_, nnz_;
  int b_ = 0;
  std::int64_t blocks_ = 0, block_rows_ = 0, block_cols_ = 0;
  bool delta16_ = false;
  std::vector<std::int64_t> count_, bptr_, cut_;
  std::vector<std::int64_t> far_begin_;  // per range: its first escaped column in far_
  std::vector<char> ragged_end_;         // per block row, when cols % b != 0: its last block is the ragged one
  cpu::FirstTouchArray<T> val_;          // blocks in block-row order, each row-major
  cpu::FirstTouchArray<std::uint16_t> col16_;
  cpu::FirstTouchArray<std::int32_t> col32_, far_;
};

// Cost model: the blocks of MatrixStats' block size, a 16-bit column each when the bandwidth keeps every
// block within 2^15 block rows of the diagonal (no escapes), else 32-bit (the statistics do not count
// escapes: a far-reaching mesh is costed at 32 bits even where its deltas mostly fit), block-row offsets,
// x and y.
CostEstimate bsr_cost(const MatrixStats& s, Precision p, const PlanOptions& o) {
  if (const std::string why = cost::bsr_refusal(s); !why.empty()) return cost::not_applicable(why);
  const int b = s.bsr_block;
  const bool narrow = s.max_diag_distance / b + 1 < (1 << 15);
  const std::uint64_t block_bytes = cost::bsr_block_bytes(s, p, narrow ? 2 : 4);
  CostEstimate e;
  e.applicable = true;
  e.bytes = block_bytes + cost::vector_bytes(s, p);
  e.efficiency = tuning::kCpuBsrEfficiency;
  e.launch_us = tuning::kCpuForkJoinUs + tuning::kCpuPerThreadUs * o.threads;
  e.convert_bytes = cost::csr_bytes(s, p) + block_bytes;
  e.note = std::to_string(b) + "x" + std::to_string(b) + " blocks, " + (narrow ? "16" : "32") + "-bit block columns";
  return e;
}

}  // namespace

void register_cpu_bsr_kernels(Registry& reg) {
  KernelInfo k;
  k.name = "cpu.bsr.omp";
  k.format = Format::bsr;
  k.backend = Backend::cpu;
  k.parallel = true;
  k.description = "OpenMP BSR: register-blocked dense 2x2/3x3/4x4 blocks (size detected at plan time), one "
                  "column index per block, 16-bit relative block columns when they fit";
  k.cost = bsr_cost;
  add_kernel<BsrOmp>(reg, std::move(k));
}

}  // namespace spkit
