// spkit bandwidth: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_bandwidth_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bandwidth", "Measure memory bandwidth (STREAM copy, triad, read-only sum)");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit bandwidth is not implemented yet"); });
}

}  // namespace spkit::cli
