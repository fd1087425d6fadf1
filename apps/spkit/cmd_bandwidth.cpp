// spkit bandwidth [--device cpu|gpu|all] [--size-mb M] [--threads N] [--reps R] [--json]
// STREAM copy, triad and a read-only sum; every figure also as a fraction of the read bandwidth,
// the one that bounds SpMV (it mostly reads).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "spkit/harness/bandwidth.hpp"
#include "spkit/device.hpp"
#include "spkit/error.hpp"

namespace spkit::cli {

using namespace spkit::harness;  // the measuring runner and its options

namespace {

struct BandwidthArgs {
  std::string device = "all";
  double size_mb = 0;
  int threads = 0;
  int reps = 10;
  bool json = false;
};

void run_bandwidth(const BandwidthArgs& args) {
  const bool want_cpu = args.device == "cpu" || args.device == "all";
  const bool want_gpu = args.device == "gpu" || args.device == "all";
  nlohmann::json out = nlohmann::json::object();

  if (want_cpu) {
    CpuBandwidthOptions o;
    o.array_bytes = static_cast<std::uint64_t>(args.size_mb * 1024.0 * 1024.0);
    o.threads = args.threads;
    o.reps = args.reps;
    const CpuBandwidth bw = measure_cpu_bandwidth(o);
    const double read = bw.read.best_gbs;
    auto frac = [&](double v) { return read > 0 ? v / read : 0.0; };
    if (args.json) {
      auto fig = [&](const StreamFigure& f) {
        return nlohmann::json{{"best_gbs", f.best_gbs}, {"median_gbs", f.median_gbs},
                              {"fraction_of_read", frac(f.best_gbs)}};
      };
      out["cpu"] = {{"threads", bw.threads},     {"array_bytes", bw.array_bytes},
                    {"llc_bytes", bw.llc_bytes}, {"reps", args.reps},
                    {"copy", fig(bw.copy)},      {"triad", fig(bw.triad)},
                    {"read", fig(bw.read)}};
    } else {
      std::printf("CPU: %d threads, 3 arrays of %.0f MiB each (last-level cache %.0f MiB), best of %d\n",
                  bw.threads, static_cast<double>(bw.array_bytes) / (1 << 20),
                  static_cast<double>(bw.llc_bytes) / (1 << 20), args.reps);
      std::printf("  %-10s %10s %12s %10s\n", "kernel", "best GB/s", "median GB/s", "of read");
      auto row = [&](const char* name, const StreamFigure& f) {
        std::printf("  %-10s %10.2f %12.2f %9.0f%%\n", name, f.best_gbs, f.median_gbs, 100 * frac(f.best_gbs));
      };
      row("read(sum)", bw.read);
      row("copy", bw.copy);
      row("triad", bw.triad);
      std::printf("  (bytes read + written; copy 16 B, triad 24 B, sum 8 B per element)\n");
    }
  }

  if (want_gpu) {
    if (gpu_count() == 0) {
      const char* why = no_gpu_reason();
      // Asked for the GPU alone: an error (exit 1). As part of "all": a line saying why it is missing.
      if (args.device == "gpu") throw Error(std::string("no GPU bandwidth: ") + why);
      if (args.json)
        out["gpu"] = {{"available", false}, {"reason", why}};
      else
        std::printf("GPU: not measured: %s\n", why);
    } else {
      const GpuInfo info = gpu_info();
      const GpuBandwidth g = measure_gpu_bandwidth();
      auto frac = [&](double v) { return g.read_gbs > 0 ? v / g.read_gbs : 0.0; };
      if (args.json) {
        out["gpu"] = {{"available", true},
                      {"name", info.name},
                      {"copy_gbs", g.copy_gbs},
                      {"triad_gbs", g.triad_gbs},
                      {"read_gbs", g.read_gbs},
                      {"copy_fraction_of_read", frac(g.copy_gbs)},
                      {"triad_fraction_of_read", frac(g.triad_gbs)}};
      } else {
        std::printf("GPU: %s (L2 %.0f MB)\n", info.name.c_str(), static_cast<double>(info.l2_bytes) / 1e6);
        std::printf("  %-10s %10s %10s\n", "kernel", "GB/s", "of read");
        std::printf("  %-10s %10.1f %9.0f%%\n", "read(sum)", g.read_gbs, 100 * frac(g.read_gbs));
        std::printf("  %-10s %10.1f %9.0f%%\n", "copy", g.copy_gbs, 100 * frac(g.copy_gbs));
        std::printf("  %-10s %10.1f %9.0f%%\n", "triad", g.triad_gbs, 100 * frac(g.triad_gbs));
      }
    }
  }
  if (args.json) std::cout << out.dump(2) << "\n";
}

}  // namespace

void add_bandwidth_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bandwidth", "Measure memory bandwidth (STREAM copy, triad, read-only sum)");
  auto args = std::make_shared<BandwidthArgs>();
  cmd->add_option("--device", args->device, "cpu, gpu or all")
      ->check(CLI::IsMember({"cpu", "gpu", "all"}))
      ->capture_default_str();
  cmd->add_option("--size-mb", args->size_mb, "MiB per array (default: max(4 x last-level cache, 1 GiB))")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", args->threads, "OpenMP threads (default: all)")->check(CLI::PositiveNumber);
  cmd->add_option("--reps", args->reps, "timed repetitions")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_flag("--json", args->json, "JSON instead of a table");
  cmd->callback([args] { run_bandwidth(*args); });
}

}  // namespace spkit::cli
