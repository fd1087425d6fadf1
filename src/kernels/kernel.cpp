#include "spkit/kernel.hpp"

#include <algorithm>
#include <chrono>

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
std::vector<double> CpuSpmvPlan<T>::time(const T* x, T* y, const TimingOptions& opts) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < opts.warmup; ++i) this->run(T(1), x, T(0), y, Stream{});
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(std::max(opts.reps, 1)));
  for (int i = 0; i < std::max(opts.reps, 1); ++i) {
    auto t0 = clock::now();
    this->run(T(1), x, T(0), y, Stream{});
    auto t1 = clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

template class CpuSpmvPlan<float>;
template class CpuSpmvPlan<double>;

}  // namespace spkit
