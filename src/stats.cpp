// Matrix statistics (what `spkit info` prints): one parallel pass over the rows for the row-length
// figures, one over the 8-row block rows for bmSparse (an 8-way merge of the sorted rows' block
// columns: no sort, no scratch), and a selection for the HYB width.
#include "spkit/stats.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "formats/bm_blocks.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/csr.hpp"  // is_exactly_symmetric
#include "spkit/formats/sell.hpp"

namespace spkit {
namespace {

// Bytes of the values at fp64 and fp32, plus `fixed` bytes that do not depend on the value type.
MatrixStats::Bytes bytes_of(std::uint64_t fixed, std::uint64_t value_count) {
  return {fixed + 8 * value_count, fixed + 4 * value_count};
}

}  // namespace

MatrixStats compute_stats(const Csr<double>& a, int hack_size) {
  if (hack_size < 1) throw Error("hack size must be at least 1 (got " + std::to_string(hack_size) + ")");
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1)
    throw Error("compute_stats: row_ptr has " + std::to_string(a.row_ptr.size()) + " entries for " +
                std::to_string(a.rows) + " rows");
  MatrixStats s;
  const std::int64_t m = a.rows;
  s.rows = m;
  s.cols = a.cols;
  s.nnz = a.nnz();
  s.hack_size = hack_size;
  const std::uint64_t nnz = static_cast<std::uint64_t>(s.nnz);

  // Row lengths, empty rows, distance from the diagonal (columns are sorted: first and last suffice).
  std::int64_t min_len = m > 0 ? a.row_length(0) : 0, max_len = 0, empty = 0, max_dist = 0;
  double sum_sq = 0;
#pragma omp parallel for schedule(static) reduction(min : min_len) reduction(max : max_len, max_dist) \
    reduction(+ : empty, sum_sq)
  for (std::int64_t i = 0; i < m; ++i) {
    const std::int64_t len = a.row_length(i);
    min_len = std::min(min_len, len);
    max_len = std::max(max_len, len);
    sum_sq += static_cast<double>(len) * static_cast<double>(len);
    if (len == 0) {
      ++empty;
      continue;
    }
    const std::int64_t first = a.col_idx[a.row_ptr[i]], last = a.col_idx[a.row_ptr[i + 1] - 1];
    max_dist = std::max({max_dist, std::abs(first - i), std::abs(last - i)});
  }
  s.row_nnz_min = min_len;
  s.row_nnz_max = max_len;
  s.empty_rows = empty;
  s.max_diag_distance = max_dist;
  if (m > 0) {
    s.row_nnz_mean = static_cast<double>(s.nnz) / static_cast<double>(m);
    s.row_nnz_std = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(m) - s.row_nnz_mean * s.row_nnz_mean));
  }

  // Column counts, then the non-zeros of the 1% most used columns.
  if (a.cols > 0 && nnz > 0) {
    std::vector<std::int64_t> count(static_cast<std::size_t>(a.cols), 0);
    for (const std::int32_t c : a.col_idx) ++count[static_cast<std::size_t>(c)];
    const std::size_t top = std::max<std::size_t>(1, count.size() / 100);
    std::nth_element(count.begin(), count.begin() + static_cast<std::ptrdiff_t>(top - 1), count.end(), std::greater<>());
    std::int64_t in_top = 0;
    for (std::size_t k = 0; k < top; ++k) in_top += count[k];
    s.hub_column_share = static_cast<double>(in_top) / static_cast<double>(nnz);
  }

  // Distinct diagonals: one flag per offset col - row in [-(m-1), cols-1].
  if (m > 0 && a.cols > 0) {
    std::vector<unsigned char> used(static_cast<std::size_t>(m + a.cols - 1), 0);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        used[static_cast<std::size_t>(a.col_idx[k] - i + (m - 1))] = 1;  // benign race: all write 1
    std::int64_t count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count)
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(used.size()); ++d) count += used[d];
    s.diagonals = count;
  }
  s.symmetric = is_exactly_symmetric(a);

  // ELLPACK: every row padded to the longest.
  s.ell_width = max_len;
  const std::uint64_t ell_slots = static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(max_len);
  s.ell_padding_ratio = nnz ? static_cast<double>(ell_slots - nnz) / static_cast<double>(nnz) : 0.0;

  // HLL: each hack padded to its own longest row; hack_offset (int64, hacks+1) and hack_width (int32).
  const std::int64_t hacks = (m + hack_size - 1) / hack_size;
  std::uint64_t hll_slots = 0;
#pragma omp parallel for schedule(static) reduction(+ : hll_slots)
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t begin = h * hack_size, end = std::min(m, begin + hack_size);
    std::int64_t width = 0;
    for (std::int64_t i = begin; i < end; ++i) width = std::max(width, a.row_length(i));
    hll_slots += static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(end - begin);
  }
  s.hll_padding_ratio = nnz ? static_cast<double>(hll_slots - nnz) / static_cast<double>(nnz) : 0.0;

  // HYB width (hyb.hpp): the largest K with at least a third of the rows of length >= K, i.e. the
  // ceil(m/3)-th largest row length.
  std::int64_t hyb_width = 0, hyb_overflow = 0;
  if (m > 0) {
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) lengths[i] = a.row_length(i);
    const std::int64_t rank = (m + 2) / 3;  // ceil(m/3), 1-based rank among the longest
    std::nth_element(lengths.begin(), lengths.begin() + (rank - 1), lengths.end(), std::greater<>());
    hyb_width = lengths[rank - 1];
#pragma omp parallel for schedule(static) reduction(+ : hyb_overflow)
    for (std::int64_t i = 0; i < m; ++i) hyb_overflow += std::max<std::int64_t>(0, a.row_length(i) - hyb_width);
  }

  // bmSparse: per block row, merge the (sorted) columns of its up to 8 rows by block column.
  const std::int64_t block_rows = (m + 7) / 8;
  std::int64_t blocks = 0;
  std::vector<std::int64_t> histogram(65, 0);
#pragma omp parallel reduction(+ : blocks)
  {
    std::vector<std::int64_t> local_hist(65, 0);
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t br = 0; br < block_rows; ++br)
      detail::for_each_bm_block(a, br, [&](std::int64_t, int nr, const std::int64_t* b, const std::int64_t* e) {
        std::int64_t count = 0;
        for (int r = 0; r < nr; ++r) count += e[r] - b[r];
        ++blocks;
        ++local_hist[std::min<std::int64_t>(count, 64)];
      });
#pragma omp critical
    for (int k = 0; k <= 64; ++k) histogram[k] += local_hist[k];
  }
  s.bm_blocks = blocks;
  s.bm_nnz_per_block = blocks ? static_cast<double>(s.nnz) / static_cast<double>(blocks) : 0.0;
  std::copy(histogram.begin(), histogram.end(), s.bm_block_histogram.begin());

  // Dense b x b blocks, b = 2..4 (the walk above at block size b): the b whose blocks, with a 32-bit
  // column each, move the fewest bytes.
  for (int b = 2; b <= 4 && m > 0; ++b) {
    std::int64_t count = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : count)
    for (std::int64_t br = 0; br < (m + b - 1) / b; ++br)
      detail::for_each_block(a, b, br, [&](std::int64_t, int, const std::int64_t*, const std::int64_t*) { ++count; });
    const auto bytes = [](std::int64_t n, int dim) { return n * (dim * dim * 4 + 4); };
    if (s.bsr_block == 0 || bytes(count, b) < bytes(s.bsr_blocks, s.bsr_block)) s.bsr_block = b, s.bsr_blocks = count;
  }
  s.bsr_fill = nnz ? static_cast<double>(s.bsr_blocks * s.bsr_block * s.bsr_block) / static_cast<double>(nnz) : 0.0;

  // Bytes per format: 32-bit indices, 64-bit offsets, values at fp64 / fp32.
  const std::uint64_t um = static_cast<std::uint64_t>(m);
  s.bytes_coo = bytes_of(8 * nnz, nnz);
  s.bytes_csr = bytes_of(8 * (um + 1) + 4 * nnz, nnz);
  s.bytes_ell = bytes_of(4 * ell_slots, ell_slots);
  s.bytes_hll = bytes_of(8 * static_cast<std::uint64_t>(hacks + 1) + 4 * static_cast<std::uint64_t>(hacks) + 4 * hll_slots,
                         hll_slots);
  const std::uint64_t hyb_ell_slots = um * static_cast<std::uint64_t>(hyb_width);
  const std::uint64_t overflow = static_cast<std::uint64_t>(hyb_overflow);
  s.bytes_hyb = bytes_of(4 * hyb_ell_slots + 8 * overflow, hyb_ell_slots + overflow);
  s.hyb_width = hyb_width;
  s.hyb_coo_entries = hyb_overflow;
  const std::uint64_t ub = static_cast<std::uint64_t>(blocks);
  s.bytes_bmsparse = bytes_of(8 * ub + 8 * ub + 8 * (ub + 1) + 8 * static_cast<std::uint64_t>(block_rows + 1), nnz);

  // SELL-C-sigma (window sort + per-slice 16-bit check: one more pass over the rows).
  const SellShape sell = sell_shape(a);
  s.sell_padding_ratio = nnz ? static_cast<double>(sell.slots - s.nnz) / static_cast<double>(nnz) : 0.0;
  s.sell_delta16_fraction = sell.slots ? static_cast<double>(sell.slots_16bit) / static_cast<double>(sell.slots) : 0.0;
  s.sell_permuted = sell.permuted;
  return s;
}

}  // namespace spkit
