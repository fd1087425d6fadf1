#pragma once
// HYB (Bell & Garland): a column-major ELL part of width K plus the overflow of longer rows in COO.
#include <cstdint>

#include "spkit/formats/coo.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/formats/ell.hpp"

namespace spkit {

template <class T>
struct Hyb {
  Ell<T> ell;  // width K, column-major; rows shorter than K padded
  Coo<T> coo;  // entries beyond the first K of each row, row-major order
  std::int64_t rows() const { return ell.rows; }
  std::int64_t cols() const { return ell.cols; }
  std::int64_t nnz() const { return ell.nnz + coo.nnz(); }
  std::size_t memory_bytes() const { return ell.memory_bytes() + coo.memory_bytes(); }
};

// K chosen from the row-length distribution: the largest K such that at least a third of the rows
// have >= K entries (Bell & Garland's rule), unless `ell_width` >= 0 forces it.
template <class T>
std::int64_t hyb_choose_width(const Csr<T>& csr);
template <class T>
Hyb<T> csr_to_hyb(const Csr<T>& csr, std::int64_t ell_width = -1, const FormatLimits& limits = {});
template <class T>
Csr<T> hyb_to_csr(const Hyb<T>& hyb);

}  // namespace spkit
