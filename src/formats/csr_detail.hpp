#pragma once
// Internal CSR conversion for the matrix readers (src/io/), which own the COO they convert.
#include "spkit/formats/coo.hpp"
#include "spkit/formats/csr.hpp"

namespace spkit {
// coo_to_csr that may take over coo's column and value arrays; coo's indices must already be checked
// against its dimensions (the reader checked each one), so only their order is looked at.
Csr<double> coo_to_csr_consume(Coo<double>&& coo);
}  // namespace spkit
