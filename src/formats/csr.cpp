// CSR conversions: COO -> CSR by a two-pass bucket sort (O(nnz)), columns sorted within rows, duplicates
// summed in input order.
#include "spkit/formats/csr.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "io/io_util.hpp"
#include "spkit/error.hpp"

namespace spkit {

namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// A diagnostic build (-DSPKIT_CONVERSION_TRACE) prints the time of each phase of the general path to
// stderr, to place the conversion's time on machines without a profiler; compiled out otherwise.
#ifdef SPKIT_CONVERSION_TRACE
constexpr bool kTraceConversion = true;
#else
constexpr bool kTraceConversion = false;
#endif

class PhaseClock {
 public:
  // Milliseconds since the last split or lap (or construction); 0, without reading a clock, in a normal build.
  double split() {
    if constexpr (kTraceConversion) {
      const auto now = std::chrono::steady_clock::now();
      const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
      last_ = now;
      return ms;
    }
    return 0;
  }
  // The split printed under `phase`.
  void lap(const char* phase) {
    if constexpr (kTraceConversion) std::fprintf(stderr, "coo_to_csr %-34s %8.2f ms\n", phase, split());
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

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

struct OrderCheck {
  bool in_range = true;
  bool sorted = true;      // (row, col) non-decreasing
  bool duplicates = false; // some (row, col) repeated (only meaningful when sorted)
};

template <class T>
OrderCheck check_order(const Coo<T>& coo, int threads) {
  const std::int64_t nnz = coo.nnz();
  const std::int32_t* r = coo.row_idx.data();
  const std::int32_t* c = coo.col_idx.data();
  const std::int64_t rows = coo.rows, cols = coo.cols;
  bool in_range = true, sorted = true, dups = false;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : in_range, sorted) reduction(|| : dups) if (nnz > 65536)
  for (std::int64_t k = 0; k < nnz; ++k) {
    in_range = in_range && r[k] >= 0 && r[k] < rows && c[k] >= 0 && c[k] < cols;
    if (k > 0) {
      const std::uint64_t prev = (std::uint64_t(std::uint32_t(r[k - 1])) << 32) | std::uint32_t(c[k - 1]);
      const std::uint64_t cur = (std::uint64_t(std::uint32_t(r[k])) << 32) | std::uint32_t(c[k]);
      sorted = sorted && prev <= cur;
      dups = dups || prev == cur;
    }
  }
  return {in_range, sorted, dups};
}

// The same for entries whose indices are known to be inside the matrix (the Matrix Market parser
// checked each one): only the order is left to find, and a file in random order shows it within its
// first entries, so the scan stops there (the full check read 72 MB for nothing: 14 ms of a 1-thread
// load of a 9 M-entry shuffled file).
template <class T>
OrderCheck check_order_of_checked_indices(const Coo<T>& coo, int threads) {
  const std::int64_t nnz = coo.nnz();
  const std::int32_t* r = coo.row_idx.data();
  const std::int32_t* c = coo.col_idx.data();
  constexpr std::int64_t kBlock = 1 << 16;
  const std::int64_t blocks = (nnz + kBlock - 1) / kBlock;
  std::atomic<bool> unsorted{false};
  bool dups = false;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(|| : dups) if (blocks > 1)
  for (std::int64_t bk = 0; bk < blocks; ++bk) {
    if (unsorted.load(std::memory_order_relaxed)) continue;
    const std::int64_t b = std::max<std::int64_t>(1, bk * kBlock), e = std::min(nnz, (bk + 1) * kBlock);
    bool sorted = true;
    for (std::int64_t k = b; k < e; ++k) {
      const std::uint64_t prev = (std::uint64_t(std::uint32_t(r[k - 1])) << 32) | std::uint32_t(c[k - 1]);
      const std::uint64_t cur = (std::uint64_t(std::uint32_t(r[k])) << 32) | std::uint32_t(c[k]);
      sorted = sorted && prev <= cur;
      dups = dups || prev == cur;
    }
    if (!sorted) unsorted.store(true, std::memory_order_relaxed);
  }
  return {true, !unsorted.load(), dups};
}

// Row pointers of entries already sorted by row: row_ptr[r] = first k with row[k] >= r.
void row_ptr_from_sorted(const std::int32_t* row, std::int64_t nnz, std::int64_t rows, std::int64_t* row_ptr,
                         int threads) {
#pragma omp parallel for schedule(static) num_threads(threads) if (nnz > 65536)
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t prev = k == 0 ? -1 : row[k - 1];
    for (std::int64_t r = prev + 1; r <= row[k]; ++r) row_ptr[r] = k;
  }
  const std::int64_t last = nnz == 0 ? -1 : row[nnz - 1];
  for (std::int64_t r = last + 1; r <= rows; ++r) row_ptr[r] = nnz;
}

template <class T>
void check_dimensions(const Coo<T>& coo) {
  if (coo.rows < 0 || coo.cols < 0) throw Error("negative matrix dimensions");
  if (coo.cols > kInt32Max || coo.rows > kInt32Max)
    throw Error("matrix has " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols) +
                " dimensions; spkit stores 32-bit row and column indices (at most 2147483647)");
  if (coo.row_idx.size() != coo.values.size() || coo.col_idx.size() != coo.values.size())
    throw Error("COO: row_idx, col_idx and values differ in size");
}

// Sorts a row of 2..16 entries by column, stably, without data-dependent branches: each entry's place
// is the number of entries whose (column, position) key is smaller. The fixed-size compares vectorise;
// insertion sort mispredicts about once per entry on rows in random order (pass B of a 1-thread
// COO->CSR of 9 M shuffled entries: 139-143 ms with insertion sort, 105-116 ms with this). Key is
// int32_t when every column is below 2^27 (16 keys per vector compare: 4.7 against 6.4 ns per entry in
// a micro-benchmark), else int64_t.
// Returns whether the row has repeated columns.
template <class Key, class T>
bool rank_sort_short_row(std::int32_t* cols, T* vals, std::int64_t n) {
  constexpr int W = 16;
  Key key[W];
  T v[W];
  for (int i = 0; i < W; ++i) {
    // (column << 4 | position) stays below the padding key, Key's maximum.
    key[i] = i < n ? static_cast<Key>((static_cast<Key>(cols[i]) << 4) | i) : std::numeric_limits<Key>::max();
    v[i] = i < n ? vals[i] : T{};
  }
  std::int32_t sorted_cols[W];
  T sorted_vals[W];
  for (int i = 0; i < W; ++i) {
    int rank = 0;  // padding entries all rank n (ties among them count as not smaller): slots >= n
    for (int j = 0; j < W; ++j) rank += key[j] < key[i];
    sorted_cols[rank] = static_cast<std::int32_t>(key[i] >> 4);
    sorted_vals[rank] = v[i];
  }
  bool dup = false;
  cols[0] = sorted_cols[0];
  vals[0] = sorted_vals[0];
  for (std::int64_t k = 1; k < n; ++k) {
    cols[k] = sorted_cols[k];
    vals[k] = sorted_vals[k];
    dup = dup || sorted_cols[k] == sorted_cols[k - 1];
  }
  return dup;
}

#ifdef __AVX512F__
// rank_sort_short_row for fp64 values and columns below 2^27, in registers: the 16 keys (column << 4 |
// position, padding INT32_MAX) go through a bitonic network (10 stages of permute, min, max, blend), and
// the values follow their positions through two two-source permutes. The rank sort's scatter became
// vscatterdpd, which is microcoded on AMD Zen 4 (pass B's row sorts of 9 M shuffled entries: 60 ms).
// GCC 12 warns inside its own AVX-512 headers (the undefined upper halves of the casts and masked
// loads) about values that are never read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
inline bool network_sort_short_row(std::int32_t* cols, double* vals, std::int64_t n) {
  const __mmask16 live = static_cast<__mmask16>((1u << n) - 1);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i key = _mm512_mask_or_epi32(_mm512_set1_epi32(std::numeric_limits<std::int32_t>::max()), live,
                                     _mm512_slli_epi32(_mm512_maskz_loadu_epi32(live, cols), 4), lane);
  // Stage (k, j): lane i meets lane i ^ j and keeps the smaller key when the pair's order (ascending
  // where i & k == 0) puts it first.
  auto stage = [&](int k, int j) {
    const __m512i partner = _mm512_permutexvar_epi32(_mm512_xor_si512(lane, _mm512_set1_epi32(j)), key);
    const __m512i lo = _mm512_min_epi32(key, partner), hi = _mm512_max_epi32(key, partner);
    const __mmask16 upper = _mm512_test_epi32_mask(lane, _mm512_set1_epi32(j));        // i & j != 0
    const __mmask16 descending = _mm512_test_epi32_mask(lane, _mm512_set1_epi32(k));   // i & k != 0
    key = _mm512_mask_blend_epi32(static_cast<__mmask16>(upper ^ descending), lo, hi);
  };
  for (int k = 2; k <= 16; k *= 2)
    for (int j = k / 2; j >= 1; j /= 2) stage(k, j);
  const __m512i col = _mm512_srai_epi32(key, 4);
  const __m512i pos = _mm512_and_si512(key, _mm512_set1_epi32(15));
  const __m512d v_lo = _mm512_maskz_loadu_pd(static_cast<__mmask8>(live), vals);
  const __m512d v_hi = _mm512_maskz_loadu_pd(static_cast<__mmask8>(live >> 8), vals + 8);
  const __m512d out_lo = _mm512_permutex2var_pd(v_lo, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(pos)), v_hi);
  const __m512d out_hi = _mm512_permutex2var_pd(v_lo, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(pos, 1)), v_hi);
  _mm512_mask_storeu_epi32(cols, live, col);
  _mm512_mask_storeu_pd(vals, static_cast<__mmask8>(live), out_lo);
  _mm512_mask_storeu_pd(vals + 8, static_cast<__mmask8>(live >> 8), out_hi);
  // A repeated column: lane i (1 <= i < n) equal to lane i - 1.
  const __m512i previous = _mm512_alignr_epi32(col, _mm512_setzero_si512(), 15);
  return _mm512_mask_cmpeq_epi32_mask(static_cast<__mmask16>(live & ~1u), col, previous) != 0;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// Columns below this fit rank_sort_short_row's 32-bit keys.
constexpr std::int64_t kNarrowKeyColumns = std::int64_t{1} << 27;

// Sorts row [b, e) of (cols, vals) by column, stably (rank sort up to 16 entries, insertion sort up to
// 32, stable_sort on pairs beyond), then sums duplicates in input order when asked. Returns the new
// row length.
template <class T>
std::int64_t sort_and_merge_row(std::int32_t* cols, T* vals, std::int64_t b, std::int64_t e, bool sum_duplicates,
                                bool narrow_keys, std::vector<std::pair<std::int32_t, T>>& tmp) {
  const std::int64_t n = e - b;
  if (n <= 1) return n;
  bool dup = false;
  if (n <= 16) {
#ifdef __AVX512F__
    if constexpr (std::is_same_v<T, double>) {
      dup = narrow_keys ? network_sort_short_row(cols + b, vals + b, n) : rank_sort_short_row<std::int64_t>(cols + b, vals + b, n);
    } else
#endif
    dup = narrow_keys ? rank_sort_short_row<std::int32_t>(cols + b, vals + b, n)
                      : rank_sort_short_row<std::int64_t>(cols + b, vals + b, n);
  } else {
    bool sorted = true;
    for (std::int64_t k = b + 1; k < e; ++k) sorted = sorted && cols[k] >= cols[k - 1];
    if (!sorted && n <= 32) {
      for (std::int64_t k = b + 1; k < e; ++k) {
        const std::int32_t c = cols[k];
        const T v = vals[k];
        std::int64_t j = k;
        for (; j > b && cols[j - 1] > c; --j) {
          cols[j] = cols[j - 1];
          vals[j] = vals[j - 1];
        }
        cols[j] = c;
        vals[j] = v;
      }
    } else if (!sorted) {
      tmp.clear();
      for (std::int64_t k = b; k < e; ++k) tmp.emplace_back(cols[k], vals[k]);
      std::stable_sort(tmp.begin(), tmp.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
      for (std::int64_t k = b; k < e; ++k) {
        cols[k] = tmp[k - b].first;
        vals[k] = tmp[k - b].second;
      }
    }
    for (std::int64_t k = b + 1; k < e; ++k) dup = dup || cols[k] == cols[k - 1];
  }
  if (!dup || !sum_duplicates) return n;
  std::int64_t out = b;
  for (std::int64_t k = b + 1; k < e; ++k) {
    if (cols[k] == cols[out]) {
      vals[out] += vals[k];
    } else {
      ++out;
      cols[out] = cols[k];
      vals[out] = vals[k];
    }
  }
  return out - b + 1;
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
  io_detail::resize_huge(out_cols, static_cast<std::size_t>(total));
  io_detail::resize_huge(out_vals, static_cast<std::size_t>(total));
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
  io_detail::BucketLayout layout;
  const bool packed = io_detail::packed_bucket_layout(rows, coo.cols, layout);
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
    io_detail::advise_huge_pages(key.get(), count * sizeof(std::uint32_t));
    io_detail::advise_huge_pages(val.get(), count * sizeof(T));
  } else {
    tri.reset(new Triple<T>[count]);
    io_detail::advise_huge_pages(tri.get(), count * sizeof(Triple<T>));
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
  io_detail::resize_huge(csr.row_ptr, static_cast<std::size_t>(rows) + 1);
  if (consumable) {
    // The input is no longer read: its column and value arrays (already the right size, already
    // faulted in) take the output.
    csr.col_idx = std::move(consumable->col_idx);
    csr.values = std::move(consumable->values);
    std::vector<std::int32_t>().swap(consumable->row_idx);
  } else {
    io_detail::resize_huge(csr.col_idx, static_cast<std::size_t>(nnz));
    io_detail::resize_huge(csr.values, static_cast<std::size_t>(nnz));
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

template <class T>
Csr<T> coo_to_csr_impl(const Coo<T>& coo, bool sum_duplicates, Coo<T>* consumable, bool indices_checked) {
  check_dimensions(coo);
  const int threads = omp_get_max_threads();
  PhaseClock clock;
  const OrderCheck oc = indices_checked ? check_order_of_checked_indices(coo, threads) : check_order(coo, threads);
  if (!oc.in_range) throw Error("COO: an entry's row or column index is outside the matrix");
  clock.lap(indices_checked ? "order check (checked indices)" : "order and range check");
  if (oc.sorted && (!oc.duplicates || !sum_duplicates)) {
    // Already in CSR order (typical of files written by tools): row pointers from the row indices,
    // columns and values taken over as they are.
    Csr<T> csr;
    csr.rows = coo.rows;
    csr.cols = coo.cols;
    io_detail::resize_huge(csr.row_ptr, static_cast<std::size_t>(coo.rows) + 1);
    row_ptr_from_sorted(coo.row_idx.data(), coo.nnz(), coo.rows, csr.row_ptr.data(), threads);
    if (consumable) {
      csr.col_idx = std::move(consumable->col_idx);
      csr.values = std::move(consumable->values);
    } else {
      io_detail::resize_huge(csr.col_idx, coo.col_idx.size());
      io_detail::resize_huge(csr.values, coo.values.size());
      const std::int64_t n = coo.nnz();
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 65536)
      for (std::int64_t k = 0; k < n; ++k) {
        csr.col_idx[k] = coo.col_idx[k];
        csr.values[k] = coo.values[k];
      }
    }
    return csr;
  }
  return bucket_sort_to_csr(coo, sum_duplicates, threads, consumable);
}

}  // namespace

template <class T>
Csr<T> coo_to_csr(const Coo<T>& coo, bool sum_duplicates) {
  return coo_to_csr_impl(coo, sum_duplicates, static_cast<Coo<T>*>(nullptr), false);
}

// Internal (declared in src/io/io_util.hpp): the same conversion, free to take over coo's arrays; its
// indices were checked against the dimensions by the parser that made it.
Csr<double> coo_to_csr_consume(Coo<double>&& coo) { return coo_to_csr_impl(coo, true, &coo, true); }

namespace io_detail {

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

}  // namespace io_detail

template <class T>
Coo<T> csr_to_coo(const Csr<T>& csr) {
  Coo<T> coo;
  coo.rows = csr.rows;
  coo.cols = csr.cols;
  coo.row_idx.resize(csr.col_idx.size());
  coo.col_idx = csr.col_idx;
  coo.values = csr.values;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < csr.rows; ++i)
    for (std::int64_t k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) coo.row_idx[k] = static_cast<std::int32_t>(i);
  return coo;
}

template <class To, class From>
Csr<To> csr_cast(const Csr<From>& csr) {
  Csr<To> out;
  out.rows = csr.rows;
  out.cols = csr.cols;
  out.row_ptr = csr.row_ptr;
  out.col_idx = csr.col_idx;
  out.values.resize(csr.values.size());
  const std::int64_t n = csr.nnz();
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) out.values[k] = static_cast<To>(csr.values[k]);
  return out;
}

template <class T>
void check_csr(const Csr<T>& csr) {
  if (csr.rows < 0 || csr.cols < 0) throw Error("CSR: negative dimensions");
  if (csr.row_ptr.size() != static_cast<std::size_t>(csr.rows) + 1) throw Error("CSR: row_ptr has wrong size");
  if (csr.row_ptr[0] != 0) throw Error("CSR: row_ptr[0] != 0");
  if (csr.col_idx.size() != csr.values.size()) throw Error("CSR: col_idx and values differ in size");
  if (csr.row_ptr[csr.rows] != static_cast<std::int64_t>(csr.values.size()))
    throw Error("CSR: row_ptr[rows] != nnz");
  for (std::int64_t i = 0; i < csr.rows; ++i) {
    if (csr.row_ptr[i + 1] < csr.row_ptr[i]) throw Error("CSR: row_ptr decreases at row " + std::to_string(i));
    for (std::int64_t k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) {
      if (csr.col_idx[k] < 0 || csr.col_idx[k] >= csr.cols)
        throw Error("CSR: column out of range in row " + std::to_string(i));
      if (k > csr.row_ptr[i] && csr.col_idx[k] <= csr.col_idx[k - 1])
        throw Error("CSR: columns not strictly increasing in row " + std::to_string(i));
    }
  }
}

template Csr<float> coo_to_csr(const Coo<float>&, bool);
template Csr<double> coo_to_csr(const Coo<double>&, bool);
template Coo<float> csr_to_coo(const Csr<float>&);
template Coo<double> csr_to_coo(const Csr<double>&);
template Csr<float> csr_cast<float, double>(const Csr<double>&);
template Csr<double> csr_cast<double, float>(const Csr<float>&);
template Csr<double> csr_cast<double, double>(const Csr<double>&);
template Csr<float> csr_cast<float, float>(const Csr<float>&);
template void check_csr(const Csr<float>&);
template void check_csr(const Csr<double>&);

}  // namespace spkit
