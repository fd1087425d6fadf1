// spkit compare OLD.json NEW.json: per cell (matrix, kernel, precision, threads) the ratio of median
// times new/old, geometric means per kernel, and exit status 1 when a cell got slower than the
// threshold or a kernel stopped validating (for CI and before/after an optimisation).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "spkit/harness/results.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

namespace {

struct CompareCli {
  std::string old_path, new_path;
  double threshold = 0.10;
  bool json = false;
  bool all_cells = false;
};

std::string ratio_text(double r) { return r > 0 ? fmt::format("{:.3f}", r) : "-"; }

void run_compare(const CompareCli& cli) {
  if (!(cli.threshold >= 0)) throw Error("--threshold must be >= 0 (0.10 means 10% slower)");
  auto old_results = harness::read_results(cli.old_path);
  auto new_results = harness::read_results(cli.new_path);
  auto c = harness::compare_results(old_results, new_results, cli.threshold);
  if (cli.json) {
    std::fputs(harness::compare_to_json(c).c_str(), stdout);
  } else {
    std::printf("compare: %s (old) -> %s (new), threshold %.0f%%\n", cli.old_path.c_str(), cli.new_path.c_str(),
                100 * cli.threshold);
    std::printf("ratio = new / old median time: < 1 faster, > 1 slower\n\n");
    std::printf("%-40s %6s %8s %7s %6s\n", "kernel", "cells", "geomean", "slower", "lost");
    for (const auto& k : c.kernels)
      std::printf("%-40s %6d %8s %7d %6d\n", k.kernel.c_str(), k.cells, ratio_text(k.geomean_ratio).c_str(), k.slower,
                  k.lost_validation);
    std::printf("%-40s %6zu %8s %7d %6d\n", "all", c.cells.size(), ratio_text(c.geomean_ratio).c_str(), c.slower,
                c.lost_validation);
    bool header = false;
    for (const auto& x : c.cells) {
      if (!(cli.all_cells || x.slower || x.lost_validation)) continue;
      if (!header) {
        std::printf("\n%-16s %-36s %-6s %3s %10s %10s %7s  %s\n", "matrix", "kernel", "prec", "thr", "old ms", "new ms",
                    "ratio", "");
        header = true;
      }
      std::string flag = x.lost_validation ? "STOPPED VALIDATING" : x.slower ? "SLOWER" : "";
      std::printf("%-16s %-36s %-6s %3d %10.4f %10.4f %7s  %s\n", x.matrix.c_str(), x.kernel.c_str(),
                  x.precision.c_str(), x.threads, x.old_ms, x.new_ms, ratio_text(x.ratio).c_str(), flag.c_str());
    }
    if (c.only_old || c.only_new)
      std::printf("\n%d cells only in the old file, %d only in the new (not compared)\n", c.only_old, c.only_new);
    if (c.cells.empty()) std::printf("\nno cell in common: nothing compared\n");
    std::printf("\n%s\n", c.regression()
                              ? fmt::format("REGRESSION: {} cells slower than {:.0f}%, {} stopped validating", c.slower,
                                            100 * cli.threshold, c.lost_validation).c_str()
                              : "OK: no cell slower than the threshold, none stopped validating");
  }
  std::fflush(stdout);
  if (c.regression()) std::exit(1);
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto cli = std::make_shared<CompareCli>();
  auto* cmd = app.add_subcommand("compare", "Compare two results.json files cell by cell (exit 1 on a regression)");
  cmd->add_option("old", cli->old_path, "Baseline results.json")->required();
  cmd->add_option("new", cli->new_path, "New results.json")->required();
  cmd->add_option("--threshold", cli->threshold, "Relative slowdown that counts as a regression (0.10 = 10%)")
      ->capture_default_str();
  cmd->add_flag("--json", cli->json, "Machine-readable output");
  cmd->add_flag("--all", cli->all_cells, "List every cell, not only the regressions");
  cmd->callback([cli] { run_compare(*cli); });
}

}  // namespace spkit::cli
