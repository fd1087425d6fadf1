#pragma once
// HLL (hacked ELLPACK): rows cut into hacks of `hack_size` rows; each hack is an ELLPACK block with
// its own width. Within a hack the layout is row-major (r*width + k) or column-major (k*hack_rows + r,
// hack_rows = rows in that hack, smaller for the last one).
#include <cstdint>
#include <vector>

#include "spkit/formats/csr.hpp"
#include "spkit/formats/format_common.hpp"

namespace spkit {

template <class T>
struct Hll {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;  // true non-zeros
  int hack_size = 32;
  Layout layout = Layout::col_major;
  std::vector<std::int64_t> hack_offset;  // n_hacks + 1: start of each hack in col_idx/values
  std::vector<std::int32_t> hack_width;   // n_hacks: MAXNZ of each hack
  std::vector<std::int32_t> col_idx;
  std::vector<T> values;
  std::vector<std::int32_t> row_length;   // host-side metadata for the way back to CSR

  std::int64_t hacks() const { return static_cast<std::int64_t>(hack_width.size()); }
  std::size_t memory_bytes() const {
    return hack_offset.size() * sizeof(std::int64_t) + hack_width.size() * sizeof(std::int32_t) +
           col_idx.size() * sizeof(std::int32_t) + values.size() * sizeof(T);
  }
};

template <class T>
Hll<T> csr_to_hll(const Csr<T>& csr, int hack_size, Layout layout, const FormatLimits& limits = {});
template <class T>
Csr<T> hll_to_csr(const Hll<T>& hll);
template <class T>
std::uint64_t hll_bytes(const Csr<T>& csr, int hack_size);

}  // namespace spkit
