// spkit kernels [--json]: the registry, one line per kernel.
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "spkit/kernel.hpp"
#include "spkit/spgemm.hpp"
#include "spkit/spmm.hpp"

namespace spkit::cli {
namespace {

// One table row of any registry's entry (SpMV, SpGEMM, SpMM): name, format, backend, kind, description.
template <class Info>
void print_row(const Info& k, const std::string& suffix = "") {
  std::printf("%-32s %-9s %-7s %-8s %s%s\n", k.name.c_str(), std::string(to_string(k.format)).c_str(),
              std::string(to_string(k.backend)).c_str(),
              k.comparison ? "baseline" : k.backend == Backend::cuda ? "gpu" : (k.parallel ? "openmp" : "serial"),
              k.description.c_str(), suffix.c_str());
}

}  // namespace

void add_kernels_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("kernels", "List the registered kernels");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "JSON array instead of a table");
  cmd->callback([json] {
    const auto& all = registry().all();
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& k : all)
        out.push_back({{"name", k.name}, {"format", std::string(to_string(k.format))},
                       {"backend", std::string(to_string(k.backend))}, {"parallel", k.parallel},
                       {"comparison", k.comparison}, {"description", k.description}});
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::printf("%-32s %-9s %-7s %-8s %s\n", "kernel", "format", "backend", "kind", "description");
    for (const auto& k : all) print_row(k);
    // The SpGEMM and SpMM registries, in the table only: the JSON stays the SpMV list.
    std::printf("\nSpGEMM kernels (spkit spgemm --variant NAME):\n");
    for (const auto& k : spgemm_registry().all()) print_row(k, k.arithmetic.empty() ? "" : " [" + k.arithmetic + "]");
    std::printf("\nSpMM kernels (spkit spmm --kernel NAME):\n");
    for (const auto& k : spmm_registry().all())
      print_row(k, std::string(" [") + (k.row_major && k.col_major ? "row- and column-major"
                                        : k.row_major           ? "row-major"
                                                                : "column-major") + "]");
  });
}

}  // namespace spkit::cli
