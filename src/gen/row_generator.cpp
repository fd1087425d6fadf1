// The values of the symmetric families and the parallel two-pass CSR builder that every
// RowGenerator family runs through (see row_generator.hpp).
#include "gen/row_generator.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "gen/rng.hpp"
#include "spkit/error.hpp"
#include "platform/memory.hpp"

namespace spkit::gen_detail {

// Off-diagonal value of the symmetric families: the same for (i, j) and (j, i), in (-1, -0.5].
double symmetric_value(std::uint64_t seed, std::int64_t i, std::int64_t j) {
  std::int64_t lo = std::min(i, j), hi = std::max(i, j);
  return -(0.5 + 0.5 * unit_from(hash3(seed ^ kEdgeSalt, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi))));
}

// Fills values of a symmetric row whose columns are set: off-diagonals symmetric, the diagonal one
// more than their absolute sum (strict diagonal dominance with a positive diagonal: SPD).
void fill_symmetric_values(std::uint64_t seed, std::int64_t row, const std::int32_t* cols, double* values,
                           std::int64_t len) {
  double off_sum = 0;
  std::int64_t diag = -1;
  for (std::int64_t k = 0; k < len; ++k) {
    if (cols[k] == row) {
      diag = k;
      continue;
    }
    values[k] = symmetric_value(seed, row, cols[k]);
    off_sum += -values[k];
  }
  if (diag >= 0) values[diag] = off_sum + 1.0;
}

// Exclusive prefix sum in place: v[i] becomes the sum of the old v[0..i). Returns the total.
std::int64_t exclusive_scan(std::vector<std::int64_t>& v) {
  std::int64_t sum = 0;
  for (auto& x : v) {
    const std::int64_t len = x;
    x = sum;
    sum += len;
  }
  return sum;
}

// ---- the parallel two-pass CSR builder ------------------------------------------------------------
Csr<double> build_csr(const RowGenerator& gen, const std::string& family, const GenProgress& progress) {
  Csr<double> a;
  a.rows = gen.rows();
  a.cols = gen.cols();
  const std::int64_t rows = a.rows;
  const std::uint64_t budget = available_memory_bytes();
  // 8 bytes per row pointer, 4 + 8 per non-zero.
  auto check_memory = [&](double nnz) {
    const double need = 8.0 * static_cast<double>(rows + 1) + 12.0 * nnz;
    if (need > static_cast<double>(budget))
      throw TooLarge("gen " + family + ": the matrix (" + std::to_string(rows) + " rows, about " +
                         std::to_string(static_cast<long long>(std::min(nnz, 9e18))) +
                         " non-zeros) does not fit in the available memory",
                     static_cast<std::uint64_t>(std::min(need, 1.8e19)));
  };
  check_memory(gen.expected_nnz());
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);

  constexpr std::int64_t kChunk = 4096;
  const std::int64_t chunks = (rows + kChunk - 1) / kChunk;
  // Pass 1: row lengths.
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < chunks; ++c)
    for (std::int64_t i = c * kChunk; i < std::min(rows, (c + 1) * kChunk); ++i) a.row_ptr[i + 1] = gen.row_length(i);

  // Prefix sum: each thread scans its slice, then adds the sums of the slices before it.
  {
    const int threads = omp_get_max_threads();
    std::vector<std::int64_t> slice_sum(static_cast<std::size_t>(threads) + 1, 0);
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::int64_t begin = 1 + rows * t / nt, end = 1 + rows * (t + 1) / nt;
      std::int64_t s = 0;
      for (std::int64_t i = begin; i < end; ++i) s = (a.row_ptr[i] += s);
      slice_sum[t + 1] = s;
#pragma omp barrier
#pragma omp single
      for (int k = 1; k <= nt; ++k) slice_sum[k] += slice_sum[k - 1];
      const std::int64_t offset = slice_sum[t];
      if (offset != 0)
        for (std::int64_t i = begin; i < end; ++i) a.row_ptr[i] += offset;
    }
  }
  const std::int64_t nnz = a.row_ptr[rows];
  check_memory(static_cast<double>(nnz));
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  a.values.resize(static_cast<std::size_t>(nnz));

  // Pass 2: fill. Chunks are handed out in order, so the chunks done tell the progress.
  std::atomic<std::int64_t> next_chunk{0}, done_chunks{0};
  const std::int64_t report_every = std::max<std::int64_t>(1, chunks / 100);
#pragma omp parallel
  {
    const bool reporter = progress && omp_get_thread_num() == 0;
    std::int64_t last_report = 0;
    for (std::int64_t c; (c = next_chunk.fetch_add(1)) < chunks;) {
      for (std::int64_t i = c * kChunk; i < std::min(rows, (c + 1) * kChunk); ++i)
        gen.fill_row(i, a.col_idx.data() + a.row_ptr[i], a.values.data() + a.row_ptr[i]);
      std::int64_t done = done_chunks.fetch_add(1) + 1;
      if (reporter && done - last_report >= report_every) {
        last_report = done;
        progress(static_cast<double>(done) / static_cast<double>(chunks));
      }
    }
  }
  if (progress) progress(1.0);
  return a;
}

}  // namespace spkit::gen_detail
