// spkit bench: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Run the benchmark suite and write results and the report");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit bench is not implemented yet"); });
}

}  // namespace spkit::cli
