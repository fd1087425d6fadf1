#include "spkit/kernel.hpp"

#include "spkit/error.hpp"

namespace spkit {

std::string_view to_string(Format f) {
  switch (f) {
    case Format::coo: return "coo";
    case Format::csr: return "csr";
    case Format::ell: return "ell";
    case Format::hll: return "hll";
    case Format::hyb: return "hyb";
    case Format::bmsparse: return "bmsparse";
    case Format::sell: return "sell";
    case Format::bsr: return "bsr";
    case Format::rsb: return "rsb";
    case Format::dia: return "dia";
  }
  return "?";
}
std::string_view to_string(Backend b) { return b == Backend::cpu ? "cpu" : "cuda"; }

template class CpuSpmvPlan<float>;
template class CpuSpmvPlan<double>;

}  // namespace spkit
