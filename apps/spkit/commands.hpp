#pragma once
// One function per subcommand, each in cmd_<name>.cpp; main.cpp wires them into the CLI11 app.
#include <CLI/CLI.hpp>

namespace spkit::cli {

void add_kernels_command(CLI::App& app);

}  // namespace spkit::cli
