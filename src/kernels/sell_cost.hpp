#pragma once
// The bytes of a SELL-C-sigma product as the cost models estimate them from MatrixStats (no SELL built).
// Host-only, usable from .cu files.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "spkit/formats/sell.hpp"
#include "spkit/stats.hpp"

namespace spkit {

// Bytes one SELL-C-sigma product moves (format arrays at the default C and sigma, x, y), from
// MatrixStats::sell_padding_ratio and sell_delta16_fraction; value_bytes = sizeof(T).
inline std::uint64_t sell_spmv_bytes(const MatrixStats& stats, std::size_t value_bytes, SellIndex index) {
  const auto slots = static_cast<std::uint64_t>(std::llround(static_cast<double>(stats.nnz) * (1.0 + stats.sell_padding_ratio)));
  const std::uint64_t slots16 =
      index == SellIndex::delta16 ? static_cast<std::uint64_t>(std::llround(static_cast<double>(slots) * stats.sell_delta16_fraction)) : 0;
  const auto rows = static_cast<std::uint64_t>(stats.rows);
  const std::uint64_t slices = (rows + kSellDefaultSliceHeight - 1) / kSellDefaultSliceHeight;
  const std::uint64_t perm = stats.sell_permuted ? rows * sizeof(std::int32_t) : 0;
  return slots * value_bytes + slots16 * 2 + (slots - slots16) * 4 + slices * (8 + 4 + 4 + 8) + 8 + perm +
         (rows + static_cast<std::uint64_t>(stats.cols)) * value_bytes;
}

}  // namespace spkit
