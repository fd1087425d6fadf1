// spkit convert IN OUT: .mtx / .mtx.gz / .spkb in, .mtx or .spkb out (chosen by OUT's extension).
// The output is written under a temporary name and renamed at the end: a failure leaves no file.
#include <chrono>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"

namespace spkit::cli {

namespace {

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Convert a matrix file (.mtx, .mtx.gz, .spkb) to .mtx or .spkb");
  struct Args {
    std::string in, out;
    int threads = 0;
    bool time = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("IN", args->in, "input matrix (.mtx, .mtx.gz or .spkb; detected by content)")->required();
  cmd->add_option("OUT", args->out, "output file: .mtx (Matrix Market, general) or .spkb (binary CSR cache)")->required();
  cmd->add_option("--threads", args->threads, "threads for parsing (0: all)");
  cmd->add_flag("--time", args->time, "print the load and write times to stderr");
  cmd->callback([args] {
    const bool to_spkb = has_suffix(args->out, ".spkb");
    const bool to_mtx = has_suffix(args->out, ".mtx") || args->out == "/dev/null";
    if (!to_spkb && !to_mtx) throw Error("output '" + args->out + "' must end in .mtx or .spkb");
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    ReadOptions opts;
    opts.threads = args->threads;
    MmHeader header;
    const Csr<double> a = load_matrix(args->in, &header, opts);
    const auto t1 = clock::now();
    if (to_spkb) {
      write_spkb(args->out, a, header);
    } else {
      write_matrix_market(args->out, a, header.field == MmField::real ? MmField::real : header.field,
                          "converted by spkit from " + args->in);
    }
    const auto t2 = clock::now();
    if (args->time)
      std::fprintf(stderr, "load %.1f ms, write %.1f ms (%lld x %lld, %lld entries)\n",
                   std::chrono::duration<double, std::milli>(t1 - t0).count(),
                   std::chrono::duration<double, std::milli>(t2 - t1).count(), static_cast<long long>(a.rows),
                   static_cast<long long>(a.cols), static_cast<long long>(a.nnz()));
  });
}

}  // namespace spkit::cli
