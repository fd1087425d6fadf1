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

template <class T>
void CpuSpmvPlan<T>::run(const T*, T*) {
  throw Error("this kernel implements neither run(x, y) nor run(alpha, x, beta, y, stream)");
}

template <class T>
void CpuSpmvPlan<T>::run(T alpha, const T* x, T beta, T* y, Stream) {
  if (alpha != T(1) || beta != T(0))
    throw NotApplicable("this kernel is not yet converted to alpha/beta (transitional adapter)");
  run(x, y);
}

template class CpuSpmvPlan<float>;
template class CpuSpmvPlan<double>;

}  // namespace spkit
