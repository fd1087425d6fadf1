#pragma once
// What machine a benchmark ran on: CPU model and cores, GPU, and measured memory bandwidths
// (the roofline the report draws GFLOPS against).
#include <cstdint>
#include <string>

namespace spkit::bench {

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
  // the last-level data cache of the CPUs from sysfs, summed over its distinct instances (else
  // sysconf's figure); llc_source says what each source reported, so a VM's odd figure shows.
  std::uint64_t llc_bytes = 0;     // 0: unknown
  std::string llc_source;
  std::uint64_t gpu_l2_bytes = 0;  // device 0, 0 without a GPU
};

// The last-level cache as read from the machine (sysfs, sysconf): fills llc_bytes and llc_source.
void read_llc(MachineInfo& m);

// Reads the machine description; with `measure_bandwidth` also measures the CPU memory bandwidth
// (bench/bandwidth.hpp) and, when a GPU is usable, the GPU's (measure_gpu_bandwidth). A failed
// measurement leaves 0 and never throws. `threads` and `array_bytes` go to measure_cpu_bandwidth
// (0: its defaults).
MachineInfo collect_machine_info(bool measure_bandwidth, int threads = 0, std::uint64_t array_bytes = 0);

}  // namespace spkit::bench
