// placeholder: the generator lands with its own work.
#include "spkit/gen.hpp"
#include "spkit/error.hpp"
namespace spkit {
Csr<double> generate(const GenOptions& o) { throw Error("not yet: " + o.family); }
}  // namespace spkit
