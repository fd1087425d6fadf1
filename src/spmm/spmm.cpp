// The SpMM layer's small common pieces: layout names and the leading-dimension check every run() makes.
#include "spkit/spmm.hpp"

#include <string>

#include "spkit/error.hpp"

namespace spkit {

std::string_view to_string(DenseLayout layout) { return layout == DenseLayout::row_major ? "row" : "col"; }

DenseLayout parse_dense_layout(std::string_view text) {
  if (text == "row" || text == "row_major" || text == "rowmajor") return DenseLayout::row_major;
  if (text == "col" || text == "col_major" || text == "colmajor" || text == "column") return DenseLayout::col_major;
  throw Error("unknown dense layout '" + std::string(text) + "' (row or col)");
}

void check_spmm_leading_dims(std::int64_t rows, std::int64_t cols, const SpmmShape& shape, std::int64_t ldx,
                             std::int64_t ldy) {
  const bool row = shape.layout == DenseLayout::row_major;
  const std::int64_t need_x = row ? shape.k : cols, need_y = row ? shape.k : rows;
  if (ldx < need_x || ldy < need_y)
    throw Error("SpMM with " + std::string(row ? "row" : "column") + "-major X and Y: ldx " + std::to_string(ldx) +
                " and ldy " + std::to_string(ldy) + " must be at least " + std::to_string(need_x) + " and " +
                std::to_string(need_y));
}

}  // namespace spkit
