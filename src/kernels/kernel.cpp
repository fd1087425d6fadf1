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
std::string_view to_string(Precision p) { return p == Precision::f32 ? "float" : "double"; }

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative wildcard match with backtracking to the last '*'.
  std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++, mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1, t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

void Registry::add(KernelInfo info) {
  if (find(info.name)) throw Error("kernel registered twice: " + info.name);
  kernels_.push_back(std::move(info));
}

const KernelInfo* Registry::find(std::string_view name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return &k;
  return nullptr;
}

bool matches_any(std::string_view patterns, std::string_view name) {
  std::size_t start = 0;
  while (start <= patterns.size()) {
    std::size_t end = patterns.find(',', start);
    if (end == std::string_view::npos) end = patterns.size();
    auto g = patterns.substr(start, end - start);
    if (!g.empty() && (g == "all" || glob_match(g, name))) return true;
    start = end + 1;
  }
  return false;
}

std::vector<const KernelInfo*> Registry::match(std::string_view patterns) const {
  std::vector<const KernelInfo*> out;
  for (const auto& k : kernels_)
    if (matches_any(patterns, k.name)) out.push_back(&k);
  return out;
}

template <class T>
std::vector<double> CpuSpmvPlan<T>::time(const T* x, T* y, const TimingOptions& opts) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < opts.warmup; ++i) this->run(x, y);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(std::max(opts.reps, 1)));
  for (int i = 0; i < std::max(opts.reps, 1); ++i) {
    auto t0 = clock::now();
    this->run(x, y);
    auto t1 = clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

template class CpuSpmvPlan<float>;
template class CpuSpmvPlan<double>;

}  // namespace spkit
