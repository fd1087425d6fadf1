// CPU bmSparse kernels (the bitmap-blocked format of Berger et al.'s bmSparse): one block row at a time,
// eight row accumulators, written through the alpha/beta epilogue. With AVX-512 each
// block row of the 8x8 block is one masked expand-load of its packed values times a masked load of x
// (the bitmap byte is the mask), so the block is multiplied without unpacking; elsewhere a bit loop.
// GCC 12's AVX-512 intrinsics start from an undefined vector and trip -Wmaybe-uninitialized in
// every caller (a known false positive); silence it for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <string>

#include "kernels/cpu/cpu_common.hpp"
#include "spkit/formats/bmsparse.hpp"
#include "spkit/kernel.hpp"

namespace spkit {
namespace {

// Bitmap byte of row r is MSB-first (column 0 = bit 7); vector masks are LSB-first (lane 0 = bit 0).
constexpr std::array<std::uint8_t, 256> make_reverse() {
  std::array<std::uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    int r = 0;
    for (int i = 0; i < 8; ++i)
      if (b & (1 << i)) r |= 1 << (7 - i);
    t[b] = static_cast<std::uint8_t>(r);
  }
  return t;
}
constexpr std::array<std::uint8_t, 256> kReverse = make_reverse();

// Portable block row: walk the set bits from the most significant end.
template <class T, class Out>
void block_row_scalar(const BmSparse<T>& bm, std::int64_t br, const T* __restrict x, T* __restrict y, Out out) {
  T acc[8] = {};
  for (std::int64_t b = bm.block_row_ptr[br]; b < bm.block_row_ptr[br + 1]; ++b) {
    std::uint64_t bits = bm.bitmaps[b];
    const T* __restrict v = bm.values.data() + bm.offsets[b];
    const T* __restrict xb = x + BmSparse<T>::key_col(bm.keys[b]) * 8;
    while (bits) {
      const int e = __builtin_clzll(bits);  // element index, row-major in the block
      acc[e >> 3] += *v++ * xb[e & 7];
      bits &= ~(std::uint64_t{1} << (63 - e));
    }
  }
  const int nr = static_cast<int>(std::min<std::int64_t>(8, bm.rows - br * 8));
  for (int r = 0; r < nr; ++r) out.write(y[br * 8 + r], acc[r]);
}

#if defined(__AVX512F__)
template <class Out>
void block_row_simd(const BmSparse<double>& bm, std::int64_t br, const double* __restrict x, double* __restrict y,
                    Out out) {
  __m512d acc[8];
  for (auto& a : acc) a = _mm512_setzero_pd();
  for (std::int64_t b = bm.block_row_ptr[br]; b < bm.block_row_ptr[br + 1]; ++b) {
    const std::uint64_t bits = bm.bitmaps[b];
    const double* v = bm.values.data() + bm.offsets[b];
    const double* xb = x + BmSparse<double>::key_col(bm.keys[b]) * 8;
    for (int r = 0; r < 8; ++r) {
      const unsigned byte = static_cast<unsigned>(bits >> (56 - 8 * r)) & 0xffu;
      const __mmask8 m = kReverse[byte];
      acc[r] = _mm512_fmadd_pd(_mm512_maskz_expandloadu_pd(m, v), _mm512_maskz_loadu_pd(m, xb), acc[r]);
      v += __builtin_popcount(byte);
    }
  }
  const int nr = static_cast<int>(std::min<std::int64_t>(8, bm.rows - br * 8));
  for (int r = 0; r < nr; ++r) out.write(y[br * 8 + r], _mm512_reduce_add_pd(acc[r]));
}
#endif
#if defined(__AVX512F__) && defined(__AVX512VL__)
inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
template <class Out>
void block_row_simd(const BmSparse<float>& bm, std::int64_t br, const float* __restrict x, float* __restrict y,
                    Out out) {
  __m256 acc[8];
  for (auto& a : acc) a = _mm256_setzero_ps();
  for (std::int64_t b = bm.block_row_ptr[br]; b < bm.block_row_ptr[br + 1]; ++b) {
    const std::uint64_t bits = bm.bitmaps[b];
    const float* v = bm.values.data() + bm.offsets[b];
    const float* xb = x + BmSparse<float>::key_col(bm.keys[b]) * 8;
    for (int r = 0; r < 8; ++r) {
      const unsigned byte = static_cast<unsigned>(bits >> (56 - 8 * r)) & 0xffu;
      const __mmask8 m = kReverse[byte];
      acc[r] = _mm256_fmadd_ps(_mm256_maskz_expandloadu_ps(m, v), _mm256_maskz_loadu_ps(m, xb), acc[r]);
      v += __builtin_popcount(byte);
    }
  }
  const int nr = static_cast<int>(std::min<std::int64_t>(8, bm.rows - br * 8));
  for (int r = 0; r < nr; ++r) out.write(y[br * 8 + r], hsum256(acc[r]));
}
#endif

template <class T, class Out>
void block_row(const BmSparse<T>& bm, std::int64_t br, const T* x, T* y, Out out) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
  block_row_simd(bm, br, x, y, out);
#else
  block_row_scalar(bm, br, x, y, out);
#endif
}

template <class T>
std::uint64_t bm_moved(const BmSparse<T>& bm) {
  return bm.memory_bytes() + static_cast<std::uint64_t>(bm.rows + bm.cols) * sizeof(T);
}
template <class T>
std::string bm_detail(const BmSparse<T>& bm) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%lld blocks, %.1f non-zeros per block",
                static_cast<long long>(bm.blocks()),
                bm.blocks() ? static_cast<double>(bm.nnz()) / static_cast<double>(bm.blocks()) : 0.0);
  return buf;
}

template <class T>
class BmSerial : public CpuSpmvPlan<T> {
 public:
  BmSerial(const Csr<T>& a, const PlanOptions& o) : bm_(csr_to_bmsparse(a, FormatLimits{o.memory_budget_bytes})) {}
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    cpu::with_epilogue(alpha, beta, [&](auto out) {
      for (std::int64_t br = 0; br < bm_.block_rows(); ++br) block_row(bm_, br, x, y, out);
    });
  }
  std::uint64_t bytes_moved() const override { return bm_moved(bm_); }
  std::string detail() const override { return bm_detail(bm_); }

 private:
  BmSparse<T> bm_;
};

// Block rows split into one contiguous range per thread with balanced non-zeros (plan time).
template <class T>
class BmOmp : public CpuSpmvPlan<T> {
 public:
  BmOmp(const Csr<T>& a, const PlanOptions& o)
      : bm_(csr_to_bmsparse(a, FormatLimits{o.memory_budget_bytes})), threads_(cpu::plan_threads(o.threads)) {
    // Cost of a block row ~ its blocks (8 row steps each): balance on block counts.
    cut_ = cpu::nnz_balanced_rows(bm_.block_row_ptr, bm_.block_rows(), threads_);
  }
  void run(T alpha, const T* x, T beta, T* y, Stream) override {
    const int ranges = static_cast<int>(cut_.size()) - 1;
    cpu::with_epilogue(alpha, beta, [&](auto out) {
#pragma omp parallel num_threads(threads_)
      {
        const int nt = omp_get_num_threads();
        for (int r = omp_get_thread_num(); r < ranges; r += nt)
          for (std::int64_t br = cut_[r]; br < cut_[r + 1]; ++br) block_row(bm_, br, x, y, out);
      }
    });
  }
  std::uint64_t bytes_moved() const override { return bm_moved(bm_); }
  std::string detail() const override { return bm_detail(bm_); }

 private:
  BmSparse<T> bm_;
  int threads_;
  std::vector<std::int64_t> cut_;
};

}  // namespace

void register_cpu_bmsparse_kernels(Registry& reg) {
  {
    KernelInfo k;
    k.name = "cpu.bmsparse.serial";
    k.format = Format::bmsparse;
    k.backend = Backend::cpu;
    k.description = "serial bmSparse (Berger et al.'s 8x8 bitmap blocks) over block rows; AVX-512 masked "
                    "expand-loads per block row";
    add_kernel<BmSerial>(reg, std::move(k));
  }
  {
    KernelInfo k;
    k.name = "cpu.bmsparse.omp";
    k.format = Format::bmsparse;
    k.backend = Backend::cpu;
    k.parallel = true;
    k.description = "OpenMP bmSparse (Berger et al.'s 8x8 bitmap blocks), block rows split by balanced block counts";
    add_kernel<BmOmp>(reg, std::move(k));
  }
}

}  // namespace spkit
