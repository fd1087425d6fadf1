// spkit report: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("report", "Regenerate the report from a saved results.json");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit report is not implemented yet"); });
}

}  // namespace spkit::cli
