// spkit compare: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "Compare two results.json files cell by cell");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit compare is not implemented yet"); });
}

}  // namespace spkit::cli
