// spkit convert: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_convert_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Convert a matrix file (.mtx, .mtx.gz, .spkb) to .mtx or .spkb");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit convert is not implemented yet"); });
}

}  // namespace spkit::cli
