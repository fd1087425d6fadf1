// spkit gen FAMILY [--n N | --nnz TARGET] [options] -o OUT: writes a synthetic matrix as .mtx or .spkb.
#include <fmt/core.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "spkit/error.hpp"
#include "spkit/gen.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"

namespace spkit::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void add_gen_command(CLI::App& app) {
  std::string families;
  for (const auto& f : generator_families()) families += (families.empty() ? "" : ", ") + f;
  auto* cmd = app.add_subcommand("gen", "Generate a synthetic matrix of one family (" + families + ")");
  struct Args {
    GenOptions opts;
    std::int64_t target_nnz = 0;
    int threads = 0;
    std::string out;
  };
  auto args = std::make_shared<Args>();
  GenOptions& o = args->opts;
  cmd->add_option("FAMILY", o.family, families)->required();
  auto* n_opt = cmd->add_option("--n", o.n, "grid side (lap2d, lap3d, fem, road, fem_mesh, road_planar) or rows (random, powerlaw, circuit, banded, rmat, geometric)");
  auto* nnz_opt = cmd->add_option("--nnz", args->target_nnz, "choose n to get about this many non-zeros");
  n_opt->excludes(nnz_opt);
  cmd->add_option("--points", o.points, "lap3d stencil: 7 or 27")->capture_default_str();
  cmd->add_option("--dof", o.dof, "fem, fem_mesh: degrees of freedom per node (dense dof x dof blocks)")->capture_default_str();
  cmd->add_option("--per-row", o.per_row, "random: non-zeros per row; powerlaw, circuit: mean; geometric: mean neighbours")
      ->capture_default_str();
  cmd->add_option("--dims", o.dims, "geometric, fem_mesh: 2 or 3 (0: geometric 2, fem_mesh 3)")->capture_default_str();
  cmd->add_option("--element-order", o.element_order, "fem_mesh: 1 (P1) or 2 (P2) elements")->capture_default_str();
  cmd->add_option("--ordering", o.ordering, "node numbering: geometric, fem_mesh sfc|random (sfc); road_planar bfs|random (bfs)");
  cmd->add_option("--edge-factor", o.edge_factor, "rmat: edges drawn per vertex")->capture_default_str();
  cmd->add_option("--rmat-a", o.rmat_a, "rmat: probability of the top-left quadrant")->capture_default_str();
  cmd->add_option("--rmat-b", o.rmat_b, "rmat: probability of the top-right quadrant")->capture_default_str();
  cmd->add_option("--rmat-c", o.rmat_c, "rmat: probability of the bottom-left quadrant (d = 1 - a - b - c)")
      ->capture_default_str();
  cmd->add_option("--cols", o.cols, "random: columns (0: square)")->capture_default_str();
  cmd->add_option("--bandwidth", o.bandwidth, "banded: half bandwidth")->capture_default_str();
  cmd->add_option("--zipf", o.zipf_s, "powerlaw: exponent of the row-length tail")->capture_default_str();
  cmd->add_option("--seed", o.seed, "random seed (the matrix depends on it, not on --threads)")->capture_default_str();
  cmd->add_option("--threads", args->threads, "OpenMP threads (0: all)")->capture_default_str();
  cmd->add_option("-o,--output", args->out, "output file: .mtx (Matrix Market) or .spkb (binary CSR)")->required();

  cmd->callback([args, n_opt, nnz_opt] {
    GenOptions& o = args->opts;
    const bool to_mtx = ends_with(args->out, ".mtx"), to_spkb = ends_with(args->out, ".spkb");
    if (!to_mtx && !to_spkb) throw Error("output '" + args->out + "' must end in .mtx or .spkb");
    if (args->threads < 0) throw Error("--threads must be >= 0 (got " + std::to_string(args->threads) + ")");
    if (args->threads > 0) omp_set_num_threads(args->threads);
    if (nnz_opt->count() > 0) {
      if (args->target_nnz < 1) throw Error("--nnz must be at least 1");
      o.n = size_for_nnz(o.family, args->target_nnz, o);
    } else if (n_opt->count() == 0) {
      throw Error("gen: give the size with --n N or --nnz TARGET");
    }
    // Validates the family and options before anything is written.
    const std::int64_t rows = generated_rows(o);
    // Large sizes report on stderr: a running percentage on a terminal, a summary line always.
    const bool show_progress = rows >= (1 << 20);
    int last_percent = -1;
    GenProgress progress;
    if (show_progress && isatty(STDERR_FILENO))
      progress = [&last_percent](double fraction) {
        int percent = static_cast<int>(fraction * 100);
        if (percent / 10 != last_percent / 10) {
          std::fprintf(stderr, "\rgen: %3d%%", percent);
          std::fflush(stderr);
          last_percent = percent;
        }
      };
    auto t0 = std::chrono::steady_clock::now();
    Csr<double> a = generate(o, progress);
    const double gen_s = seconds_since(t0);
    if (show_progress)
      std::fprintf(stderr, "%sgen: %lld x %lld, %lld non-zeros in %.2f s; writing %s\n",
                   progress ? "\r" : "", static_cast<long long>(a.rows), static_cast<long long>(a.cols), static_cast<long long>(a.nnz()),
                   gen_s, args->out.c_str());
    auto t1 = std::chrono::steady_clock::now();
    // Every option, so the file says how to make it again.
    std::string comment =
        fmt::format("generated by spkit gen {} --n {} --points {} --dof {} --per-row {} --cols {} --bandwidth {} "
                    "--zipf {} --dims {} --element-order {} --edge-factor {} --rmat-a {} --rmat-b {} --rmat-c {}{} --seed {}",
                    o.family, o.n, o.points, o.dof, o.per_row, o.cols, o.bandwidth, o.zipf_s, o.dims, o.element_order,
                    o.edge_factor, o.rmat_a, o.rmat_b, o.rmat_c, o.ordering.empty() ? "" : " --ordering " + o.ordering,
                    o.seed);
    if (to_mtx) {
      write_matrix_market(args->out, a, MmField::real, comment);
    } else {
      MmHeader declared;
      declared.rows = a.rows;
      declared.cols = a.cols;
      declared.stored_entries = a.nnz();
      write_spkb(args->out, a, declared);
    }
    fmt::print("{}: {} x {}, {} non-zeros ({} n={} seed={}), generated in {:.3f} s, written in {:.3f} s\n",
               args->out, a.rows, a.cols, a.nnz(), o.family, o.n, o.seed, gen_s, seconds_since(t1));
  });
}

}  // namespace spkit::cli
