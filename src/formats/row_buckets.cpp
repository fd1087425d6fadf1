// The row-bucket sort (declared in src/formats/row_buckets.hpp): bucket layout, pass A (count and stable
// scatter), pass B (per bucket: counting sort by row in an L2 buffer, short_row_sort.hpp per row) and
// the gap closing after merged duplicates.
#include "formats/row_buckets.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "formats/conversion_trace.hpp"
#include "formats/short_row_sort.hpp"
#include "platform/huge_pages.hpp"
#include "spkit/error.hpp"

namespace spkit::formats_detail {

namespace {

// Parallel exclusive prefix sum in place over v[0..n] (v[n] receives the total); v[k] holds counts.
void exclusive_scan(std::int64_t* v, std::int64_t n, int threads) {
  if (n < (1 << 16) || threads == 1) {
    std::int64_t run = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t c = v[i];
      v[i] = run;
      run += c;
    }
    v[n] = run;
    return;
  }
  std::vector<std::int64_t> part(static_cast<std::size_t>(threads) + 1, 0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int64_t b = n * t / nt, e = n * (t + 1) / nt;
    std::int64_t sum = 0;
    for (std::int64_t i = b; i < e; ++i) sum += v[i];
    part[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (int k = 0; k < nt; ++k) part[k + 1] += part[k];
    std::int64_t run = part[t];
    for (std::int64_t i = b; i < e; ++i) {
      const std::int64_t c = v[i];
      v[i] = run;
      run += c;
    }
#pragma omp single nowait
    v[n] = part[nt];
  }
}

// Bucket sizes for the general path. Pass A keeps one write cursor per bucket (two streams when
// packed), so fewer buckets keep those in L1: on the 2-core EPYC, 9 M shuffled entries of a 1 M x 1 M
// matrix took 34 ms to distribute into 245 buckets against 75 ms into 1955 buckets (pass B, which
// sorts each bucket in an L2 buffer, the same ~100 ms). More buckets (at most 2048) only when that
// keeps the 12-byte packed layout, which needs bits(row in bucket) + bits(column) <= 32.
constexpr std::int64_t kRowBuckets = 256, kMaxRowBuckets = 2048;
// Buckets up to this many entries are sorted in a thread-local buffer (at most 12 MB per thread).
constexpr std::int64_t kMaxBufferedBucket = std::int64_t{1} << 20;

int column_bits(std::int64_t cols) {
  int bits = 0;
  while (bits < 31 && (std::int64_t{1} << bits) < cols) ++bits;
  return bits;
}

int row_bucket_shift(std::int64_t rows, int col_bits) {
  auto shift_for = [rows](std::int64_t buckets) {
    int shift = 0;
    while ((rows >> shift) > buckets) ++shift;
    return shift;
  };
  const int few = shift_for(kRowBuckets);
  if (few + col_bits <= 32) return few;
  const int packed = 32 - col_bits;
  return packed >= shift_for(kMaxRowBuckets) ? packed : few;
}

template <class T>
struct Triple {
  std::int32_t row, col;
  T val;
};

// Readers of a bucket's entries for pass B. Packed: the row in the bucket and the column in one
// 32-bit key, the value in its own array (12 bytes per fp64 entry); wide: 16-byte triples, when the
// row in the bucket and the column do not fit 32 bits together. On VMs fresh memory is what the
// conversion pays most for (faulting in and zeroing pages: ~0.5 ms per MB on the 2-core machine), so
// a quarter less of it and of the passes' traffic is worth the second layout.
template <class T>
struct PackedEntries {
  const std::uint32_t* key;
  const T* val;
  int col_bits;
  std::int64_t local_row(std::int64_t k) const { return static_cast<std::int64_t>(key[k] >> col_bits); }
  std::int32_t col(std::int64_t k) const {
    return static_cast<std::int32_t>(key[k] & ((std::uint64_t{1} << col_bits) - 1));
  }
  T value(std::int64_t k) const { return val[k]; }
};

template <class T>
struct WideEntries {
  const Triple<T>* tri;
  std::int64_t local_row(std::int64_t k) const { return tri[k].row; }
  std::int32_t col(std::int64_t k) const { return tri[k].col; }
  T value(std::int64_t k) const { return tri[k].val; }
};

// Thread-local buffers of pass B.
template <class T>
struct BucketScratch {
  std::vector<std::int64_t> pos;
  std::vector<std::pair<std::int32_t, T>> pairs;
  std::vector<std::int32_t> cols;
  std::vector<T> vals;
  std::vector<std::uint32_t> gathered_keys;  // a bucket too large to sort where it lies, copied out
  std::vector<T> gathered_vals;
  double ms[4] = {0, 0, 0, 0};  // trace build: count, scatter, row sorts, copy out
};

// One bucket of pass B: rows [r0, r1) whose n entries are src[0, n) (the row within the bucket in the
// key), counting-sorted by row, every row sorted by column and its duplicates summed in input order,
// into cols/vals at [out, out + n). The bucket is sorted in a thread-local buffer (a few hundred KB: in
// L2) and copied out in one sequential sweep: sorting in the output itself read back lines still on
// their way from memory, a stall per line. Fills row_ptr[r0..r1) and new_len[r0..r1) (a row's length
// after merging); returns whether any row merged.
template <class T, class Entries>
bool sort_bucket(const Entries& src, std::int64_t n, std::int64_t r0, std::int64_t r1, std::int64_t out,
                 bool narrow_keys, std::int32_t* cols, T* vals, std::int64_t* row_ptr, std::int64_t* new_len,
                 bool sum_duplicates, BucketScratch<T>& scratch) {
  PhaseClock clock;
  std::vector<std::int64_t>& pos = scratch.pos;
  if (pos.size() < static_cast<std::size_t>(r1 - r0) + 1) pos.resize(static_cast<std::size_t>(r1 - r0) + 1);
  std::fill(pos.begin(), pos.begin() + (r1 - r0) + 1, 0);
  for (std::int64_t k = 0; k < n; ++k) ++pos[src.local_row(k) + 1];
  for (std::int64_t i = 0; i < r1 - r0; ++i) pos[i + 1] += pos[i];
  for (std::int64_t i = 0; i < r1 - r0; ++i) row_ptr[r0 + i] = out + pos[i];
  // A huge bucket (a matrix with very long rows) is sorted where it lies instead.
  const bool in_buffer = n <= kMaxBufferedBucket;
  if (in_buffer && scratch.cols.size() < static_cast<std::size_t>(n)) {
    scratch.cols.resize(static_cast<std::size_t>(n));
    scratch.vals.resize(static_cast<std::size_t>(n));
  }
  std::int32_t* const lc = in_buffer ? scratch.cols.data() : cols + out;
  T* const lv = in_buffer ? scratch.vals.data() : vals + out;
  scratch.ms[0] += clock.split();
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t dst = pos[src.local_row(k)]++;
    lc[dst] = src.col(k);
    lv[dst] = src.value(k);
  }
  scratch.ms[1] += clock.split();
  bool any_merged = false;
  for (std::int64_t i = r0; i < r1; ++i) {
    const std::int64_t rb = row_ptr[i] - out, re = (i + 1 < r1 ? row_ptr[i + 1] : out + n) - out;
    new_len[i] = sort_and_merge_row(lc, lv, rb, re, sum_duplicates, narrow_keys, scratch.pairs);
    any_merged = any_merged || new_len[i] != re - rb;
  }
  scratch.ms[2] += clock.split();
  if (in_buffer) {
    std::copy_n(lc, n, cols + out);
    std::copy_n(lv, n, vals + out);
  }
  scratch.ms[3] += clock.split();
  return any_merged;
}

// Pass B: every bucket (in parallel) through sort_bucket, into the bucket's own range of cols/vals
// (bucket_start). `bucket_entries(bk, scratch)` gives the reader of bucket bk's entries.
template <class T, class BucketEntries>
bool sort_buckets(const BucketEntries& bucket_entries, std::int64_t rows, std::int64_t matrix_cols, int shift,
                  const std::int64_t* bucket_start, std::int32_t* cols, T* vals, std::int64_t* row_ptr,
                  std::int64_t* new_len, bool sum_duplicates, int threads) {
  const bool narrow_keys = matrix_cols <= kNarrowKeyColumns;
  const std::int64_t nb = (rows >> shift) + 1, nnz = bucket_start[nb];
  bool any_merged = false;
  double phase_ms[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(threads) reduction(|| : any_merged) if (nnz >= 65536)
  {
    BucketScratch<T> scratch;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t bk = 0; bk < nb; ++bk) {
      const std::int64_t r0 = bk << shift, r1 = std::min(rows, r0 + (std::int64_t{1} << shift));
      if (r0 >= rows) continue;
      const std::int64_t base = bucket_start[bk];
      any_merged = sort_bucket(bucket_entries(bk, scratch), bucket_start[bk + 1] - base, r0, r1, base, narrow_keys,
                               cols, vals, row_ptr, new_len, sum_duplicates, scratch) ||
                   any_merged;
    }
    if constexpr (kTraceConversion) {
#pragma omp critical
      for (int k = 0; k < 4; ++k) phase_ms[k] += scratch.ms[k];
    }
  }
  if constexpr (kTraceConversion)
    std::fprintf(stderr, "coo_to_csr   pass B, summed over threads: count %.2f, scatter %.2f, row sorts %.2f, copy out %.2f ms\n",
                 phase_ms[0], phase_ms[1], phase_ms[2], phase_ms[3]);
  row_ptr[rows] = nnz;
  return any_merged;
}

// After pass B merged duplicates: closes the gaps (new_len[0..rows) holds each row's length).
template <class T>
void close_merge_gaps(Csr<T>& csr, std::int64_t* new_len, int threads) {
  const std::int64_t rows = csr.rows;
  exclusive_scan(new_len, rows, threads);
  const std::int64_t total = new_len[rows];
  std::vector<std::int32_t> out_cols;
  std::vector<T> out_vals;
  resize_huge(out_cols, static_cast<std::size_t>(total));
  resize_huge(out_vals, static_cast<std::size_t>(total));
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads) if (rows > 4096)
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t len = new_len[i + 1] - new_len[i];
    std::copy_n(csr.col_idx.begin() + csr.row_ptr[i], len, out_cols.begin() + new_len[i]);
    std::copy_n(csr.values.begin() + csr.row_ptr[i], len, out_vals.begin() + new_len[i]);
  }
  csr.row_ptr.assign(new_len, new_len + rows + 1);
  csr.col_idx = std::move(out_cols);
  csr.values = std::move(out_vals);
}

// A buffer of rows + 1 counters without a zero-fill pass (pass B writes every row's entry).
std::unique_ptr<std::int64_t[]> row_counters(std::int64_t rows) {
  return std::unique_ptr<std::int64_t[]>(new std::int64_t[static_cast<std::size_t>(rows) + 1]);
}

}  // namespace

// The general path, two cache-friendly passes instead of one random scatter:
//  A. entries are distributed (stably: each thread its own slice, in input order) into buckets of
//     2^shift consecutive rows, few enough (row_bucket_shift) that every bucket's write cursor stays
//     in cache;
//  B. sort_buckets.
// The result is deterministic for any thread count. 64-bit offsets throughout.
template <class T>
Csr<T> bucket_sort_to_csr(const Coo<T>& coo, bool sum_duplicates, int threads, Coo<T>* consumable) {
  const std::int64_t nnz = coo.nnz(), rows = coo.rows;
  Csr<T> csr;
  csr.rows = coo.rows;
  csr.cols = coo.cols;
  // The same layout the Matrix Market parser fills when it distributes entries itself.
  BucketLayout layout;
  const bool packed = packed_bucket_layout(rows, coo.cols, layout);
  const int col_bits = layout.col_bits, shift = layout.shift;
  const std::int64_t nb = layout.buckets;  // bucket b holds rows [b << shift, (b + 1) << shift)
  const int st = nnz < 65536 ? 1 : threads;
  PhaseClock clock;

  // Scratch without a zero-fill pass (every slot is written in pass A before pass B reads it).
  const std::size_t count = static_cast<std::size_t>(std::max<std::int64_t>(nnz, 1));
  std::unique_ptr<std::uint32_t[]> key;
  std::unique_ptr<T[]> val;
  std::unique_ptr<Triple<T>[]> tri;
  if (packed) {
    key.reset(new std::uint32_t[count]);
    val.reset(new T[count]);
    advise_huge_pages(key.get(), count * sizeof(std::uint32_t));
    advise_huge_pages(val.get(), count * sizeof(T));
  } else {
    tri.reset(new Triple<T>[count]);
    advise_huge_pages(tri.get(), count * sizeof(Triple<T>));
  }

  clock.lap("scratch allocated");
  // Pass A: bucket counts per thread, bucket starts, then the stable scatter.
  std::vector<std::int64_t> cnt(static_cast<std::size_t>(st) * nb, 0), bucket_start(static_cast<std::size_t>(nb) + 1, 0);
  const std::int32_t* ri = coo.row_idx.data();
  const std::int32_t* ci = coo.col_idx.data();
  const T* vi = coo.values.data();
#pragma omp parallel num_threads(st)
  {
    const int t = omp_get_thread_num();
    std::int64_t* my = cnt.data() + static_cast<std::size_t>(t) * nb;
    const std::int64_t b = nnz * t / st, e = nnz * (t + 1) / st;
    for (std::int64_t k = b; k < e; ++k) ++my[ri[k] >> shift];
#pragma omp barrier
#pragma omp single
    {
      std::int64_t run = 0;
      for (std::int64_t bk = 0; bk < nb; ++bk) {
        bucket_start[bk] = run;
        for (int u = 0; u < st; ++u) {
          std::int64_t& c = cnt[static_cast<std::size_t>(u) * nb + bk];
          const std::int64_t n = c;
          c = run;
          run += n;
        }
      }
      bucket_start[nb] = run;
    }
    const std::int32_t row_in_bucket = static_cast<std::int32_t>((std::int64_t{1} << shift) - 1);
    if (packed) {
      for (std::int64_t k = b; k < e; ++k) {
        const std::int64_t dst = my[ri[k] >> shift]++;
        key[dst] = (static_cast<std::uint32_t>(ri[k] & row_in_bucket) << col_bits) | static_cast<std::uint32_t>(ci[k]);
        val[dst] = vi[k];
      }
    } else {
      for (std::int64_t k = b; k < e; ++k) tri[my[ri[k] >> shift]++] = Triple<T>{ri[k] & row_in_bucket, ci[k], vi[k]};
    }
  }
  cnt.clear();
  cnt.shrink_to_fit();
  clock.lap("pass A (count + scatter)");

  // Pass B into the CSR arrays.
  resize_huge(csr.row_ptr, static_cast<std::size_t>(rows) + 1);
  if (consumable) {
    // The input is no longer read: its column and value arrays (already the right size, already
    // faulted in) take the output.
    csr.col_idx = std::move(consumable->col_idx);
    csr.values = std::move(consumable->values);
    std::vector<std::int32_t>().swap(consumable->row_idx);
  } else {
    resize_huge(csr.col_idx, static_cast<std::size_t>(nnz));
    resize_huge(csr.values, static_cast<std::size_t>(nnz));
  }
  const auto new_len = row_counters(rows);
  clock.lap("output allocated");
  const auto packed_at = [&](std::int64_t bk, BucketScratch<T>&) {
    const std::int64_t k = bucket_start[static_cast<std::size_t>(bk)];
    return PackedEntries<T>{key.get() + k, val.get() + k, col_bits};
  };
  const auto wide_at = [&](std::int64_t bk, BucketScratch<T>&) {
    return WideEntries<T>{tri.get() + bucket_start[static_cast<std::size_t>(bk)]};
  };
  const bool any_merged =
      packed ? sort_buckets<T>(packed_at, rows, coo.cols, shift, bucket_start.data(), csr.col_idx.data(),
                               csr.values.data(), csr.row_ptr.data(), new_len.get(), sum_duplicates, threads)
             : sort_buckets<T>(wide_at, rows, coo.cols, shift, bucket_start.data(), csr.col_idx.data(),
                               csr.values.data(), csr.row_ptr.data(), new_len.get(), sum_duplicates, threads);
  clock.lap("pass B (sort buckets)");
  key.reset();
  val.reset();
  tri.reset();
  clock.lap("scratch freed");
  if (any_merged) close_merge_gaps(csr, new_len.get(), threads);
  return csr;
}

bool packed_bucket_layout(std::int64_t rows, std::int64_t cols, BucketLayout& out) {
  out.col_bits = column_bits(cols);
  out.shift = row_bucket_shift(rows, out.col_bits);
  out.buckets = (rows >> out.shift) + 1;
  return out.shift + out.col_bits <= 32;
}

// Pass B over buckets the parser placed in the output itself: a bucket of up to kMaxBufferedBucket
// entries is read where it lies and sorted through sort_bucket's buffer (all of its reads come before
// the copy out); a larger one is first copied to a thread-local buffer, since sort_bucket would then
// sort in the output it reads from.
void sort_buckets_in_place(Csr<double>& csr, const BucketLayout& layout, const std::vector<std::int64_t>& bucket_start,
                           int threads) {
  const std::int64_t nb = layout.buckets, rows = csr.rows;
  if (static_cast<std::int64_t>(bucket_start.size()) != nb + 1 ||
      bucket_start.back() != static_cast<std::int64_t>(csr.col_idx.size()) || csr.values.size() != csr.col_idx.size())
    throw Error("internal: row buckets and output differ in size");
  PhaseClock clock;
  resize_huge(csr.row_ptr, static_cast<std::size_t>(rows) + 1);
  const auto new_len = row_counters(rows);
  const auto* keys = reinterpret_cast<const std::uint32_t*>(csr.col_idx.data());
  const double* vals = csr.values.data();
  const auto entries = [&](std::int64_t b, BucketScratch<double>& scratch) {
    const std::int64_t first = bucket_start[static_cast<std::size_t>(b)];
    const std::int64_t n = bucket_start[static_cast<std::size_t>(b) + 1] - first;
    if (n <= kMaxBufferedBucket) {
      // Read the bucket's values into cache first, one load per line in a tight loop: sort_bucket's
      // scatter would otherwise take them from memory one by one, between its stores.
      std::uint64_t touched = 0;
      for (std::int64_t k = 0; k < n; k += 8) {
        std::uint64_t word;
        std::memcpy(&word, vals + first + k, sizeof word);
        touched ^= word;
      }
      __asm__ volatile("" : : "r"(touched));  // the loads are the point: keep them
      return PackedEntries<double>{keys + first, vals + first, layout.col_bits};
    }
    scratch.gathered_keys.assign(keys + first, keys + first + n);
    scratch.gathered_vals.assign(vals + first, vals + first + n);
    return PackedEntries<double>{scratch.gathered_keys.data(), scratch.gathered_vals.data(), layout.col_bits};
  };
  const bool any_merged = sort_buckets<double>(entries, rows, csr.cols, layout.shift, bucket_start.data(),
                                               csr.col_idx.data(), csr.values.data(), csr.row_ptr.data(),
                                               new_len.get(), true, threads);
  clock.lap("pass B (sorted in place)");
  if (any_merged) close_merge_gaps(csr, new_len.get(), threads);
}

template Csr<float> bucket_sort_to_csr(const Coo<float>&, bool, int, Coo<float>*);
template Csr<double> bucket_sort_to_csr(const Coo<double>&, bool, int, Coo<double>*);

}  // namespace spkit::formats_detail
