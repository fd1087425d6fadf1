// spkit spmv: placeholder until it lands.
#include "commands.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

void add_spmv_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("spmv", "Run, time and validate SpMV kernels on one matrix");
  cmd->allow_extras();
  cmd->callback([] { throw Error("spkit spmv is not implemented yet"); });
}

}  // namespace spkit::cli
