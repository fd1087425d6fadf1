// The machine a benchmark ran on: /proc and uname for the CPU, device.hpp for the GPU, and the
// measured bandwidths the report's roofline uses.
#include "spkit/harness/machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <omp.h>

#include "spkit/harness/bandwidth.hpp"
#include "spkit/device.hpp"
#include "platform/memory.hpp"

namespace spkit::harness {

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

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return trim(line);
}

// "32768K" / "1M" / "512" (sysfs cache size) in bytes; 0 when unreadable.
std::uint64_t parse_cache_size(const std::string& s) {
  if (s.empty()) return 0;
  std::uint64_t v = 0;
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') v = v * 10 + static_cast<std::uint64_t>(s[i++] - '0');
  if (i < s.size() && (s[i] == 'K' || s[i] == 'k')) v <<= 10;
  if (i < s.size() && (s[i] == 'M' || s[i] == 'm')) v <<= 20;
  return v;
}

std::string mib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

void read_llc(MachineInfo& m) {
  // sysfs: per CPU, the highest-level data or unified cache; distinct instances (by the CPUs sharing
  // them) are summed, since a parallel run spreads its working set over all of them.
  int level = 0;
  std::map<std::string, std::uint64_t> instances;  // shared_cpu_list -> size
  const int cpus = std::max(1, omp_get_num_procs());
  for (int cpu = 0; cpu < cpus; ++cpu)
    for (int index = 0; index < 8; ++index) {
      const std::string dir =
          "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index) + "/";
      const std::string type = read_line(dir + "type");
      if (type.empty()) break;
      if (type == "Instruction") continue;
      const int l = std::atoi(read_line(dir + "level").c_str());
      const std::uint64_t size = parse_cache_size(read_line(dir + "size"));
      if (size == 0 || l < level) continue;
      if (l > level) level = l, instances.clear();
      instances[read_line(dir + "shared_cpu_list")] = size;
    }
  std::uint64_t sysfs = 0;
  for (const auto& [cpus_sharing, size] : instances) sysfs += size;
  long sc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
  sc = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  std::string source;
  if (sysfs > 0) {
    source = "sysfs: L" + std::to_string(level) + " " + mib(sysfs / instances.size()) + " x " +
             std::to_string(instances.size()) + " instance(s)";
  } else {
    source = "sysfs: no cache information";
  }
  source += sc > 0 ? "; sysconf(_SC_LEVEL3_CACHE_SIZE): " + mib(static_cast<std::uint64_t>(sc)) : "; sysconf: none";
  m.llc_bytes = sysfs > 0 ? sysfs : (sc > 0 ? static_cast<std::uint64_t>(sc) : 0);
  source += m.llc_bytes ? "; used: " + mib(m.llc_bytes) + (sysfs > 0 ? " (sysfs)" : " (sysconf)") : "; used: unknown";
  m.llc_source = source;
}

void use_cache_sweep(MachineInfo& m, const CacheSweep& sweep) {
  if (!sweep.measured()) return;
  m.cache_sweep = sweep;
  m.llc_bytes = sweep.effective_cache_bytes();
  const std::size_t used = m.llc_source.find("; used:");
  if (used != std::string::npos) m.llc_source.erase(used);
  m.llc_source += "; used: " + mib(m.llc_bytes) + " (a quarter of where the " + sweep.summary() + ")";
}

MachineInfo collect_machine_info(bool measure_bandwidth, int threads, std::uint64_t array_bytes) {
  MachineInfo m;
  read_cpuinfo(m);
  if (m.cpu_model.empty()) m.cpu_model = "unknown CPU";
  m.logical_cpus = omp_get_num_procs();
  m.memory_bytes = total_memory_bytes();
  struct utsname u {};
  if (::uname(&u) == 0) m.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) m.hostname = host;
  read_llc(m);
  m.gpu_count = gpu_count();
  if (m.gpu_count > 0) {
    try {
      m.gpu_name = gpu_info(0).name;
      m.gpu_l2_bytes = gpu_info(0).l2_bytes;
    } catch (const std::exception&) {
    }
  }
  if (measure_bandwidth) {
    try {
      const CacheSweep sweep = measure_cache_sweep();
      if (sweep.saw_caches()) use_cache_sweep(m, sweep);
      else m.llc_source += "; " + sweep.summary() + ": no cache seen, a disturbed measurement, not used";
    } catch (const std::exception&) {
    }
    try {
      CpuBandwidthOptions o;
      o.threads = threads;
      o.array_bytes = array_bytes;
      // Arrays past where the sweep saw memory (three of them: the triad's working set is larger still)
      // rather than 4x a cache size the OS may misreport.
      if (array_bytes == 0 && m.cache_sweep.measured())
        o.array_bytes = std::max<std::uint64_t>(m.cache_sweep.out_of_cache_bytes, std::uint64_t(128) << 20);
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

}  // namespace spkit::harness
