// spkit report results.json [--out DIR]: regenerates report.html, report.md and the plots from saved
// results with scripts/report.py (matplotlib).
#include <filesystem>
#include <memory>
#include <string>

#include "commands.hpp"
#include "spkit/harness/report.hpp"
#include "spkit/harness/results.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

namespace fs = std::filesystem;

void add_report_command(CLI::App& app) {
  auto results = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("report", "Regenerate the report (HTML, Markdown, plots) from a saved results.json");
  cmd->add_option("results", *results, "results.json written by spkit bench")->required();
  cmd->add_option("--out", *out, "Output folder (default: the folder of results.json)");
  cmd->callback([results, out] {
    harness::read_results(*results);  // a clear error for a missing or malformed file, before Python
    std::string dir = out->empty() ? fs::path(*results).parent_path().string() : *out;
    if (dir.empty()) dir = ".";
    std::error_code ec;
    auto self = fs::read_symlink("/proc/self/exe", ec).parent_path().string();
    std::string script = harness::find_report_script({self + "/../share/spkit/report.py",
                                                    std::string(SPKIT_SOURCE_DIR) + "/scripts/report.py"});
    if (script.empty()) throw Error("scripts/report.py not found (set SPKIT_REPORT_SCRIPT to its path)");
    int rc = harness::run_report_script(script, *results, dir);
    if (rc != 0) throw Error("the report script " + script + " failed (exit " + std::to_string(rc) + ")");
  });
}

}  // namespace spkit::cli
