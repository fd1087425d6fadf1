// The machine a benchmark ran on: /proc and uname for the CPU, device.hpp for the GPU, and the
// measured bandwidths the report's roofline uses.
#include "spkit/bench/machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <omp.h>

#include "spkit/bench/bandwidth.hpp"
#include "spkit/device.hpp"

namespace spkit::bench {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void read_cpuinfo(MachineInfo& m) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::string physical;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "model name" && m.cpu_model.empty()) m.cpu_model = value;
    if (key == "physical id") physical = value;
    if (key == "core id") cores.emplace(physical, value);
  }
  m.physical_cores = static_cast<int>(cores.size());
}

std::uint64_t read_memtotal() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  while (in >> key) {
    if (key == "MemTotal:") {
      in >> kib;
      return kib * 1024;
    }
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace

MachineInfo collect_machine_info(bool measure_bandwidth, int threads, std::uint64_t array_bytes) {
  MachineInfo m;
  read_cpuinfo(m);
  if (m.cpu_model.empty()) m.cpu_model = "unknown CPU";
  m.logical_cpus = omp_get_num_procs();
  m.memory_bytes = read_memtotal();
  struct utsname u {};
  if (::uname(&u) == 0) m.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  m.gpu_count = gpu_count();
  if (m.gpu_count > 0) {
    try {
      m.gpu_name = gpu_info(0).name;
    } catch (const std::exception&) {
    }
  }
  if (measure_bandwidth) {
    try {
      CpuBandwidthOptions o;
      o.threads = threads;
      o.array_bytes = array_bytes;
      CpuBandwidth b = measure_cpu_bandwidth(o);
      // STREAM's convention (best repetition): the ceiling the roofline draws.
      m.cpu_read_gbs = b.read.best_gbs;
      m.cpu_copy_gbs = b.copy.best_gbs;
      m.cpu_triad_gbs = b.triad.best_gbs;
    } catch (const std::exception&) {
    }
    if (m.gpu_count > 0) {
      try {
        GpuBandwidth g = measure_gpu_bandwidth(0);
        m.gpu_copy_gbs = g.copy_gbs;
        m.gpu_triad_gbs = g.triad_gbs;
        m.gpu_read_gbs = g.read_gbs;
      } catch (const std::exception&) {
      }
    }
  }
  return m;
}

}  // namespace spkit::bench
