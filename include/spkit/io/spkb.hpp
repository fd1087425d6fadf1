#pragma once
// .spkb: spkit's binary CSR cache (documented in docs/SPKB.md). A fixed header (magic "SPKB",
// version, value type, rows, cols, nnz, field, symmetry, checksum) followed by row_ptr (int64),
// col_idx (int32) and values. Loads at close to disk speed; corrupted or truncated files are refused.
#include <string>

#include "spkit/formats/csr.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit {

void write_spkb(const std::string& path, const Csr<double>& a, const MmHeader& declared = {});
Csr<double> read_spkb(const std::string& path, MmHeader* header_out = nullptr);
bool is_spkb_file(const std::string& path);  // by magic bytes

}  // namespace spkit
