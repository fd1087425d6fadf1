#pragma once
// One registry template for every kind of kernel (SpMV: KernelInfo, SpGEMM: SpgemmKernelInfo). A
// registry is a named list filled once, in the order the registration functions run; everything that
// lists or runs kernels (the CLI, the tests, the benchmark, the selectors) iterates it.
#include <string>
#include <string_view>
#include <vector>

#include "spkit/error.hpp"

namespace spkit {

// Glob match with `*` and `?`.
bool glob_match(std::string_view pattern, std::string_view text);
// True when `name` matches one of the comma-separated globs of `patterns` ("all" matches every name).
bool matches_any(std::string_view patterns, std::string_view name);

// Info needs a `std::string name` (stable, dotted: backend.format.variant).
template <class Info>
class RegistryOf {
 public:
  void add(Info info) {  // throws spkit::Error on a duplicate name
    if (find(info.name)) throw Error("kernel registered twice: " + info.name);
    items_.push_back(std::move(info));
  }
  const std::vector<Info>& all() const { return items_; }
  const Info* find(std::string_view name) const {
    for (const Info& k : items_)
      if (k.name == name) return &k;
    return nullptr;
  }
  // Entries whose name matches any of the comma-separated globs; "all" matches every one.
  std::vector<const Info*> match(std::string_view patterns) const {
    std::vector<const Info*> out;
    for (const Info& k : items_)
      if (matches_any(patterns, k.name)) out.push_back(&k);
    return out;
  }

 private:
  std::vector<Info> items_;
};

}  // namespace spkit
