#pragma once
// Block products of stage T6 of the bmSparse SpGEMM (Berger et al., 2.4.4.2 and 3.4): the policies one
// kernel template is instantiated with. Each policy computes whole 8x8 output blocks with one warp:
// it walks the (sorted) tasks of its output block(s), expands each pair of input blocks to dense
// 8x8 from their bitmaps (MSB-first: element e = 8r + c is bit 63 - e) and packed values, multiplies
// and accumulates, and hands the finished block to store_pairs()/store_halves().
//
//   CudaCores       FP32/FP64 FMAs on CUDA cores; blocks staged in shared memory (bmSparse's CC kernel).
//   TcFp16Naive     wmma 16x16x16, FP16 in / FP32 accumulate, one block in the top-left quadrant of each
//                   fragment, staged through shared memory (bmSparse's TC_naive).
//   TcFp16Pair      mma.sync m16n8k16: two output blocks per warp, A = [A_X 0; 0 A_Y], B = [B_X; B_Y],
//                   C = [C_X; C_Y]: two block products per instruction, fragments filled straight from
//                   the packed values (bmSparse's TC_2blk, on Hopper's 16x8 shape).
//   TcFp16TwoTask   mma.sync m16n8k16 twice per step: two output blocks and two tasks of each,
//                   A = [A_X1 A_X2; A_Y1 A_Y2], B = [B_X1; B_X2] then [B_Y1; B_Y2] (bmSparse's TC_2tsk).
//   TcTf32          mma.sync m16n8k8 TF32 in / FP32 accumulate, one block product per instruction.
//   TcFp64          mma.sync m8n8k4 FP64: one 8x8x8 block product in two instructions, no rounding of
//                   the inputs.
// Fragment layouts are those of the PTX ISA (g = lane / 4, t = lane % 4); every C fragment used here
// gives lane l the elements 2l and 2l + 1 of the output block ("pairs" layout).
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>

namespace spkit::cuda::spgemm {

// Inputs and outputs of T6.
template <class T>
struct MultiplyArgs {
  const std::uint64_t* tasks;        // sorted task list: (n << 32) | m
  const std::int64_t* task_start;    // n_out + 1: tasks of output block b are [task_start[b], task_start[b+1])
  std::int64_t n_out;                // output blocks
  const std::uint64_t* a_bitmaps;
  const std::int64_t* a_offsets;
  const T* a_values;
  const std::uint64_t* b_bitmaps;
  const std::int64_t* b_offsets;
  const T* b_values;
  T* c_dense;                        // n_out * 64, row-major per block
  std::uint64_t* c_bitmaps;          // n_out, numerically non-zero entries (MSB-first)
  std::int64_t* c_counts;            // n_out (+1 left for the scan), popcount of the bitmap
};

// A block of an input matrix as seen by one task: its bitmap and where its packed values start.
template <class T>
struct BlockRef {
  std::uint64_t bitmap = 0;  // 0 for "no block" (a padded task): every element reads as zero
  const T* values = nullptr;
};

__device__ __forceinline__ bool has_elem(std::uint64_t bitmap, int e) { return (bitmap >> (63 - e)) & 1u; }
// Position of element e among the block's packed values: the set bits before it (above it, MSB-first).
__device__ __forceinline__ int rank_of(std::uint64_t bitmap, int e) { return __popcll((bitmap >> (63 - e)) >> 1); }

template <class T>
__device__ __forceinline__ T elem(const BlockRef<T>& blk, int r, int c) {
  const int e = 8 * r + c;
  return has_elem(blk.bitmap, e) ? blk.values[rank_of(blk.bitmap, e)] : T(0);
}

template <class T>
__device__ __forceinline__ BlockRef<T> a_block(const MultiplyArgs<T>& a, std::uint64_t task) {
  const std::uint32_t n = static_cast<std::uint32_t>(task >> 32);
  return {a.a_bitmaps[n], a.a_values + a.a_offsets[n]};
}
template <class T>
__device__ __forceinline__ BlockRef<T> b_block(const MultiplyArgs<T>& a, std::uint64_t task) {
  const std::uint32_t m = static_cast<std::uint32_t>(task & 0xffffffffu);
  return {a.b_bitmaps[m], a.b_values + a.b_offsets[m]};
}

// Bits of x (32) to the even positions of a 64-bit word.
__device__ __forceinline__ std::uint64_t spread_bits(std::uint32_t x32) {
  std::uint64_t x = x32;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

// Stores output block b held as lane l: elements 2l, 2l+1 (the mma C layout). All 32 lanes call it.
template <class T, class Acc>
__device__ __forceinline__ void store_pairs(const MultiplyArgs<T>& args, std::int64_t b, Acc v0, Acc v1, int lane) {
  const T x0 = static_cast<T>(v0), x1 = static_cast<T>(v1);
  const std::uint32_t even = __ballot_sync(0xffffffffu, x0 != T(0));
  const std::uint32_t odd = __ballot_sync(0xffffffffu, x1 != T(0));
  T* out = args.c_dense + b * 64 + 2 * lane;
  out[0] = x0;
  out[1] = x1;
  if (lane == 0) {
    // bit e of (spread(even) | spread(odd) << 1) is element e; bmSparse wants element e at bit 63 - e.
    const std::uint64_t bitmap = __brevll(spread_bits(even) | (spread_bits(odd) << 1));
    args.c_bitmaps[b] = bitmap;
    args.c_counts[b] = __popcll(bitmap);
  }
}

// Stores output block b held as lane l: elements l and l + 32. All 32 lanes call it.
template <class T, class Acc>
__device__ __forceinline__ void store_halves(const MultiplyArgs<T>& args, std::int64_t b, Acc lo, Acc hi, int lane) {
  const T x0 = static_cast<T>(lo), x1 = static_cast<T>(hi);
  const std::uint32_t top = __ballot_sync(0xffffffffu, x0 != T(0));
  const std::uint32_t bottom = __ballot_sync(0xffffffffu, x1 != T(0));
  args.c_dense[b * 64 + lane] = x0;
  args.c_dense[b * 64 + lane + 32] = x1;
  if (lane == 0) {
    const std::uint64_t bitmap = (static_cast<std::uint64_t>(__brev(top)) << 32) | __brev(bottom);
    args.c_bitmaps[b] = bitmap;
    args.c_counts[b] = __popcll(bitmap);
  }
}

__device__ __forceinline__ std::uint32_t pack_half2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);  // .x (low 16 bits) = lo
  return *reinterpret_cast<const std::uint32_t*>(&h);
}
__device__ __forceinline__ std::uint32_t to_tf32(float x) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ void mma_f16_16x8x16(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                                std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_tf32_16x8x8(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                                std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_f64_8x8x4(double& c0, double& c1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(c0), "+d"(c1)
               : "d"(a), "d"(b));
}

// ------------------------------------------------------------------------------------------------
struct CudaCores {
  static constexpr int kBlocksPerWarp = 1;
  template <class T>
  struct Shared {
    T a[64], b[64];
  };
  template <class T>
  __device__ static void run(const MultiplyArgs<T>& args, std::int64_t b, int lane, Shared<T>& sh) {
    const int r = lane >> 3, c = lane & 7;
    T acc0 = 0, acc1 = 0;  // elements (r, c) and (r + 4, c)
    for (std::int64_t t = args.task_start[b]; t < args.task_start[b + 1]; ++t) {
      const std::uint64_t task = args.tasks[t];
      const BlockRef<T> ab = a_block(args, task), bb = b_block(args, task);
      sh.a[lane] = elem(ab, r, c);
      sh.a[lane + 32] = elem(ab, r + 4, c);
      sh.b[lane] = elem(bb, r, c);
      sh.b[lane + 32] = elem(bb, r + 4, c);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const T bk = sh.b[8 * k + c];
        acc0 += sh.a[8 * r + k] * bk;
        acc1 += sh.a[8 * (r + 4) + k] * bk;
      }
      __syncwarp();
    }
    store_halves(args, b, acc0, acc1, lane);
  }
};

struct TcFp16Naive {
  static constexpr int kBlocksPerWarp = 1;
  template <class T>
  struct Shared {
    __align__(32) __half a[16 * 16];
    __align__(32) __half b[16 * 16];
    __align__(32) float c[16 * 16];
  };
  template <class T>
  __device__ static void run(const MultiplyArgs<T>& args, std::int64_t b, int lane, Shared<T>& sh) {
    using namespace nvcuda;
    // Only the top-left 8x8 quadrant is ever written: the rest stays zero from here on.
    for (int i = lane; i < 256; i += 32) sh.a[i] = sh.b[i] = __float2half(0.0f);
    __syncwarp();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    const int r = lane >> 3, c = lane & 7;
    for (std::int64_t t = args.task_start[b]; t < args.task_start[b + 1]; ++t) {
      const std::uint64_t task = args.tasks[t];
      const BlockRef<T> ab = a_block(args, task), bb = b_block(args, task);
      sh.a[16 * r + c] = __float2half(static_cast<float>(elem(ab, r, c)));
      sh.a[16 * (r + 4) + c] = __float2half(static_cast<float>(elem(ab, r + 4, c)));
      sh.b[16 * r + c] = __float2half(static_cast<float>(elem(bb, r, c)));
      sh.b[16 * (r + 4) + c] = __float2half(static_cast<float>(elem(bb, r + 4, c)));
      __syncwarp();
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
      wmma::load_matrix_sync(fa, sh.a, 16);
      wmma::load_matrix_sync(fb, sh.b, 16);
      wmma::mma_sync(acc, fa, fb, acc);
      __syncwarp();
    }
    wmma::store_matrix_sync(sh.c, acc, 16, wmma::mem_row_major);
    __syncwarp();
    const float lo = sh.c[16 * r + c], hi = sh.c[16 * (r + 4) + c];
    __syncwarp();
    store_halves(args, b, lo, hi, lane);
  }
};

// Task s of output block X, or "no block" past its end (then its quadrant multiplies zeros).
template <class T>
__device__ __forceinline__ void task_blocks(const MultiplyArgs<T>& args, std::int64_t begin, std::int64_t end,
                                            std::int64_t s, BlockRef<T>& ab, BlockRef<T>& bb) {
  if (begin + s < end) {
    const std::uint64_t task = args.tasks[begin + s];
    ab = a_block(args, task), bb = b_block(args, task);
  } else {
    ab = BlockRef<T>{}, bb = BlockRef<T>{};
  }
}

template <class T>
__device__ __forceinline__ float elemf(const BlockRef<T>& blk, int r, int c) {
  return blk.bitmap ? static_cast<float>(elem(blk, r, c)) : 0.0f;
}

struct TcFp16Pair {
  static constexpr int kBlocksPerWarp = 2;
  template <class T>
  struct Shared {};
  template <class T>
  __device__ static void run(const MultiplyArgs<T>& args, std::int64_t bx, int lane, Shared<T>&) {
    const std::int64_t by = bx + 1;  // may be past the end: then it has no tasks and is not stored
    const std::int64_t x0 = args.task_start[bx], x1 = args.task_start[bx + 1];
    const std::int64_t y0 = by < args.n_out ? args.task_start[by] : 0, y1 = by < args.n_out ? args.task_start[by + 1] : 0;
    const std::int64_t steps = x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0;
    const int g = lane >> 2, t = lane & 3;
    float acc[4] = {0, 0, 0, 0};
    for (std::int64_t s = 0; s < steps; ++s) {
      BlockRef<T> ax, bxb, ay, byb;
      task_blocks(args, x0, x1, s, ax, bxb);
      task_blocks(args, y0, y1, s, ay, byb);
      std::uint32_t a[4];
      a[0] = pack_half2(elemf(ax, g, 2 * t), elemf(ax, g, 2 * t + 1));  // rows 0-7, cols 0-7: A_X
      a[1] = 0;                                                          // rows 8-15, cols 0-7
      a[2] = 0;                                                          // rows 0-7, cols 8-15
      a[3] = pack_half2(elemf(ay, g, 2 * t), elemf(ay, g, 2 * t + 1));  // rows 8-15, cols 8-15: A_Y
      const std::uint32_t b0 = pack_half2(elemf(bxb, 2 * t, g), elemf(bxb, 2 * t + 1, g));  // rows 0-7: B_X
      const std::uint32_t b1 = pack_half2(elemf(byb, 2 * t, g), elemf(byb, 2 * t + 1, g));  // rows 8-15: B_Y
      mma_f16_16x8x16(acc, a, b0, b1);
    }
    store_pairs(args, bx, acc[0], acc[1], lane);
    // Lanes agree on whether Y exists, so the ballots inside see the whole warp.
    if (by < args.n_out) store_pairs(args, by, acc[2], acc[3], lane);
  }
};

struct TcFp16TwoTask {
  static constexpr int kBlocksPerWarp = 2;
  template <class T>
  struct Shared {};
  template <class T>
  __device__ static void run(const MultiplyArgs<T>& args, std::int64_t bx, int lane, Shared<T>&) {
    const std::int64_t by = bx + 1;
    const std::int64_t x0 = args.task_start[bx], x1 = args.task_start[bx + 1];
    const std::int64_t y0 = by < args.n_out ? args.task_start[by] : 0, y1 = by < args.n_out ? args.task_start[by + 1] : 0;
    const std::int64_t steps = ((x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0) + 1) / 2;
    const int g = lane >> 2, t = lane & 3;
    float accx[4] = {0, 0, 0, 0}, accy[4] = {0, 0, 0, 0};
    for (std::int64_t s = 0; s < steps; ++s) {
      BlockRef<T> ax1, bx1, ax2, bx2, ay1, by1, ay2, by2;
      task_blocks(args, x0, x1, 2 * s, ax1, bx1);
      task_blocks(args, x0, x1, 2 * s + 1, ax2, bx2);
      task_blocks(args, y0, y1, 2 * s, ay1, by1);
      task_blocks(args, y0, y1, 2 * s + 1, ay2, by2);
      std::uint32_t a[4];
      a[0] = pack_half2(elemf(ax1, g, 2 * t), elemf(ax1, g, 2 * t + 1));  // rows 0-7,  k 0-7
      a[1] = pack_half2(elemf(ay1, g, 2 * t), elemf(ay1, g, 2 * t + 1));  // rows 8-15, k 0-7
      a[2] = pack_half2(elemf(ax2, g, 2 * t), elemf(ax2, g, 2 * t + 1));  // rows 0-7,  k 8-15
      a[3] = pack_half2(elemf(ay2, g, 2 * t), elemf(ay2, g, 2 * t + 1));  // rows 8-15, k 8-15
      mma_f16_16x8x16(accx, a, pack_half2(elemf(bx1, 2 * t, g), elemf(bx1, 2 * t + 1, g)),
                      pack_half2(elemf(bx2, 2 * t, g), elemf(bx2, 2 * t + 1, g)));
      mma_f16_16x8x16(accy, a, pack_half2(elemf(by1, 2 * t, g), elemf(by1, 2 * t + 1, g)),
                      pack_half2(elemf(by2, 2 * t, g), elemf(by2, 2 * t + 1, g)));
    }
    store_pairs(args, bx, accx[0], accx[1], lane);  // rows 0-7 of the first product
    if (by < args.n_out) store_pairs(args, by, accy[2], accy[3], lane);  // rows 8-15 of the second
  }
};

struct TcTf32 {
  static constexpr int kBlocksPerWarp = 1;
  template <class T>
  struct Shared {};
  template <class T>
  __device__ static void run(const MultiplyArgs<T>& args, std::int64_t b, int lane, Shared<T>&) {
    const int g = lane >> 2, t = lane & 3;
    float acc[4] = {0, 0, 0, 0};
    for (std::int64_t s = args.task_start[b]; s < args.task_start[b + 1]; ++s) {
      const std::uint64_t task = args.tasks[s];
      const BlockRef<T> ab = a_block(args, task), bb = b_block(args, task);
      // A 16x8: rows 0-7 the A block, rows 8-15 zero; B 8x8.
      const std::uint32_t a[4] = {to_tf32(static_cast<float>(elem(ab, g, t))), 0u,
                                  to_tf32(static_cast<float>(elem(ab, g, t + 4))), 0u};
      mma_tf32_16x8x8(acc, a, to_tf32(static_cast<float>(elem(bb, t, g))), to_tf32(static_cast<float>(elem(bb, t + 4, g))));
    }
    store_pairs(args, b, acc[0], acc[1], lane);
  }
};

struct TcFp64 {
  static constexpr int kBlocksPerWarp = 1;
  template <class T>
  struct Shared {};
  template <class T>
  __device__ static void run(const MultiplyArgs<T>& args, std::int64_t b, int lane, Shared<T>&) {
    const int g = lane >> 2, t = lane & 3;
    double c0 = 0, c1 = 0;
    for (std::int64_t s = args.task_start[b]; s < args.task_start[b + 1]; ++s) {
      const std::uint64_t task = args.tasks[s];
      const BlockRef<T> ab = a_block(args, task), bb = b_block(args, task);
      // k = 0..3, then k = 4..7: A 8x4 holds (g, t), B 4x8 holds (t, g).
      mma_f64_8x8x4(c0, c1, static_cast<double>(elem(ab, g, t)), static_cast<double>(elem(bb, t, g)));
      mma_f64_8x8x4(c0, c1, static_cast<double>(elem(ab, g, t + 4)), static_cast<double>(elem(bb, t + 4, g)));
    }
    store_pairs(args, b, c0, c1, lane);
  }
};

}  // namespace spkit::cuda::spgemm
