#pragma once
// What machine a benchmark ran on: CPU model and cores, GPU, and measured memory bandwidths
// (the roofline the report draws GFLOPS against).
#include <cstdint>
#include <string>

#include "spkit/harness/cache_sweep.hpp"

namespace spkit::harness {

struct MachineInfo {
  std::string cpu_model;           // /proc/cpuinfo "model name"
  int logical_cpus = 0;            // what OpenMP may use
  int physical_cores = 0;          // distinct (package, core) pairs; 0 when unknown
  std::uint64_t memory_bytes = 0;  // MemTotal
  std::string os;                  // uname: sysname release machine
  std::string hostname;
  int gpu_count = 0;
  std::string gpu_name;            // device 0, empty without a GPU
  double cpu_read_gbs = 0, cpu_copy_gbs = 0, cpu_triad_gbs = 0;  // 0: not measured
  double gpu_read_gbs = 0, gpu_copy_gbs = 0, gpu_triad_gbs = 0;  // 0: not measured / no GPU
  // Caches, for the suite's sizes and the report's "fits in cache" marks. llc_bytes is what is used:
  // with a bandwidth sweep, a quarter of the working set from which copy bandwidth stays on its
  // memory plateau (so that "4x the cache" is where the measurement says memory begins); without, the
  // last-level data cache of the CPUs from sysfs, summed over its distinct instances (else sysconf's
  // figure). llc_source says what each source reported, so a VM's odd figure shows.
  std::uint64_t llc_bytes = 0;     // 0: unknown
  std::string llc_source;
  std::uint64_t gpu_l2_bytes = 0;  // device 0, 0 without a GPU
  CacheSweep cache_sweep;          // not measured: out_of_cache_bytes 0
};

// The last-level cache as read from the machine (sysfs, sysconf): fills llc_bytes and llc_source.
void read_llc(MachineInfo& m);

// Takes the sweep's figure as the cache size used (llc_bytes = its effective_cache_bytes) and says so
// in llc_source; a sweep that was not measured changes nothing.
void use_cache_sweep(MachineInfo& m, const CacheSweep& sweep);

// Reads the machine description; with `measure_bandwidth` also sweeps bandwidth over working sets
// (cache_sweep.hpp, then use_cache_sweep), measures the CPU memory bandwidth past the caches
// (bandwidth.hpp) and, when a GPU is usable, the GPU's (measure_gpu_bandwidth). A failed measurement
// leaves 0 and never throws. `threads` and `array_bytes` go to measure_cpu_bandwidth (array_bytes 0:
// the sweep's out-of-cache working set, at least 128 MiB; without a sweep, its default).
MachineInfo collect_machine_info(bool measure_bandwidth, int threads = 0, std::uint64_t array_bytes = 0);

}  // namespace spkit::harness
