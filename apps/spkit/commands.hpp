#pragma once
// One function per subcommand, each in cmd_<name>.cpp; main.cpp wires them into the CLI11 app.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace spkit::cli {

// A command's non-zero result (2: a kernel FAILED validation) as the process's exit code, output flushed
// first; main's catch would turn any exception into 1.
inline void exit_on_failure(int code) {
  if (code == 0) return;
  std::cout.flush();
  std::fflush(stdout);
  std::exit(code);
}

void add_kernels_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_spmv_command(CLI::App& app);
void add_bandwidth_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_spgemm_command(CLI::App& app);
void add_spmm_command(CLI::App& app);

}  // namespace spkit::cli
