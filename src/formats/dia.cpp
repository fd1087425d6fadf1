// CSR <-> DIA. The diagonals are found with one flag per possible offset col - row (rows + cols - 1
// bytes), the bytes are checked against CSR before anything large is allocated, then every entry is
// written to its slot in parallel over rows.
#include "spkit/formats/dia.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "formats/convert_util.hpp"
#include "spkit/error.hpp"

namespace spkit {

namespace {

// used[d + rows - 1] = 1 for every offset d = col - row holding an entry.
template <class T>
std::vector<unsigned char> used_diagonals(const Csr<T>& csr) {
  const std::int64_t rows = detail::safe_rows(csr);
  if (rows == 0 || csr.cols == 0) return {};
  std::vector<unsigned char> used(static_cast<std::size_t>(rows + csr.cols - 1), 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k)
      used[static_cast<std::size_t>(csr.col_idx[k] - i + (rows - 1))] = 1;  // benign race: all write 1
  return used;
}

std::int64_t padded(std::int64_t rows, std::int64_t tile_rows) {
  return tile_rows > 0 ? (rows + tile_rows - 1) / tile_rows * tile_rows : rows;
}

template <class T>
std::uint64_t csr_arrays_bytes(const Csr<T>& csr) {
  return static_cast<std::uint64_t>(detail::safe_rows(csr) + 1) * sizeof(std::int64_t) +
         static_cast<std::uint64_t>(csr.nnz()) * (sizeof(std::int32_t) + sizeof(T));
}

template <class T>
DiaShape shape_from(const Csr<T>& csr, const std::vector<unsigned char>& used, const DiaOptions& o) {
  DiaShape s;
  const std::int64_t rows = detail::safe_rows(csr);
  for (std::size_t u = 0; u < used.size(); ++u)
    if (used[u]) {
      ++s.diagonals;
      if (!o.symmetric || static_cast<std::int64_t>(u) >= rows - 1) ++s.stored_diagonals;
    }
  const std::uint64_t slots =
      detail::mul_sat(static_cast<std::uint64_t>(s.stored_diagonals), static_cast<std::uint64_t>(padded(rows, o.tile_rows)));
  s.bytes = detail::add_sat(detail::mul_sat(slots, sizeof(T)),
                            static_cast<std::uint64_t>(s.stored_diagonals) * sizeof(std::int64_t));
  s.csr_bytes = csr_arrays_bytes(csr);
  return s;
}

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", r);
  return buf;
}

}  // namespace

void check_dia_worthwhile(const DiaShape& shape, const DiaOptions& o, std::int64_t rows) {
  const double ratio = shape.csr_bytes ? static_cast<double>(shape.bytes) / static_cast<double>(shape.csr_bytes) : 0.0;
  if (shape.bytes > 0 && ratio > o.max_bytes_ratio)
    throw NotApplicable("DIA would store " + std::to_string(shape.stored_diagonals) + " diagonals x " +
                        std::to_string(padded(rows, o.tile_rows)) + " rows = " + std::to_string(shape.bytes) +
                        " bytes, " + ratio_text(ratio) + "x the CSR's " + std::to_string(shape.csr_bytes) +
                        " (limit " + ratio_text(o.max_bytes_ratio) + "x)");
}

template <class T>
DiaShape dia_shape(const Csr<T>& csr, const DiaOptions& options) {
  return shape_from(csr, used_diagonals(csr), options);
}

template <class T>
Dia<T> csr_to_dia(const Csr<T>& csr, const DiaOptions& o, const FormatLimits& limits) {
  if (o.tile_rows < 0) throw Error("DIA tile_rows must be >= 0 (got " + std::to_string(o.tile_rows) + ")");
  const std::int64_t rows = detail::safe_rows(csr);
  if (o.symmetric && !is_exactly_symmetric(csr))
    throw NotApplicable("symmetric DIA needs a square matrix with a_ij == a_ji for every entry; this " +
                        std::to_string(rows) + " x " + std::to_string(csr.cols) + " matrix is not");
  const std::vector<unsigned char> used = used_diagonals(csr);
  const DiaShape shape = shape_from(csr, used, o);
  check_dia_worthwhile(shape, o, rows);
  detail::check_budget("DIA with " + std::to_string(shape.stored_diagonals) + " diagonals", shape.bytes, limits);

  Dia<T> dia;
  dia.rows = rows;
  dia.cols = csr.cols;
  dia.nnz = csr.nnz();
  dia.symmetric = o.symmetric;
  dia.tile_rows = o.tile_rows;
  // Offset -> stored diagonal number, for the scatter below (-1: not stored).
  std::vector<std::int32_t> slot_of(used.size(), -1);
  for (std::size_t u = 0; u < used.size(); ++u) {
    const std::int64_t d = static_cast<std::int64_t>(u) - (rows - 1);
    if (used[u] && (!o.symmetric || d >= 0)) {
      slot_of[u] = static_cast<std::int32_t>(dia.offsets.size());
      dia.offsets.push_back(d);
    }
  }
  dia.values.assign(static_cast<std::size_t>(dia.diagonals() * dia.padded_rows()), T(0));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = csr.row_ptr[i]; k < csr.row_ptr[i + 1]; ++k) {
      const std::int32_t s = slot_of[static_cast<std::size_t>(csr.col_idx[k] - i + (rows - 1))];
      if (s >= 0) dia.values[dia.index(s, i)] += csr.values[k];
    }
  return dia;
}

template <class T>
Csr<T> dia_to_csr(const Dia<T>& dia) {
  const std::int64_t rows = dia.rows, cols = dia.cols, nd = dia.diagonals();
  // Visits row i's non-zero slots in column order: fn(column, value).
  auto for_row = [&](std::int64_t i, auto&& fn) {
    if (dia.symmetric)  // mirror entries (columns i - d < i) first, largest d first
      for (std::int64_t k = nd - 1; k >= 0; --k) {
        const std::int64_t d = dia.offsets[k];
        if (d > 0 && i - d >= 0) {
          const T v = dia.values[dia.index(k, i - d)];
          if (v != T(0)) fn(i - d, v);
        }
      }
    for (std::int64_t k = 0; k < nd; ++k) {
      const std::int64_t j = i + dia.offsets[k];
      if (j < 0 || j >= cols) continue;
      const T v = dia.values[dia.index(k, i)];
      if (v != T(0)) fn(j, v);
    }
  };
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows), 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) for_row(i, [&](std::int64_t, T) { ++lengths[i]; });
  Csr<T> csr = detail::csr_from_row_lengths<T>(rows, cols, lengths);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t at = csr.row_ptr[i];
    for_row(i, [&](std::int64_t j, T v) {
      csr.col_idx[at] = static_cast<std::int32_t>(j);
      csr.values[at++] = v;
    });
  }
  return csr;
}

#define SPKIT_DIA_INSTANTIATE(T)                                                      \
  template DiaShape dia_shape(const Csr<T>&, const DiaOptions&);                     \
  template Dia<T> csr_to_dia(const Csr<T>&, const DiaOptions&, const FormatLimits&); \
  template Csr<T> dia_to_csr(const Dia<T>&);
SPKIT_DIA_INSTANTIATE(float)
SPKIT_DIA_INSTANTIATE(double)
#undef SPKIT_DIA_INSTANTIATE

}  // namespace spkit
