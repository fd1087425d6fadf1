// spkit gen: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_gen_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("gen", "Generate a synthetic matrix of one family");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit gen is not implemented yet"); });
}

}  // namespace spkit::cli
