#pragma once
// Whether a CSR matrix is diagonal-structured, as the diagonal SpGEMM (dia.cpp) needs it: at most a few
// distinct diagonals (offsets d = column - row), each stored on one contiguous run of rows, so that a row
// inside every run holds exactly those diagonals in offset order and a product's pattern follows from the
// runs alone. Found in O(rows) for rows whose offsets are consecutive (row i stores columns i + f .. i + l,
// read from its first and last entry: banded matrices), O(entries) for other rows; the scan stops at the
// first diagonal too many or the first gap, so refusing a matrix that is not diagonal is cheap.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit::detail {

// Diagonal `offset` (column - row) stored on rows [first, last) and on no other row.
struct DiagonalRun {
  std::int64_t offset, first, last;
};

// The diagonals of a matrix, ascending offset; `why` says why it is not diagonal-structured (empty when it is).
struct DiagonalStructure {
  std::vector<DiagonalRun> runs;
  std::string why;
  bool ok() const { return why.empty(); }
  // Rows that hold every diagonal: [full_first, full_last) (empty when full_first >= full_last).
  std::int64_t full_first() const {
    std::int64_t f = 0;
    for (const DiagonalRun& r : runs) f = std::max(f, r.first);
    return f;
  }
  std::int64_t full_last() const {
    std::int64_t l = INT64_MAX;
    for (const DiagonalRun& r : runs) l = std::min(l, r.last);
    return runs.empty() ? 0 : l;
  }
};

namespace dia_detail {

// Appends rows [s, e), which hold the diagonals offsets(), to `runs` (sorted by offset); false with `why`
// set on a gap (a diagonal stored again after rows without it) or on more than `max_diagonals` diagonals.
template <class Offsets>
bool extend_runs(std::vector<DiagonalRun>& runs, std::int64_t s, std::int64_t e, const Offsets& offsets,
                 std::int64_t count, std::int64_t max_diagonals, std::string& why) {
  for (std::int64_t t = 0; t < count; ++t) {
    const std::int64_t d = offsets(t);
    auto it = std::lower_bound(runs.begin(), runs.end(), d,
                               [](const DiagonalRun& r, std::int64_t x) { return r.offset < x; });
    if (it != runs.end() && it->offset == d) {
      if (it->last != s) {
        why = "diagonal " + std::to_string(d) + " has a gap (stored on rows " + std::to_string(it->first) + "-" +
              std::to_string(it->last - 1) + ", then again from row " + std::to_string(s) + ")";
        return false;
      }
      it->last = e;
    } else {
      runs.insert(it, DiagonalRun{d, s, e});
      if (static_cast<std::int64_t>(runs.size()) > max_diagonals) {
        why = "more than " + std::to_string(max_diagonals) + " diagonals";
        return false;
      }
    }
  }
  return true;
}

// The runs of rows [r0, r1) alone. Consecutive rows with the same offsets form a segment, handed to
// extend_runs once; a row is compared with its segment by its first and last entry when its offsets are
// consecutive, entry by entry otherwise.
template <class T>
DiagonalStructure scan_rows(const Csr<T>& m, std::int64_t r0, std::int64_t r1, std::int64_t max_diagonals) {
  DiagonalStructure out;
  const std::int64_t* ptr = m.row_ptr.data();
  const std::int32_t* col = m.col_idx.data();
  bool range = true;                 // the segment's offsets: [lo, hi] when range, else `list`
  std::int64_t lo = 0, hi = -1;      // (empty rows: the empty range)
  std::vector<std::int64_t> list;
  std::int64_t start = r0;
  const auto close = [&](std::int64_t end) {
    if (end == start) return true;
    if (range) {
      if (hi - lo + 1 > max_diagonals) {
        out.why = "a row holds more than " + std::to_string(max_diagonals) + " diagonals";
        return false;
      }
      return extend_runs(out.runs, start, end, [&](std::int64_t t) { return lo + t; }, hi - lo + 1, max_diagonals,
                         out.why);
    }
    return extend_runs(out.runs, start, end, [&](std::int64_t t) { return list[static_cast<std::size_t>(t)]; },
                       static_cast<std::int64_t>(list.size()), max_diagonals, out.why);
  };
  for (std::int64_t i = r0; i < r1; ++i) {
    const std::int64_t p0 = ptr[i], len = ptr[i + 1] - p0;
    const std::int64_t f = len > 0 ? col[p0] - i : 0, l = len > 0 ? col[p0 + len - 1] - i : -1;
    if (l - f + 1 == len) {  // consecutive offsets f..l (or an empty row)
      if (range && f == lo && l == hi) continue;
      if (!close(i)) return out;
      range = true, lo = f, hi = l, start = i;
      continue;
    }
    if (!range && len == static_cast<std::int64_t>(list.size())) {
      bool same = true;
      for (std::int64_t t = 0; t < len && same; ++t) same = col[p0 + t] - i == list[static_cast<std::size_t>(t)];
      if (same) continue;
    }
    if (!close(i)) return out;
    if (len > max_diagonals) {
      out.why = "row " + std::to_string(i) + " holds more than " + std::to_string(max_diagonals) + " diagonals";
      return out;
    }
    range = false, start = i;
    list.resize(static_cast<std::size_t>(len));
    for (std::int64_t t = 0; t < len; ++t) list[static_cast<std::size_t>(t)] = col[p0 + t] - i;
  }
  close(r1);
  return out;
}

}  // namespace dia_detail

// The diagonal runs of m.
template <class T>
DiagonalStructure diagonal_structure(const Csr<T>& m, std::int64_t max_diagonals) {
  return dia_detail::scan_rows(m, 0, m.rows, max_diagonals);
}

}  // namespace spkit::detail
