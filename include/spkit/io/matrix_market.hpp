#pragma once
// Matrix Market reader and writer (coordinate and array; real, integer, pattern; general,
// symmetric, skew-symmetric). Complex and hermitian are rejected with a clear message.
// The reader cuts the text into chunks at line boundaries and parses them in parallel (OpenMP)
// with std::from_chars (locale-independent). Errors are spkit::ParseError{file, line}.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spkit/formats/coo.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit {

enum class MmFormat { coordinate, array };
enum class MmField { real, integer, pattern };
enum class MmSymmetry { general, symmetric, skew_symmetric };

std::string_view to_string(MmField f);
std::string_view to_string(MmSymmetry s);

struct MmHeader {
  MmFormat format = MmFormat::coordinate;
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t stored_entries = 0;  // entries in the file (before symmetry expansion)
};

struct ReadOptions {
  int threads = 0;              // 0: omp_get_max_threads()
  bool expand_symmetry = true;  // mirror symmetric / skew-symmetric entries
  // Body chunk size for the parallel parse. 0: automatic (>= 1 MiB, about 8 chunks per thread). Tests
  // and the fuzzer set a few bytes to cut tiny inputs into many chunks.
  std::size_t chunk_bytes = 0;
};

// A parsed file: its header and the entries as COO (expanded when asked, duplicates not yet summed).
struct MmMatrix {
  MmHeader header;
  Coo<double> coo;
};

// Parse Matrix Market text held in memory. `source` names it in error messages.
MmMatrix parse_matrix_market(std::string_view text, std::string_view source = "<buffer>",
                             const ReadOptions& opts = {});
// Read a .mtx or .mtx.gz file (gzip detected by its magic bytes, not the name).
MmMatrix read_matrix_market(const std::string& path, const ReadOptions& opts = {});
// Only the banner and size line (cheap: for `info` on huge files and for sniffing).
MmHeader read_matrix_market_header(const std::string& path);

// Matrix Market text held in memory as CSR in double, as load_matrix reads a file: symmetric expanded,
// duplicates summed in file order, columns sorted. A general coordinate file in random order is parsed
// straight into the conversion's row buckets (no COO arrays in between); the result is the same as
// coo_to_csr(parse_matrix_market(text).coo).
Csr<double> parse_matrix_market_csr(std::string_view text, std::string_view source = "<buffer>",
                                    const ReadOptions& opts = {}, MmHeader* header_out = nullptr);
// Loads any supported matrix file (.mtx, .mtx.gz, .spkb) as CSR in double: symmetric expanded,
// duplicates summed, columns sorted. `header_out`, when given, receives what the file declared.
Csr<double> load_matrix(const std::string& path, MmHeader* header_out = nullptr, const ReadOptions& opts = {});

// Write CSR as a general coordinate real file (or integer/pattern when asked). Writes to a
// temporary name and renames on success, so a failure never leaves a partial file.
void write_matrix_market(const std::string& path, const Csr<double>& a, MmField field = MmField::real,
                         const std::string& comment = {});

}  // namespace spkit
