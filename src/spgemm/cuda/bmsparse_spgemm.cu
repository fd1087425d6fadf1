// bmSparse SpGEMM on the GPU: Berger et al.'s pipeline T1-T7 (bmSparse, ch. 2.4.4 and 3), one template over the
// value type and the block-product policy (block_products.cuh), registered as cuda.bmsparse.<variant>.
//
//   T1 count      blocks per block row of B (from B's block_row_ptr)
//   T2 gather     |t_n| = B_count[col(A_keys[n])] for each block n of A
//   T3 task list  exclusive scan of |t_n|, then each A block writes its tasks (n, m), one warp per block,
//                 with the sort key of each task
//   T4 sort       by output block (i, k): segmented sort over the segments of equal i (the task list is
//                 built in i order), or one radix sort of (i, k) when the list holds fewer tasks than
//                 the threshold (bmSparse's adaptive sort, 3.3; tuning::spgemm::kRadixSortBelowTasks)
//   T5 keys       output keys by reduce-by-key: the heads of the runs of equal (i, k) give each output
//                 block its key and its task range
//   T6 multiply   one warp per output block (two for the paired variants): dense 8x8 products, bitmap
//                 of the numerically non-zero entries by __ballot_sync, counts by __popc
//   T7 compact    scan of the counts; blocks and values packed, numerical zeros dropped
// Task counts and all offsets are 64-bit; tasks are pairs of 32-bit block indices (n << 32 | m).
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "spgemm/cuda/block_products.cuh"
#include "spgemm/cuda/spgemm_cuda_common.cuh"
#include "spkit/formats/bmsparse.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace spgemm {
namespace {

constexpr int kThreads = kSpgemmThreads;
constexpr int kWarpsPerBlock = kThreads / 32;

int grid_for(std::int64_t items, int threads_per_item, int device) {
  return spgemm_grid(items, threads_per_item, device, kThreads);
}

// bmSparse matrix on the device (the inputs, uploaded in the stage "upload", outside the product time).
template <class T>
struct DeviceBlocks {
  std::int64_t rows = 0, cols = 0, blocks = 0, nnz = 0, brows = 0;
  DeviceBuffer<std::uint64_t> keys, bitmaps;
  DeviceBuffer<std::int64_t> offsets, block_row_ptr;
  DeviceBuffer<T> values;
};

template <class T>
DeviceBlocks<T> upload_blocks(const BmSparse<T>& m) {
  DeviceBlocks<T> d;
  d.rows = m.rows, d.cols = m.cols, d.blocks = m.blocks(), d.nnz = m.nnz(), d.brows = m.block_rows();
  d.keys = DeviceBuffer<std::uint64_t>(m.keys, "bmSparse keys");
  d.bitmaps = DeviceBuffer<std::uint64_t>(m.bitmaps, "bmSparse bitmaps");
  d.offsets = DeviceBuffer<std::int64_t>(m.offsets, "bmSparse offsets");
  d.block_row_ptr = DeviceBuffer<std::int64_t>(m.block_row_ptr, "bmSparse block_row_ptr");
  d.values = DeviceBuffer<T>(m.values, "bmSparse values");
  return d;
}

// C = A B in bmSparse on the device.
template <class T>
struct ProductBlocks {
  std::int64_t blocks = 0, nnz = 0, tasks = 0;
  bool radix = false;
  PoolBuffer<std::uint64_t> keys, bitmaps;
  PoolBuffer<std::int64_t> offsets, block_row_ptr;
  PoolBuffer<T> values;
};

// ------------------------------------------------------------------------------------------------
// Kernels
__global__ void set_value_kernel(std::int64_t* p, std::int64_t v) { *p = v; }

__global__ void count_blocks_kernel(const std::int64_t* block_row_ptr, std::int64_t brows, std::int64_t* count) {
  for (std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; j < brows;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    count[j] = block_row_ptr[j + 1] - block_row_ptr[j];
}

// task_count[n] = |t_n|; task_count[na] = 0 so that the exclusive scan ends with the total.
__global__ void gather_counts_kernel(const std::uint64_t* a_keys, std::int64_t na, const std::int64_t* b_count,
                                     std::int64_t* task_count) {
  for (std::int64_t n = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; n <= na;
       n += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    task_count[n] = n < na ? b_count[a_keys[n] & 0xffffffffu] : 0;
}

// One warp per A block n = (i, j): its tasks (n, m) for the blocks m of B's block row j, at pos[n].
// Sort key: the output block column k (segmented sort within block row i), or i * b_bcols + k (radix).
template <class Key>
__global__ void scatter_tasks_kernel(const std::uint64_t* a_keys, std::int64_t na, const std::int64_t* pos,
                                     const std::int64_t* b_block_row_ptr, const std::uint64_t* b_keys,
                                     std::uint64_t b_bcols, bool global_key, std::uint64_t* tasks, Key* keys) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t n = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32; n < na;
       n += warps) {
    const std::uint64_t key = a_keys[n];
    const std::uint64_t i = key >> 32, j = key & 0xffffffffu;
    const std::int64_t first = b_block_row_ptr[j], count = b_block_row_ptr[j + 1] - first;
    const std::int64_t out = pos[n];
    for (std::int64_t t = lane; t < count; t += 32) {
      const std::uint64_t m = static_cast<std::uint64_t>(first + t);
      const std::uint64_t k = b_keys[m] & 0xffffffffu;
      tasks[out + t] = (static_cast<std::uint64_t>(n) << 32) | m;
      keys[out + t] = static_cast<Key>(global_key ? i * b_bcols + k : k);
    }
  }
}

// Segment i of the task list (block row i of A): [pos[a_brp[i]], pos[a_brp[i + 1]]).
__global__ void segment_offsets_kernel(const std::int64_t* a_block_row_ptr, std::int64_t brows, const std::int64_t* pos,
                                       std::int64_t* seg) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i <= brows;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    seg[i] = pos[a_block_row_ptr[i]];
}

// The output block (i, k) of a task, as a bmSparse key.
struct OutputKeyOf {
  const std::uint64_t* tasks;
  const std::uint64_t* a_keys;
  const std::uint64_t* b_keys;
  __device__ std::uint64_t operator()(std::int64_t t) const {
    const std::uint64_t task = tasks[t];
    return (a_keys[task >> 32] & 0xffffffff00000000ull) | (b_keys[task & 0xffffffffu] & 0xffffffffull);
  }
};
// True at the first task of each run of equal output blocks in the sorted list.
struct RunHead {
  OutputKeyOf key;
  __device__ bool operator()(std::int64_t t) const { return t == 0 || key(t) != key(t - 1); }
};

__global__ void output_keys_kernel(OutputKeyOf key_of, const std::int64_t* task_start, std::int64_t n_out,
                                   std::uint64_t* c_keys) {
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; b < n_out;
       b += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    c_keys[b] = key_of(task_start[b]);
}

template <class T, class Policy>
__global__ void __launch_bounds__(kThreads) multiply_kernel(MultiplyArgs<T> args) {
  using Shared = typename Policy::template Shared<T>;
  // Raw storage: the policies' shared structs hold __half, which has no trivial constructor everywhere.
  __shared__ __align__(32) unsigned char storage[kWarpsPerBlock * sizeof(Shared)];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  Shared& sh = reinterpret_cast<Shared*>(storage)[warp];
  constexpr int K = Policy::kBlocksPerWarp;
  const std::int64_t groups = (args.n_out + K - 1) / K;
  for (std::int64_t gi = blockIdx.x * static_cast<std::int64_t>(kWarpsPerBlock) + warp; gi < groups;
       gi += static_cast<std::int64_t>(gridDim.x) * kWarpsPerBlock)
    Policy::run(args, gi * K, lane, sh);
}

struct NonEmpty {
  __device__ std::int64_t operator()(std::int64_t count) const { return count != 0; }
};

// One warp per output block: non-empty blocks move to their packed place, their values drop zeros.
template <class T>
__global__ void compact_kernel(std::int64_t n_out, const std::uint64_t* keys, const std::uint64_t* bitmaps,
                               const std::int64_t* counts, const std::int64_t* value_offsets,
                               const std::int64_t* new_index, const T* dense, std::uint64_t* out_keys,
                               std::uint64_t* out_bitmaps, std::int64_t* out_offsets, T* out_values) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t b = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32; b < n_out;
       b += warps) {
    if (counts[b] == 0) continue;
    const std::int64_t q = new_index[b], off = value_offsets[b];
    const std::uint64_t bm = bitmaps[b];
    if (lane == 0) out_keys[q] = keys[b], out_bitmaps[q] = bm, out_offsets[q] = off;
    for (int e = lane; e < 64; e += 32)
      if (has_elem(bm, e)) out_values[off + rank_of(bm, e)] = dense[b * 64 + e];
  }
}

// block_row_ptr[r] = first block of block row r (lower bound of r << 32 in the sorted keys).
__global__ void block_row_ptr_kernel(const std::uint64_t* keys, std::int64_t blocks, std::int64_t brows,
                                     std::int64_t* block_row_ptr) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r <= brows;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t target = static_cast<std::uint64_t>(r) << 32;
    std::int64_t lo = 0, hi = blocks;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (keys[mid] < target) lo = mid + 1; else hi = mid;
    }
    block_row_ptr[r] = lo;
  }
}

// ------------------------------------------------------------------------------------------------
// Stages (host side). Each leaves its results on the device; the few sizes the next stage allocates
// by are read back (that round trip is inside the stage's time).

std::uint64_t bit_width(std::uint64_t x) {
  std::uint64_t w = 0;
  while (x) ++w, x >>= 1;
  return w;
}

template <class T>
PoolBuffer<std::int64_t> t1_count_blocks(const DeviceBlocks<T>& b, int device, cudaStream_t stream) {
  PoolBuffer<std::int64_t> count(static_cast<std::size_t>(b.brows), "T1 block counts of B", stream);
  if (b.brows > 0) {
    count_blocks_kernel<<<grid_for(b.brows, 1, device), kThreads, 0, stream>>>(b.block_row_ptr.get(), b.brows,
                                                                                count.get());
    SPKIT_LAUNCH_CHECK("count_blocks_kernel");
  }
  return count;
}

template <class T>
PoolBuffer<std::int64_t> t2_gather(const DeviceBlocks<T>& a, const std::int64_t* b_count, int device,
                                   cudaStream_t stream) {
  PoolBuffer<std::int64_t> task_count(static_cast<std::size_t>(a.blocks) + 1, "T2 tasks per block of A", stream);
  gather_counts_kernel<<<grid_for(a.blocks + 1, 1, device), kThreads, 0, stream>>>(a.keys.get(), a.blocks, b_count,
                                                                         task_count.get());
  SPKIT_LAUNCH_CHECK("gather_counts_kernel");
  return task_count;
}

struct TaskList {
  std::int64_t n = 0;
  bool radix = false;
  PoolBuffer<std::int64_t> pos;  // a.blocks + 1: start of each A block's tasks
  PoolBuffer<std::uint64_t> tasks, tasks_alt;
  PoolBuffer<std::uint64_t> keys64, keys64_alt;  // radix with more than 32 key bits: i * b_bcols + k
  PoolBuffer<std::uint32_t> keys32, keys32_alt;  // segmented: k; radix with at most 32 key bits: i * b_bcols + k
  std::uint64_t key_bits = 0;
  bool wide_keys() const { return radix && key_bits > 32; }
};

template <class T>
TaskList t3_task_list(const DeviceBlocks<T>& a, const DeviceBlocks<T>& b, PoolBuffer<std::int64_t>& task_count,
                      std::int64_t threshold, int device, cudaStream_t stream) {
  TaskList tl;
  tl.pos = PoolBuffer<std::int64_t>(static_cast<std::size_t>(a.blocks) + 1, "T3 task positions", stream);
  cub_run(stream, "T3 exclusive scan of task counts", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, task_count.get(), tl.pos.get(), a.blocks + 1, stream);
  });
  tl.n = read_device_value(tl.pos.get() + a.blocks, stream);
  task_count = PoolBuffer<std::int64_t>();
  if (tl.n == 0) return tl;
  tl.radix = tl.n < threshold;
  const std::uint64_t b_bcols = static_cast<std::uint64_t>((b.cols + 7) / 8);
  tl.key_bits = std::max<std::uint64_t>(1, bit_width(static_cast<std::uint64_t>(a.brows) * b_bcols - 1));
  const std::uint64_t per_task = 2 * 8 + (tl.wide_keys() ? 2 * 8 : 2 * 4) + 8;  // tasks x2, keys x2, T5 task starts
  check_spgemm_fits(static_cast<std::uint64_t>(tl.n) * per_task,
                    "bmSparse SpGEMM task list of " + std::to_string(tl.n) + " tasks");
  tl.tasks = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(tl.n), "T3 task list", stream);
  tl.tasks_alt = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(tl.n), "T4 sorted task list", stream);
  const int grid = grid_for(a.blocks, 32, device);
  if (tl.wide_keys()) {
    tl.keys64 = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(tl.n), "T3 sort keys", stream);
    tl.keys64_alt = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(tl.n), "T4 sort keys", stream);
    scatter_tasks_kernel<<<grid, kThreads, 0, stream>>>(a.keys.get(), a.blocks, tl.pos.get(), b.block_row_ptr.get(),
                                             b.keys.get(), b_bcols, true, tl.tasks.get(), tl.keys64.get());
  } else {
    tl.keys32 = PoolBuffer<std::uint32_t>(static_cast<std::size_t>(tl.n), "T3 sort keys", stream);
    tl.keys32_alt = PoolBuffer<std::uint32_t>(static_cast<std::size_t>(tl.n), "T4 sort keys", stream);
    scatter_tasks_kernel<<<grid, kThreads, 0, stream>>>(a.keys.get(), a.blocks, tl.pos.get(), b.block_row_ptr.get(),
                                             b.keys.get(), b_bcols, tl.radix, tl.tasks.get(), tl.keys32.get());
  }
  SPKIT_LAUNCH_CHECK("scatter_tasks_kernel");
  return tl;
}

template <class T>
void t4_sort(TaskList& tl, const DeviceBlocks<T>& a, int device, cudaStream_t stream) {
  if (tl.n == 0) return;
  cub::DoubleBuffer<std::uint64_t> values(tl.tasks.get(), tl.tasks_alt.get());
  if (tl.wide_keys()) {
    cub::DoubleBuffer<std::uint64_t> keys(tl.keys64.get(), tl.keys64_alt.get());
    cub_run(stream, "T4 radix sort", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, values, tl.n, 0, static_cast<int>(tl.key_bits), stream);
    });
  } else if (tl.radix) {  // (i, k) fits 32 bits: a third less to move per pass
    cub::DoubleBuffer<std::uint32_t> keys(tl.keys32.get(), tl.keys32_alt.get());
    cub_run(stream, "T4 radix sort", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, values, tl.n, 0, static_cast<int>(tl.key_bits), stream);
    });
  } else {
    PoolBuffer<std::int64_t> seg(static_cast<std::size_t>(a.brows) + 1, "T4 segment offsets", stream);
    segment_offsets_kernel<<<grid_for(a.brows + 1, 1, device), kThreads, 0, stream>>>(a.block_row_ptr.get(), a.brows,
                                                                          tl.pos.get(), seg.get());
    SPKIT_LAUNCH_CHECK("segment_offsets_kernel");
    cub::DoubleBuffer<std::uint32_t> keys(tl.keys32.get(), tl.keys32_alt.get());
    cub_run(stream, "T4 segmented sort", [&](void* tmp, std::size_t& bytes) {
      return cub::DeviceSegmentedSort::SortPairs(tmp, bytes, keys, values, tl.n, a.brows, seg.get(), seg.get() + 1,
                                                 stream);
    });
  }
  if (values.selector) std::swap(tl.tasks, tl.tasks_alt);  // tl.tasks: the sorted list
  tl.tasks_alt = PoolBuffer<std::uint64_t>();
  tl.keys64 = PoolBuffer<std::uint64_t>(), tl.keys64_alt = PoolBuffer<std::uint64_t>();
  tl.keys32 = PoolBuffer<std::uint32_t>(), tl.keys32_alt = PoolBuffer<std::uint32_t>();
  tl.pos = PoolBuffer<std::int64_t>();
}

struct OutputBlocks {
  std::int64_t n = 0;
  PoolBuffer<std::uint64_t> keys;
  PoolBuffer<std::int64_t> task_start;  // n + 1
};

template <class T>
OutputBlocks t5_output_keys(const TaskList& tl, const DeviceBlocks<T>& a, const DeviceBlocks<T>& b, int device,
                            cudaStream_t stream) {
  OutputBlocks ob;
  if (tl.n == 0) return ob;
  const OutputKeyOf key_of{tl.tasks.get(), a.keys.get(), b.keys.get()};
  ob.task_start =
      PoolBuffer<std::int64_t>(static_cast<std::size_t>(tl.n) + 1, "T5 task range of each output block", stream);
  PoolBuffer<std::int64_t> count(1, "T5 output block count", stream);
  cub_run(stream, "T5 run heads", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceSelect::If(tmp, bytes, thrust::counting_iterator<std::int64_t>(0), ob.task_start.get(),
                                 count.get(), tl.n, RunHead{key_of}, stream);
  });
  ob.n = read_device_value(count.get(), stream);
  set_value_kernel<<<1, 1, 0, stream>>>(ob.task_start.get() + ob.n, tl.n);
  SPKIT_LAUNCH_CHECK("set_value_kernel");
  ob.keys = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(ob.n), "T5 output keys", stream);
  output_keys_kernel<<<grid_for(ob.n, 1, device), kThreads, 0, stream>>>(key_of, ob.task_start.get(), ob.n,
                                                                          ob.keys.get());
  SPKIT_LAUNCH_CHECK("output_keys_kernel");
  return ob;
}

template <class T>
struct DenseBlocks {
  PoolBuffer<T> values;  // n * 64
  PoolBuffer<std::uint64_t> bitmaps;
  PoolBuffer<std::int64_t> counts;  // n + 1 (last 0)
};

template <class T, class Policy>
DenseBlocks<T> t6_multiply(const TaskList& tl, const OutputBlocks& ob, const DeviceBlocks<T>& a,
                           const DeviceBlocks<T>& b, int device, cudaStream_t stream) {
  DenseBlocks<T> d;
  if (ob.n == 0) return d;
  check_spgemm_fits(static_cast<std::uint64_t>(ob.n) * (64 * sizeof(T) + 8 * 5),
                    "bmSparse SpGEMM output of " + std::to_string(ob.n) + " 8x8 blocks");
  d.values = PoolBuffer<T>(static_cast<std::size_t>(ob.n) * 64, "T6 dense output blocks", stream);
  d.bitmaps = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(ob.n), "T6 output bitmaps", stream);
  d.counts = PoolBuffer<std::int64_t>(static_cast<std::size_t>(ob.n) + 1, "T6 output counts", stream);
  SPKIT_CUDA_CHECK(cudaMemsetAsync(d.counts.get() + ob.n, 0, sizeof(std::int64_t), stream));
  MultiplyArgs<T> args{tl.tasks.get(),   ob.task_start.get(), ob.n,           a.bitmaps.get(), a.offsets.get(),
                       a.values.get(),   b.bitmaps.get(),     b.offsets.get(), b.values.get(),  d.values.get(),
                       d.bitmaps.get(), d.counts.get()};
  const std::int64_t groups = (ob.n + Policy::kBlocksPerWarp - 1) / Policy::kBlocksPerWarp;
  multiply_kernel<T, Policy><<<grid_for(groups, 32, device), kThreads, 0, stream>>>(args);
  SPKIT_LAUNCH_CHECK("multiply_kernel");
  return d;
}

template <class T>
ProductBlocks<T> t7_compact(const OutputBlocks& ob, DenseBlocks<T>& d, std::int64_t brows, int device,
                            cudaStream_t stream) {
  ProductBlocks<T> c;
  c.block_row_ptr = PoolBuffer<std::int64_t>(static_cast<std::size_t>(brows) + 1, "C block_row_ptr", stream);
  if (ob.n == 0) {
    SPKIT_CUDA_CHECK(cudaMemsetAsync(c.block_row_ptr.get(), 0, (brows + 1) * sizeof(std::int64_t), stream));
    c.offsets = PoolBuffer<std::int64_t>(1, "C offsets", stream);
    SPKIT_CUDA_CHECK(cudaMemsetAsync(c.offsets.get(), 0, sizeof(std::int64_t), stream));
    return c;
  }
  PoolBuffer<std::int64_t> value_offsets(static_cast<std::size_t>(ob.n) + 1, "T7 value offsets", stream);
  PoolBuffer<std::int64_t> new_index(static_cast<std::size_t>(ob.n) + 1, "T7 block positions", stream);
  cub_run(stream, "T7 scan of counts", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, d.counts.get(), value_offsets.get(), ob.n + 1, stream);
  });
  cub_run(stream, "T7 scan of non-empty blocks", [&](void* tmp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(tmp, bytes, thrust::make_transform_iterator(d.counts.get(), NonEmpty{}),
                                         new_index.get(), ob.n + 1, stream);
  });
  c.nnz = read_device_value(value_offsets.get() + ob.n, stream);
  c.blocks = read_device_value(new_index.get() + ob.n, stream);
  c.keys = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(c.blocks), "C keys", stream);
  c.bitmaps = PoolBuffer<std::uint64_t>(static_cast<std::size_t>(c.blocks), "C bitmaps", stream);
  c.offsets = PoolBuffer<std::int64_t>(static_cast<std::size_t>(c.blocks) + 1, "C offsets", stream);
  c.values = PoolBuffer<T>(static_cast<std::size_t>(c.nnz), "C values", stream);
  compact_kernel<T><<<grid_for(ob.n, 32, device), kThreads, 0, stream>>>(ob.n, ob.keys.get(), d.bitmaps.get(),
                                                                         d.counts.get(),
                                                             value_offsets.get(), new_index.get(), d.values.get(),
                                                             c.keys.get(), c.bitmaps.get(), c.offsets.get(),
                                                             c.values.get());
  SPKIT_LAUNCH_CHECK("compact_kernel");
  set_value_kernel<<<1, 1, 0, stream>>>(c.offsets.get() + c.blocks, c.nnz);
  SPKIT_LAUNCH_CHECK("set_value_kernel");
  block_row_ptr_kernel<<<grid_for(brows + 1, 1, device), kThreads, 0, stream>>>(c.keys.get(), c.blocks, brows,
                                                                     c.block_row_ptr.get());
  SPKIT_LAUNCH_CHECK("block_row_ptr_kernel");
  return c;
}

// The whole product T1-T7 on `stream`, each stage opened by marks.device(). The product ends (the
// stage "download" begins) before its temporaries are freed, outside the product time.
template <class T, class Policy>
ProductBlocks<T> bmsparse_product(const DeviceBlocks<T>& a, const DeviceBlocks<T>& b, std::int64_t threshold,
                                  const detail::StageMarks& marks, int device, cudaStream_t stream) {
  marks.device("T1 count");
  PoolBuffer<std::int64_t> b_count = t1_count_blocks(b, device, stream);
  marks.device("T2 gather");
  PoolBuffer<std::int64_t> task_count = t2_gather(a, b_count.get(), device, stream);
  marks.device("T3 task list");
  TaskList tl = t3_task_list(a, b, task_count, threshold, device, stream);
  marks.device("T4 sort");
  t4_sort(tl, a, device, stream);
  marks.device("T5 output keys");
  OutputBlocks ob = t5_output_keys(tl, a, b, device, stream);
  marks.device("T6 multiply");
  DenseBlocks<T> dense = t6_multiply<T, Policy>(tl, ob, a, b, device, stream);
  marks.device("T7 compact");
  ProductBlocks<T> c = t7_compact(ob, dense, a.brows, device, stream);
  marks.host("download", false);
  c.tasks = tl.n;
  c.radix = tl.radix;
  return c;
}

template <class Policy>
constexpr bool fp16_inputs() {
  return std::is_same_v<Policy, TcFp16Naive> || std::is_same_v<Policy, TcFp16Pair> ||
         std::is_same_v<Policy, TcFp16TwoTask>;
}

template <class T, class Policy>
SpgemmResult<T> run_bmsparse(const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& o, const std::string& name) {
  if (a.cols != b.rows)
    throw Error(name + ": A is " + std::to_string(a.rows) + "x" + std::to_string(a.cols) + " but B is " +
                std::to_string(b.rows) + "x" + std::to_string(b.cols));
  if constexpr (fp16_inputs<Policy>()) {
    require_fp16_range(a, "A", name);
    require_fp16_range(b, "B", name);
  }
  set_device(o.device);
  const int device = o.device;
  const cudaStream_t stream = cuda_stream(o.stream);
  const detail::StageMarks marks(o);
  const bool same = &a == &b;
  marks.host("convert", false);
  const BmSparse<T> ha = csr_to_bmsparse(a);
  BmSparse<T> hb;
  if (!same) hb = csr_to_bmsparse(b);
  const BmSparse<T>& hbr = same ? ha : hb;
  constexpr std::int64_t kMaxBlocks = std::numeric_limits<std::uint32_t>::max();
  if (ha.blocks() > kMaxBlocks || hbr.blocks() > kMaxBlocks)
    throw TooLarge(name + ": more than 2^32-1 blocks in A or B (tasks hold 32-bit block indices)",
                   (ha.memory_bytes() + hbr.memory_bytes()));
  check_spgemm_fits(ha.memory_bytes() + (same ? 0 : hbr.memory_bytes()), name + ": A and B in bmSparse");
  marks.host("upload", false);
  const DeviceBlocks<T> da = upload_blocks(ha);
  DeviceBlocks<T> db;
  if (!same) db = upload_blocks(hbr);
  SPKIT_CUDA_CHECK(cudaDeviceSynchronize());  // the uploads from pageable memory have landed
  const DeviceBlocks<T>& dbr = same ? da : db;
  const std::int64_t threshold = o.sort_threshold < 0 ? tuning::spgemm::kRadixSortBelowTasks : o.sort_threshold;

  ProductBlocks<T> c = bmsparse_product<T, Policy>(da, dbr, threshold, marks, device, stream);
  BmSparse<T> hc;
  hc.rows = a.rows, hc.cols = b.cols;
  hc.keys = c.keys.to_host(static_cast<std::size_t>(c.blocks));
  hc.bitmaps = c.bitmaps.to_host(static_cast<std::size_t>(c.blocks));
  hc.offsets = c.offsets.to_host(static_cast<std::size_t>(c.blocks) + 1);
  hc.values = c.values.to_host(static_cast<std::size_t>(c.nnz));
  hc.block_row_ptr = c.block_row_ptr.to_host(static_cast<std::size_t>(da.brows) + 1);
  marks.host("to CSR", false);
  SpgemmResult<T> r;
  r.c = bmsparse_to_csr(hc);
  marks.end();
  r.out_blocks = c.blocks;
  r.tasks = c.tasks;
  r.detail = c.tasks == 0 ? std::string("no tasks") : c.radix ? "radix sort (" + std::to_string(c.tasks) + " tasks < threshold " + std::to_string(threshold) + ")"
                     : "segmented sort (" + std::to_string(c.tasks) + " tasks >= threshold " + std::to_string(threshold) + ")";
  c = ProductBlocks<T>();
  release_spgemm_pool(o, stream);
  return r;
}

// Completes a variant's registration (format, backend, the FP16 inputs' underflow, the runners of
// Policy, whose block products T6 uses; T1-T5 and T7 are shared) and adds it. has_f32: false where the
// arithmetic has no float form (FP64 tensor cores).
template <class Policy>
void add_variant(SpgemmRegistry& reg, SpgemmKernelInfo k, bool has_f32 = true) {
  k.format = Format::bmsparse;
  k.backend = Backend::cuda;
  k.input_underflow = k.arithmetic.rfind("fp16", 0) == 0 ? 0x1p-25 : 0.0;  // fp16 subnormals: spacing 2^-24
  const std::string name = k.name;
  if (has_f32)
    k.run_f32 = [name](const Csr<float>& a, const Csr<float>& b, const SpgemmOptions& o) {
      return run_bmsparse<float, Policy>(a, b, o, name);
    };
  k.run_f64 = [name](const Csr<double>& a, const Csr<double>& b, const SpgemmOptions& o) {
    return run_bmsparse<double, Policy>(a, b, o, name);
  };
  reg.add(std::move(k));
}

}  // namespace
}  // namespace spgemm

void register_bmsparse_spgemm_kernels(SpgemmRegistry& reg) {
  using namespace spgemm;
  const std::string pipeline = "bmSparse (Berger et al.): task list, adaptive sort and 8x8 block products (T1-T7), ";
  SpgemmKernelInfo cc;
  cc.name = "cuda.bmsparse.cc";
  cc.description = pipeline + "block products on CUDA cores in the value type";
  add_variant<CudaCores>(reg, std::move(cc));

  SpgemmKernelInfo fp16;
  fp16.name = "cuda.bmsparse.tc_fp16";
  fp16.arithmetic = "fp16 in, fp32 acc";
  fp16.unit_roundoff = 0x1p-11;
  fp16.description = pipeline + "tensor cores (wmma 16x16x16), one block per fragment";
  add_variant<TcFp16Naive>(reg, fp16);

  SpgemmKernelInfo pair = fp16;
  pair.name = "cuda.bmsparse.tc_fp16_pair";
  pair.description = pipeline + "tensor cores (mma m16n8k16), two output blocks per fragment";
  add_variant<TcFp16Pair>(reg, std::move(pair));

  SpgemmKernelInfo two_task = fp16;
  two_task.name = "cuda.bmsparse.tc_fp16_2task";
  two_task.description = pipeline + "tensor cores (mma m16n8k16), two output blocks x two tasks";
  add_variant<TcFp16TwoTask>(reg, std::move(two_task));

  SpgemmKernelInfo tf32;
  tf32.name = "cuda.bmsparse.tc_tf32";
  tf32.arithmetic = "tf32 in, fp32 acc";
  tf32.unit_roundoff = 0x1p-11;
  tf32.description = pipeline + "tensor cores (mma m16n8k8 TF32), one block per fragment";
  add_variant<TcTf32>(reg, std::move(tf32));

  SpgemmKernelInfo fp64;
  fp64.name = "cuda.bmsparse.tc_fp64";
  fp64.description = pipeline + "FP64 tensor cores (mma m8n8k4, two per 8x8x8 block product)";
  add_variant<TcFp64>(reg, std::move(fp64), /*has_f32=*/false);
}

}  // namespace spkit::cuda
