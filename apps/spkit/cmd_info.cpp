// spkit info: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Matrix statistics: sizes, row lengths, padding, blocks, bytes per format");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit info is not implemented yet"); });
}

}  // namespace spkit::cli
