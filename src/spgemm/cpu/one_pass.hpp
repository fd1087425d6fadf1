#pragma once
// The one-pass route of CPU Gustavson SpGEMM (csr.cpp): every row of C computed once, sorted, exact
// zeros dropped, into arrays reserved at C's bound (address space only; pages are touched as rows are
// written), in one OpenMP team with no barrier but the team's end.
//
// Rows are cut into chunks of about equal work (A's entries plus rows). Thread 0 claims chunks from the
// front and writes their rows straight into C's arrays, as a single thread would; the other threads
// claim chunks from the back into arenas of their own (a few large segments each, huge pages asked
// for). When the claims meet, thread 0 walks the back chunks in order: a finished one is appended to C,
// one still being computed is taken over (stolen) and computed by thread 0 itself straight into C, and
// its owner drops it at its next check. So thread 0 never waits for another thread: on a loaded machine
// a descheduled thread costs at most the team's final join, not a join per stage (docs/perf/spgemm.md).
// Every row's result depends only on the row (same summation order in every thread), so C is the same
// bit for bit at any thread count.
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "platform/huge_pages.hpp"
#include "spkit/formats/csr.hpp"
#include "tuning.hpp"

namespace spkit::detail {

// The products of row i of C: the lengths of the rows of B that row i of A reaches.
template <class T>
std::int64_t row_products(const Csr<T>& a, const Csr<T>& b, std::int64_t i) {
  std::int64_t n = 0;
  for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) n += b.row_length(a.col_idx[p]);
  return n;
}

// Entries rows [first, last) of C may hold: the sum of min(products, B.cols) (Nagasaka et al.'s upper
// bound, O(entries of A) with no scratch).
template <class T>
std::int64_t output_bound(const Csr<T>& a, const Csr<T>& b, std::int64_t first, std::int64_t last) {
  std::int64_t bound = 0;
  for (std::int64_t i = first; i < last; ++i) bound += std::min(row_products(a, b, i), b.cols);
  return bound;
}

// All products of A B: at least output_bound(a, b, 0, A.rows), equal to it unless a row has more
// products than B has columns. One flat loop over A's entries, which the compiler turns into vector
// gathers: cheaper than the bound's loop over rows, whose rows hold a few entries each. Shared by the
// team's threads: alone it took 4.7 ms of road's 22 ms product at 16 threads (device host).
template <class T>
std::int64_t product_count(const Csr<T>& a, const Csr<T>& b) {
  const std::int32_t* col = a.col_idx.data();
  const std::int64_t* ptr = b.row_ptr.data();
  const std::int64_t end = a.nnz();
  std::int64_t n = 0;
#pragma omp parallel for reduction(+ : n) schedule(static) if (end >= (std::int64_t{1} << 16))
  for (std::int64_t p = 0; p < end; ++p) n += ptr[col[p] + 1] - ptr[col[p]];
  return n;
}

// Rows of C appended to (col, val). A vector grows only by filling what it adds: resize zeroes the
// entries that emit then overwrites, a call and a memset per row, 10 % of the product where rows of C
// hold ~5 entries (road). So short rows go through a small buffer (in L1) appended in batches; long
// rows, whose copy would cost more than the resize, are written in place (tuning::spgemm).
template <class T>
class RowStage {
 public:
  RowStage() : col_(kEntries), val_(kEntries) {}
  // Computes row i of C and appends it; returns the entries kept. (col, val) need room for its bound.
  template <class Acc>
  std::int64_t add_row(Acc& acc, const Csr<T>& a, const Csr<T>& b, std::int64_t i, std::vector<std::int32_t>& col,
                       std::vector<T>& val) {
    const std::int64_t products = row_products(a, b, i);
    const std::int64_t distinct = acc.accumulate(a, b, i, products, products);
    if (distinct > tuning::spgemm::kOnePassBufferedRowEntries) {
      flush(col, val);
      const std::size_t at = col.size();
      col.resize(at + static_cast<std::size_t>(distinct));
      val.resize(at + static_cast<std::size_t>(distinct));
      const std::int64_t kept = acc.emit(col.data() + at, val.data() + at);
      col.resize(at + static_cast<std::size_t>(kept));
      val.resize(at + static_cast<std::size_t>(kept));
      return kept;
    }
    if (used_ + distinct > static_cast<std::int64_t>(kEntries)) flush(col, val);
    const std::int64_t kept = acc.emit(col_.data() + used_, val_.data() + used_);
    used_ += kept;
    return kept;
  }
  // Appends the buffered rows to (col, val), which must have room for them (reserved at C's bound).
  void flush(std::vector<std::int32_t>& col, std::vector<T>& val) {
    col.insert(col.end(), col_.begin(), col_.begin() + used_);
    val.insert(val.end(), val_.begin(), val_.begin() + used_);
    used_ = 0;
  }
  // Forgets the buffered rows (a chunk taken over by thread 0).
  void drop() { used_ = 0; }

 private:
  static constexpr auto kEntries = static_cast<std::size_t>(tuning::spgemm::kOnePassRowBufferEntries);
  std::vector<std::int32_t> col_;
  std::vector<T> val_;
  std::int64_t used_ = 0;
};

// Column and value arrays reserved at `entries` (address space; huge pages asked for when large).
template <class T>
void reserve_rows(std::vector<std::int32_t>& col, std::vector<T>& val, std::int64_t entries) {
  col.reserve(static_cast<std::size_t>(entries));
  val.reserve(static_cast<std::size_t>(entries));
  if (entries * static_cast<std::int64_t>(sizeof(T)) >= tuning::spgemm::kHugePageMinBytes) {
    advise_huge_pages(col.data(), col.capacity() * sizeof(std::int32_t));
    advise_huge_pages(val.data(), val.capacity() * sizeof(T));
  }
}

// Faults in the pages of [p, p + bytes) for writing without changing their contents (fresh pages come
// zeroed by the kernel, which is most of what a first write to them costs), so that another thread can
// do it while the writer is busy elsewhere. A hint: where the kernel cannot, the writer faults them.
inline void populate_for_writing(const void* p, std::size_t bytes) {
#if defined(MADV_POPULATE_WRITE)
  const std::uintptr_t page = 4096;
  const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t e = reinterpret_cast<std::uintptr_t>(p) + bytes;
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

// How the one-pass route hands chunks out. `copied` and `stolen` exist for the tests: every chunk goes
// through an arena and is appended (`copied`), or every chunk another thread claims is taken over by
// thread 0 (`stolen`: the others hold their chunks until thread 0 steals them, as a thread that is
// never scheduled again would).
// `assembled`: the route of many threads (below), which `direct` takes from
// tuning::spgemm::kOnePassAssembleMinThreads threads on.
enum class OnePassMode { direct, copied, stolen, assembled };

namespace one_pass_detail {

enum : int { kWorking = 0, kDone = 1, kStolen = 2 };

// A chunk of rows computed by a thread other than the first, published to thread 0 through `state`.
template <class T>
struct Chunk {
  std::atomic<int> state{kWorking};
  const std::int32_t* col = nullptr;  // its rows in the owner's arena, valid once state == kDone
  const T* val = nullptr;
  std::int64_t entries = 0;
  std::vector<std::int64_t> lengths;  // each row's entries
};

template <class T>
struct Segment {
  std::vector<std::int32_t> col;
  std::vector<T> val;
  std::int64_t room() const { return static_cast<std::int64_t>(col.capacity() - col.size()); }
};

// The segment of `arena` that takes a chunk of at most `need` entries: the last one, or a new one of at
// least `segment_min` entries (a share of C's bound, so that an arena is a few large allocations).
template <class T>
Segment<T>& segment_for(std::vector<Segment<T>>& arena, std::int64_t need, std::int64_t segment_min) {
  if (arena.empty() || arena.back().room() < need) {
    arena.emplace_back();
    reserve_rows(arena.back().col, arena.back().val, std::max(need, segment_min));
  }
  return arena.back();
}

// Thread 0 claims chunks from the front, the others from the back, until the claims meet.
class Claims {
 public:
  explicit Claims(int chunks) : back_(chunks) {}
  int claim(bool from_front) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (front_ == back_) return -1;
    return from_front ? front_++ : --back_;
  }
  int front_chunks() {  // chunks thread 0 claimed, final once claim returned -1
    const std::lock_guard<std::mutex> lock(mutex_);
    return front_;
  }

 private:
  std::mutex mutex_;
  int front_ = 0, back_;
};

// First row of each of `chunks` chunks of about equal work, counted as A's entries plus rows (so that
// empty rows count too); the last entry is A.rows.
template <class T>
std::vector<std::int64_t> chunk_cuts(const Csr<T>& a, int chunks) {
  const std::int64_t rows = a.rows;
  const double work = static_cast<double>(a.nnz() + rows);
  std::vector<std::int64_t> cut(static_cast<std::size_t>(chunks) + 1, rows);
  for (int k = 0; k < chunks; ++k) {
    const auto target = static_cast<std::int64_t>(work * k / chunks);
    std::int64_t lo = 0, hi = rows;  // the first row i with row_ptr[i] + i >= target
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (a.row_ptr[mid] + mid < target) lo = mid + 1;
      else hi = mid;
    }
    cut[k] = lo;
  }
  return cut;
}

// The route of many threads. With 16 threads, thread 0 alone appending the others' chunks (15/16 of C)
// bounded the product: 37.6 ms for FEM's C of 7M entries against 23 ms for MKL's sp2m (device host, fp64),
// 4x the time of one thread where MKL ran 7x. Here every thread computes chunks into its arena (dynamic
// claims); past one barrier each chunk is copied to its place in C, its row offsets written, by whichever
// thread claims it. A descheduled thread now stalls the team at each barrier, hence the threshold.
// Two serial costs are kept off the end of the product, both paid while the chunks are computed:
// - C's pages: a thread that finishes a chunk of e entries faults in the next e entries' pages of C's
//   arrays, so that when every chunk is done exactly C's extent is faulted in, by the whole team.
// - C's sizes: std::vector can only grow by writing what it adds, from one thread (a resize writes zeros:
//   84 MB, about 8 ms on one core for FEM's 7M entries in fp64, a third of the product at 16 threads). So
//   thread 0 appends the chunks finished in order to col_idx and another thread to values, copying their
//   entries from the arenas, between the chunks they compute. What they have not appended when the last
//   chunk is done is sized with zeros and copied by the team past the barrier.
template <class T, template <class> class Accumulator>
void assemble_in_parallel(const Csr<T>& a, const Csr<T>& b, std::int64_t bound, int threads, Csr<T>& c) {
  const std::int64_t rows = a.rows;
  const int chunks = static_cast<int>(std::min<std::int64_t>(
      std::max<std::int64_t>(rows, 1), std::int64_t{threads} * tuning::spgemm::kOnePassChunksPerThread));
  const std::vector<std::int64_t> cut = chunk_cuts(a, chunks);
  std::vector<Chunk<T>> chunk(static_cast<std::size_t>(chunks));
  std::vector<std::vector<Segment<T>>> arenas(static_cast<std::size_t>(threads));
  std::vector<std::int64_t> offset(static_cast<std::size_t>(chunks) + 1, 0);
  const std::int64_t segment_min = bound / (std::int64_t{threads} * 4) + 1;
  std::int32_t* const c_col = c.col_idx.data();  // C's arrays never move: they are reserved at the bound
  T* const c_val = c.values.data();
  std::atomic<std::int64_t> faulted{0};
  const int values_sizer = threads > 1 ? 1 : 0;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::atomic<bool> failed{false};
  auto fail = [&] {
    const std::lock_guard<std::mutex> lock(failure_mutex);
    if (!failure) failure = std::current_exception();
    failed = true;
  };
  // Appends to one of C's arrays the chunks finished in order (`appended`: the first chunk not yet in it;
  // `entries_of` a chunk's entries in its arena). Within the reservation: the array does not move, and only
  // its appender touches the vector object.
  auto append_done = [&](auto& array, int& appended, auto entries_of) {
    for (; appended < chunks && chunk[static_cast<std::size_t>(appended)].state.load(std::memory_order_acquire) == kDone;
         ++appended) {
      const Chunk<T>& ch = chunk[static_cast<std::size_t>(appended)];
      array.insert(array.end(), entries_of(ch), entries_of(ch) + ch.entries);
    }
  };
  int col_appended = 0, val_appended = 0;  // final once every chunk is done
  std::int64_t total = 0;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    std::vector<Segment<T>>& arena = arenas[static_cast<std::size_t>(t)];
    auto append_mine = [&] {
      if (t == 0) append_done(c.col_idx, col_appended, [](const Chunk<T>& ch) { return ch.col; });
      if (t == values_sizer) append_done(c.values, val_appended, [](const Chunk<T>& ch) { return ch.val; });
    };
    // Exceptions cannot leave an OpenMP region: the first is kept, every thread still meets every
    // worksharing loop and barrier, and it is rethrown after the region.
    std::unique_ptr<Accumulator<T>> acc;
    std::unique_ptr<RowStage<T>> stage;
    try {
      acc = std::make_unique<Accumulator<T>>(b.cols);
      stage = std::make_unique<RowStage<T>>();
    } catch (...) {
      fail();
    }
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < chunks; ++k) {
      if (failed.load()) continue;
      try {
        Chunk<T>& ch = chunk[static_cast<std::size_t>(k)];
        Segment<T>& s = segment_for(arena, output_bound(a, b, cut[k], cut[k + 1]), segment_min);
        const std::size_t at = s.col.size();
        ch.lengths.resize(static_cast<std::size_t>(cut[k + 1] - cut[k]));
        for (std::int64_t i = cut[k]; i < cut[k + 1]; ++i) ch.lengths[i - cut[k]] = stage->add_row(*acc, a, b, i, s.col, s.val);
        stage->flush(s.col, s.val);
        ch.col = s.col.data() + at;
        ch.val = s.val.data() + at;
        ch.entries = static_cast<std::int64_t>(s.col.size() - at);
        const std::int64_t lo = faulted.fetch_add(ch.entries);
        populate_for_writing(c_col + lo, static_cast<std::size_t>(ch.entries) * sizeof(std::int32_t));
        populate_for_writing(c_val + lo, static_cast<std::size_t>(ch.entries) * sizeof(T));
        ch.state.store(kDone, std::memory_order_release);
        append_mine();
      } catch (...) {
        fail();
      }
    }
    // Every chunk is done (the loop's barrier): C's offsets, then its arrays sized over what their appenders
    // left (zeros), and those chunks copied by the team.
#pragma omp single
    {
      for (int k = 0; k < chunks; ++k) offset[k + 1] = offset[k] + chunk[static_cast<std::size_t>(k)].entries;
      total = offset[chunks];
    }
    if (!failed.load()) {
      try {
        if (t == 0) c.col_idx.resize(static_cast<std::size_t>(total));
        if (t == values_sizer) c.values.resize(static_cast<std::size_t>(total));
      } catch (...) {
        fail();
      }
    }
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < chunks; ++k) {
      if (failed.load()) continue;
      const Chunk<T>& ch = chunk[static_cast<std::size_t>(k)];
      if (k >= col_appended) std::copy(ch.col, ch.col + ch.entries, c_col + offset[k]);
      if (k >= val_appended) std::copy(ch.val, ch.val + ch.entries, c_val + offset[k]);
      std::int64_t end = offset[k];
      for (std::int64_t i = cut[k]; i < cut[k + 1]; ++i) c.row_ptr[i + 1] = end += ch.lengths[i - cut[k]];
    }
  }
  if (failure) std::rethrow_exception(failure);
  if (c.col_idx.size() != static_cast<std::size_t>(total) || c.values.size() != static_cast<std::size_t>(total))
    throw std::logic_error("one_pass: C's arrays were not sized to its entries");
}

}  // namespace one_pass_detail

template <class T, template <class> class Accumulator>
Csr<T> one_pass(const Csr<T>& a, const Csr<T>& b, std::int64_t bound, int threads, OnePassMode mode) {
  using namespace one_pass_detail;
  const std::int64_t rows = a.rows;
  Csr<T> c;
  c.rows = rows;
  c.cols = b.cols;
  c.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  reserve_rows(c.col_idx, c.values, bound);
  // Row lengths land in row_ptr[i + 1]; one prefix at the end makes them offsets.
  auto write_rows = [&](Accumulator<T>& acc, RowStage<T>& stage, std::int64_t first, std::int64_t last) {
    for (std::int64_t i = first; i < last; ++i) c.row_ptr[i + 1] = stage.add_row(acc, a, b, i, c.col_idx, c.values);
    stage.flush(c.col_idx, c.values);
  };
  if (threads == 1 && mode == OnePassMode::direct) {
    Accumulator<T> acc(b.cols);
    RowStage<T> stage;
    write_rows(acc, stage, 0, rows);
  } else if (mode == OnePassMode::assembled ||
             (mode == OnePassMode::direct && threads >= tuning::spgemm::kOnePassAssembleMinThreads)) {
    assemble_in_parallel<T, Accumulator>(a, b, bound, threads, c);
    return c;  // row_ptr holds offsets already
  } else {
    const int chunks = static_cast<int>(std::min<std::int64_t>(
        std::max<std::int64_t>(rows, 1), std::int64_t{threads} * tuning::spgemm::kOnePassChunksPerThread));
    const std::vector<std::int64_t> cut = chunk_cuts(a, chunks);
    std::vector<Chunk<T>> chunk(static_cast<std::size_t>(chunks));
    std::vector<std::vector<Segment<T>>> arenas(static_cast<std::size_t>(threads));
    Claims claims(chunks);
    // Segments of an arena hold several chunks: a share of C's bound each, so that an arena is a few
    // large (huge-page) allocations rather than one per chunk.
    const std::int64_t segment_min = bound / (std::int64_t{threads} * 4) + 1;
    // Exceptions cannot leave an OpenMP region: the first is kept and rethrown after it. A chunk whose
    // owner failed stays `working`, so thread 0 computes it.
    std::exception_ptr failure;
    std::mutex failure_mutex;
    std::atomic<bool> failed{false};
    // While thread 0 appends the other threads' chunks, thread 1 faults in C's pages they will take,
    // from the last backwards, until it meets thread 0's progress (`appended`, an index into C).
    std::int32_t* const c_col = c.col_idx.data();  // C's arrays never move: they are reserved at the bound
    T* const c_val = c.values.data();
    std::atomic<std::int64_t> back_start{-1}, appended{0};
    std::atomic<int> split{-1};
    std::atomic<bool> walked{false};
    auto populate_back = [&] {
      while (split.load() < 0 && !walked.load() && !failed.load()) std::this_thread::yield();
      const int first = split.load();
      if (first < 0) return;
      std::int64_t end = back_start.load();
      for (int k = first; k < chunks && chunk[static_cast<std::size_t>(k)].state.load() == kDone; ++k)
        end += chunk[static_cast<std::size_t>(k)].entries;
      const std::int64_t step = tuning::spgemm::kOnePassPopulateBytes / static_cast<std::int64_t>(sizeof(T));
      for (std::int64_t hi = end; hi > back_start.load() && !walked.load();) {
        const std::int64_t lo = std::max(hi - step, back_start.load());
        if (lo <= appended.load()) break;
        populate_for_writing(c_col + lo, static_cast<std::size_t>(hi - lo) * sizeof(std::int32_t));
        populate_for_writing(c_val + lo, static_cast<std::size_t>(hi - lo) * sizeof(T));
        hi = lo;
      }
    };
    // A chunk claimed by a thread other than the first (or, `copied`, by any), into its arena.
    auto write_chunk = [&](Accumulator<T>& acc, RowStage<T>& stage, int k, std::vector<Segment<T>>& arena, bool hold) {
      Chunk<T>& ch = chunk[static_cast<std::size_t>(k)];
      Segment<T>& s = segment_for(arena, output_bound(a, b, cut[k], cut[k + 1]), segment_min);
      const std::size_t at = s.col.size();
      ch.lengths.resize(static_cast<std::size_t>(cut[k + 1] - cut[k]));
      bool stolen = false;
      for (std::int64_t i = cut[k]; i < cut[k + 1] && !stolen; ++i) {
        ch.lengths[i - cut[k]] = stage.add_row(acc, a, b, i, s.col, s.val);
        stolen = (i - cut[k]) % tuning::spgemm::kOnePassStealCheckRows == 0 &&
                 ch.state.load(std::memory_order_relaxed) == kStolen;
      }
      if (!stolen) {
        stage.flush(s.col, s.val);
        ch.col = s.col.data() + at;
        ch.val = s.val.data() + at;
        ch.entries = static_cast<std::int64_t>(s.col.size() - at);
        while (hold && ch.state.load(std::memory_order_acquire) != kStolen && !failed.load()) std::this_thread::yield();
        int working = kWorking;
        stolen = !ch.state.compare_exchange_strong(working, kDone, std::memory_order_acq_rel);
      }
      if (stolen) {  // thread 0 computes these rows itself: drop them
        stage.drop();
        s.col.resize(at);
        s.val.resize(at);
      }
    };
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      try {
        const bool front = t == 0 && mode != OnePassMode::copied;
        Accumulator<T> acc(b.cols);
        RowStage<T> stage;
        for (int k; (k = claims.claim(front)) >= 0;) {
          if (front) write_rows(acc, stage, cut[k], cut[k + 1]);
          else write_chunk(acc, stage, k, arenas[static_cast<std::size_t>(t)], mode == OnePassMode::stolen && t != 0);
        }
        if (t == 1) populate_back();
        if (t == 0) {
          // The claims have met: walk the other threads' chunks in order, appending or taking over.
          back_start = static_cast<std::int64_t>(c.col_idx.size());
          appended = back_start.load();
          split = claims.front_chunks();
          for (int k = split.load(); k < chunks; ++k) {
            Chunk<T>& ch = chunk[static_cast<std::size_t>(k)];
            int working = kWorking;
            if (ch.state.compare_exchange_strong(working, kStolen, std::memory_order_acq_rel)) {
              write_rows(acc, stage, cut[k], cut[k + 1]);
              continue;
            }
            c.col_idx.insert(c.col_idx.end(), ch.col, ch.col + ch.entries);
            c.values.insert(c.values.end(), ch.val, ch.val + ch.entries);
            std::copy(ch.lengths.begin(), ch.lengths.end(), c.row_ptr.begin() + cut[k] + 1);
            appended = static_cast<std::int64_t>(c.col_idx.size());
          }
          walked = true;
        }
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
        if (t == 0) walked = true;
      }
    }
    if (failure) std::rethrow_exception(failure);
  }
  for (std::int64_t i = 0; i < rows; ++i) c.row_ptr[i + 1] += c.row_ptr[i];
  return c;
}

}  // namespace spkit::detail
