#pragma once
// Sorted samples of distinct columns for the random families (random, powerlaw, circuit).
#include <algorithm>
#include <cstdint>

#include "gen/rng.hpp"

namespace spkit::gen_detail {

// k distinct columns in [0, range), sorted, by Knuth's selection sampling (uniform; O(range)).
inline void selection_sample(StreamRng& rng, std::int64_t k, std::int64_t range, std::int32_t* out) {
  std::int64_t need = k;
  for (std::int64_t c = 0; c < range && need > 0; ++c)
    if (rng.below(range - c) < need) out[k - need--] = static_cast<std::int32_t>(c);
}

// k distinct columns from `draw` (values in [0, range)), sorted: draw, sort, drop duplicates, top up.
// Used when k is small against the range, so few rounds are needed.
template <class Draw>
void rejection_sample(std::int64_t k, std::int32_t* out, Draw&& draw) {
  std::int64_t have = 0;
  while (have < k) {
    // Only the new draws need sorting; they are merged into the sorted, distinct prefix.
    for (std::int64_t i = have; i < k; ++i) out[i] = static_cast<std::int32_t>(draw());
    std::sort(out + have, out + k);
    std::inplace_merge(out, out + have, out + k);
    have = std::unique(out, out + k) - out;
  }
}

}  // namespace spkit::gen_detail
