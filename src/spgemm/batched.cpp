// Memory-bounded SpGEMM (spkit/spgemm.hpp): C = A B in row batches of A when C, with the kernel's
// working space, does not fit the memory the product may take on its backend. Generic over every
// registered kernel: batch i calls the kernel on C_i = A[r_i:r_(i+1), :] B and appends C_i on the host.
//   sizing   each row of C is bounded by min(its intermediate products, B's columns) in O(nnz(A)); only
//            when that bound does not fit (the budget or the host) are the rows counted exactly, one
//            symbolic pass on the host; batches are then cut greedily in row order.
//   refusal  before any kernel runs: C larger than the host's available memory, or B or one row of C
//            larger than the budget, is TooLarge naming the bytes.
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "platform/memory.hpp"
#include "spgemm/spgemm_util.hpp"
#include "spkit/config.hpp"
#include "spkit/error.hpp"
#include "spkit/spgemm.hpp"
#include "tuning.hpp"

namespace spkit {

#ifdef SPKIT_HAVE_CUDA
namespace detail {
std::uint64_t spgemm_device_free_bytes(int device);  // src/spgemm/cuda/spgemm_memory.cu
}
#endif

namespace {

std::uint64_t backend_free_bytes(Backend backend, int device) {
  if (backend == Backend::cpu) return available_memory_bytes();
#ifdef SPKIT_HAVE_CUDA
  return detail::spgemm_device_free_bytes(device);
#else
  (void)device;
  throw NotApplicable("SpGEMM on CUDA: this spkit was built without CUDA");
#endif
}

// Distinct columns of each row of C = A B (the symbolic phase alone): a stamp per column of B and
// thread when that fits in a quarter of the memory available, else a sort of the row's columns.
template <class T>
std::vector<std::int64_t> count_rows(const Csr<T>& a, const Csr<T>& b) {
  std::vector<std::int64_t> count(static_cast<std::size_t>(a.rows), 0);
  const auto threads = static_cast<std::uint64_t>(std::max(1, omp_get_max_threads()));
  const bool stamps = static_cast<std::uint64_t>(b.cols) * 4 * threads <= available_memory_bytes() / 4;
#pragma omp parallel
  {
    std::vector<std::uint32_t> mark(stamps ? static_cast<std::size_t>(b.cols) : 0, 0);
    std::uint32_t stamp = 0;
    std::vector<std::int32_t> cols;
#pragma omp for schedule(dynamic, tuning::spgemm::kGustavsonRowsPerChunk)
    for (std::int64_t i = 0; i < a.rows; ++i) {
      std::int64_t n = 0;
      if (stamps && ++stamp == 0) std::fill(mark.begin(), mark.end(), 0), stamp = 1;  // after 2^32 rows
      cols.clear();
      for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
        const std::int32_t j = a.col_idx[p];
        for (std::int64_t q = b.row_ptr[j]; q < b.row_ptr[j + 1]; ++q) {
          const std::int32_t k = b.col_idx[q];
          if (!stamps) cols.push_back(k);
          else if (mark[k] != stamp) mark[k] = stamp, ++n;
        }
      }
      if (!stamps) {
        std::sort(cols.begin(), cols.end());
        n = std::unique(cols.begin(), cols.end()) - cols.begin();
      }
      count[i] = n;
    }
  }
  return count;
}

template <class T>
Csr<T> row_slice(const Csr<T>& a, std::int64_t r0, std::int64_t r1) {
  Csr<T> s;
  s.rows = r1 - r0, s.cols = a.cols;
  const std::int64_t p0 = a.row_ptr[r0], p1 = a.row_ptr[r1];
  s.row_ptr.resize(static_cast<std::size_t>(s.rows) + 1);
  for (std::int64_t i = 0; i <= s.rows; ++i) s.row_ptr[i] = a.row_ptr[r0 + i] - p0;
  s.col_idx.assign(a.col_idx.begin() + p0, a.col_idx.begin() + p1);
  s.values.assign(a.values.begin() + p0, a.values.begin() + p1);
  return s;
}

// Passes a batch's stages on with "batch i/n: " in front; the kernel's end of stages is held back (the
// next stage closes its last one), so that the batches read as one contiguous pipeline.
class BatchRecorder final : public SpgemmStageRecorder {
 public:
  explicit BatchRecorder(SpgemmStageRecorder* inner) : inner_(inner) {}
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  void begin_stage(const char* name, bool in_total, StageSite site) override {
    names_.push_back(prefix_ + name);  // kept alive: the recorder may hold the pointer until the stage ends
    inner_->begin_stage(names_.back().c_str(), in_total, site);
  }
  void end_stages() override {}

 private:
  SpgemmStageRecorder* inner_;
  std::string prefix_;
  std::deque<std::string> names_;
};

std::string bytes_text(std::uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

}  // namespace

std::uint64_t parse_memory_bytes(const std::string& text, const std::string& what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  double scale = 1;
  if (end != begin && *end) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(*end)));
    scale = unit == 'K' ? 0x1p10 : unit == 'M' ? 0x1p20 : unit == 'G' ? 0x1p30 : 0;
    ++end;
    if (*end == 'i' || *end == 'I') ++end;
    if (*end == 'b' || *end == 'B') ++end;
  }
  if (end == begin || *end || scale == 0 || !(v * scale >= 1) || v * scale > 0x1p63)
    throw Error(what + " must be a positive number of bytes, optionally with a K, M or G suffix (got \"" + text +
                "\")");
  return static_cast<std::uint64_t>(v * scale);
}

std::uint64_t spgemm_memory_limit_from_env() {
  const char* text = std::getenv("SPKIT_DEVICE_MEMORY_LIMIT");
  return text && *text ? parse_memory_bytes(text, "SPKIT_DEVICE_MEMORY_LIMIT") : 0;
}

template <class T>
SpgemmBatchPlan plan_spgemm_batches(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b,
                                    const SpgemmOptions& opts) {
  detail::check_spgemm_shapes(a, b);
  SpgemmBatchPlan plan;
  const std::uint64_t limit = opts.memory_limit ? opts.memory_limit : spgemm_memory_limit_from_env();
  const std::uint64_t free_bytes = backend_free_bytes(k.backend, opts.device);
  plan.budget_bytes = limit ? std::min(limit, free_bytes) : free_bytes;
  const std::uint64_t entry = sizeof(std::int32_t) + sizeof(T);
  const std::uint64_t host_ptr = static_cast<std::uint64_t>(a.rows + 1) * sizeof(std::int64_t);
  // On a device the kernel holds all of B next to each batch; on the host B is already there.
  const std::uint64_t fixed =
      k.backend == Backend::cuda ? static_cast<std::uint64_t>(b.nnz()) * entry + (b.rows + 1) * sizeof(std::int64_t) : 0;

  std::vector<std::int64_t> row_c(static_cast<std::size_t>(a.rows));
  std::uint64_t c_entries = 0, c_at_least = 0, a_entries = static_cast<std::uint64_t>(a.nnz());
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : c_entries, c_at_least)
  for (std::int64_t i = 0; i < a.rows; ++i) {
    std::int64_t products = 0, longest = 0;  // a row of C holds at least the longest row of B it takes
    for (std::int64_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      products += b.row_length(a.col_idx[p]);
      longest = std::max(longest, b.row_length(a.col_idx[p]));
    }
    row_c[i] = std::min(products, b.cols);
    c_entries += static_cast<std::uint64_t>(row_c[i]);
    c_at_least += static_cast<std::uint64_t>(longest);
  }
  const auto work = [&](std::uint64_t c, std::uint64_t a_nnz, std::uint64_t rows) {
    return static_cast<std::uint64_t>(tuning::spgemm::kBatchWorkBytesPerCByte * static_cast<double>(c * entry)) +
           a_nnz * entry + rows * tuning::spgemm::kBatchBytesPerRow;
  };
  const std::uint64_t host_free = available_memory_bytes();
  const auto host_refusal = [&](std::uint64_t entries, const char* how) {
    const std::uint64_t bytes = entries * entry + host_ptr;
    return TooLarge("SpGEMM: C = A B has " + std::string(how) + std::to_string(entries) + " non-zeros (" +
                        bytes_text(bytes) + " in CSR), more than the " + bytes_text(host_free) +
                        " of host memory available",
                    bytes);
  };
  if (c_at_least * entry + host_ptr > host_free) throw host_refusal(c_at_least, "at least ");  // no count needed
  if (fixed + work(c_entries, a_entries, a.rows) > plan.budget_bytes || c_entries * entry + host_ptr > host_free) {
    row_c = count_rows(a, b);  // the bound does not fit somewhere: the exact sizes decide
    c_entries = 0;
    for (std::int64_t n : row_c) c_entries += static_cast<std::uint64_t>(n);
    plan.counted = true;
  }
  plan.c_bytes = c_entries * entry + host_ptr;
  if (plan.c_bytes > host_free) throw host_refusal(c_entries, plan.counted ? "" : "up to ");
  if (fixed >= plan.budget_bytes)
    throw TooLarge(k.name + ": B alone (" + bytes_text(fixed) + ") does not fit the product's memory budget of " +
                       bytes_text(plan.budget_bytes),
                   fixed);
  const std::uint64_t room = plan.budget_bytes - fixed;
  plan.row_starts.push_back(0);
  std::uint64_t used = 0, c_in_batch = 0, largest_c = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const std::uint64_t row = work(static_cast<std::uint64_t>(row_c[i]), static_cast<std::uint64_t>(a.row_length(i)), 1);
    if (row > room)
      throw TooLarge(k.name + ": row " + std::to_string(i) + " of C alone (" + std::to_string(row_c[i]) +
                         " non-zeros) needs more than the product's memory budget of " + bytes_text(plan.budget_bytes),
                     fixed + row);
    if (used + row > room) {
      plan.row_starts.push_back(i);
      plan.batch_bytes = std::max(plan.batch_bytes, fixed + used);
      largest_c = std::max(largest_c, c_in_batch);
      used = 0, c_in_batch = 0;
    }
    used += row, c_in_batch += static_cast<std::uint64_t>(row_c[i]) * entry;
  }
  plan.row_starts.push_back(a.rows);
  plan.batch_bytes = std::max(plan.batch_bytes, fixed + used);
  largest_c = std::max(largest_c, c_in_batch);
  // Batches hold one batch's C beside the assembled C on the host.
  if (plan.batches() > 1 && plan.c_bytes + largest_c > host_free)
    throw TooLarge("SpGEMM: C = A B (" + bytes_text(plan.c_bytes) + ") and its largest row batch (" +
                       bytes_text(largest_c) + ") do not fit in the " + bytes_text(host_free) +
                       " of host memory available",
                   plan.c_bytes + largest_c);
  return plan;
}

template <class T>
SpgemmResult<T> spgemm_batched(const SpgemmKernelInfo& k, const Csr<T>& a, const Csr<T>& b, const SpgemmOptions& opts,
                               const SpgemmBatchPlan& plan) {
  const SpgemmFn<T>& fn = k.fn<T>();
  if (!fn) throw NotApplicable(k.name + " has no " + std::string(to_string(precision_of<T>())) + " form");
  const std::int64_t n = plan.batches();
  if (n < 1 || plan.row_starts.front() != 0 || plan.row_starts.back() != a.rows)
    throw Error("spgemm_batched: the batch plan does not cover the " + std::to_string(a.rows) + " rows of A");
  if (n == 1) return fn(a, b, opts);

  SpgemmOptions batch_opts = opts;
  batch_opts.discard_result = false;  // the batches' C are assembled here
  BatchRecorder recorder(opts.recorder);
  if (opts.recorder) batch_opts.recorder = &recorder;
  const auto stage = [&](const char* name) {  // through the batch recorder, which keeps the name alive
    if (opts.recorder) recorder.begin_stage(name, true, StageSite::host);
  };
  SpgemmResult<T> r;
  r.c.rows = a.rows, r.c.cols = b.cols;
  r.c.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  if (plan.counted) {  // C's structural size is known: one allocation (exact zeros may leave it short)
    const std::uint64_t entries = (plan.c_bytes - (a.rows + 1) * sizeof(std::int64_t)) / (sizeof(std::int32_t) + sizeof(T));
    r.c.col_idx.reserve(entries), r.c.values.reserve(entries);
  }
  r.out_blocks = 0, r.tasks = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t r0 = plan.row_starts[i], r1 = plan.row_starts[i + 1];
    const std::string prefix = "batch " + std::to_string(i + 1) + "/" + std::to_string(n) + ": ";
    recorder.set_prefix(prefix);
    stage("slice A");
    const Csr<T> slice = row_slice(a, r0, r1);
    SpgemmResult<T> part = fn(slice, b, batch_opts);
    stage("append C");
    if (part.c.rows != r1 - r0 || part.c.cols != b.cols)
      throw Error(k.name + ": batch " + std::to_string(i + 1) + " returned a " + std::to_string(part.c.rows) + "x" +
                  std::to_string(part.c.cols) + " C for " + std::to_string(r1 - r0) + " rows of A");
    const std::int64_t base = static_cast<std::int64_t>(r.c.col_idx.size());
    for (std::int64_t q = 1; q <= part.c.rows; ++q) r.c.row_ptr[r0 + q] = base + part.c.row_ptr[q];
    r.c.col_idx.insert(r.c.col_idx.end(), part.c.col_idx.begin(), part.c.col_idx.end());
    r.c.values.insert(r.c.values.end(), part.c.values.begin(), part.c.values.end());
    r.out_blocks = part.out_blocks >= 0 && r.out_blocks >= 0 ? r.out_blocks + part.out_blocks : -1;
    r.tasks = part.tasks >= 0 && r.tasks >= 0 ? r.tasks + part.tasks : -1;
    if (i == 0) r.detail = part.detail;
  }
  if (opts.recorder) opts.recorder->end_stages();
  r.detail += (r.detail.empty() ? "" : ", ") + std::to_string(n) + " row batches";
  return r;
}

template SpgemmBatchPlan plan_spgemm_batches(const SpgemmKernelInfo&, const Csr<float>&, const Csr<float>&,
                                             const SpgemmOptions&);
template SpgemmBatchPlan plan_spgemm_batches(const SpgemmKernelInfo&, const Csr<double>&, const Csr<double>&,
                                             const SpgemmOptions&);
template SpgemmResult<float> spgemm_batched(const SpgemmKernelInfo&, const Csr<float>&, const Csr<float>&,
                                           const SpgemmOptions&, const SpgemmBatchPlan&);
template SpgemmResult<double> spgemm_batched(const SpgemmKernelInfo&, const Csr<double>&, const Csr<double>&,
                                            const SpgemmOptions&, const SpgemmBatchPlan&);

}  // namespace spkit
