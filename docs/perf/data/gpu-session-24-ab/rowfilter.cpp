// rowfilter IN.spkb OUT.spkb LO HI: keep rows with LO <= length <= HI, empty the others (same shape).
#include <spkit/io/spkb.hpp>
#include <spkit/formats/csr.hpp>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  auto a = spkit::read_spkb(argv[1]);
  const long lo = std::atol(argv[3]), hi = std::atol(argv[4]);
  spkit::Csr<double> b;
  b.rows = a.rows; b.cols = a.cols; b.row_ptr.assign(a.rows + 1, 0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const auto s = a.row_ptr[i], e = a.row_ptr[i + 1];
    if (e - s >= lo && e - s <= hi)
      for (auto k = s; k < e; ++k) { b.col_idx.push_back(a.col_idx[k]); b.values.push_back(a.values[k]); }
    b.row_ptr[i + 1] = static_cast<std::int64_t>(b.col_idx.size());
  }
  spkit::write_spkb(argv[2], b);
  std::printf("%s: rows %ld..%ld: %zu nnz\n", argv[2], lo, hi, b.col_idx.size());
}
