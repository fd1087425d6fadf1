// placeholder: the Matrix Market reader lands with the I/O work.
#include "spkit/io/matrix_market.hpp"
#include "spkit/error.hpp"
namespace spkit {
Csr<double> load_matrix(const std::string& path, MmHeader*, const ReadOptions&) { throw Error("not yet: " + path); }
}  // namespace spkit
