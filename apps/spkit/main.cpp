// spkit: the command-line front end. Every subcommand throws spkit::Error on bad input; this is the
// one place that catches, prints one line and chooses the exit code.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "spkit/config.hpp"
#include "spkit/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"spkit: sparse matrix-vector products in many formats on CPU and GPU"};
  app.set_version_flag("--version", SPKIT_VERSION);
  app.require_subcommand(1);
  spkit::cli::add_info_command(app);
  spkit::cli::add_convert_command(app);
  spkit::cli::add_gen_command(app);
  spkit::cli::add_spmv_command(app);
  spkit::cli::add_bandwidth_command(app);
  spkit::cli::add_bench_command(app);
  spkit::cli::add_report_command(app);
  spkit::cli::add_compare_command(app);
  spkit::cli::add_kernels_command(app);
  spkit::cli::add_spgemm_command(app);
  spkit::cli::add_spmm_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const spkit::Error& e) {
    std::fprintf(stderr, "spkit: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spkit: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
