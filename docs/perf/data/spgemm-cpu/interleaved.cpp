// Interleaved SpGEMM timing of docs/perf/spgemm.md (2026-11-27): the named registry kernels called in
// turn on C = A A, 1 warm-up + ROUNDS rounds; per kernel the median and min over rounds of the wall time
// and of the process CPU time of the stages in the product (those a SpgemmStageRecorder sees in_total).
// Build against a cpu-preset build, then run per matrix and thread count:
//   g++ -O2 -std=c++17 -fopenmp -Iinclude -o interleaved docs/perf/data/spgemm-cpu/interleaved.cpp \
//       -Lbuild/cpu/src -lspkit -Wl,-rpath,$PWD/build/cpu/src
//   ./interleaved fem.spkb THREADS 5 both cpu.csr.gustavson_dense ref.mkl.sp2m ref.mkl.sp2m_1stage
// (matrices from `spkit gen` as in bench/spgemm/cpu.sh).
#include <spkit/io/matrix_market.hpp>
#include <spkit/spgemm.hpp>
#include <spkit/formats/csr.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>
using namespace spkit;
static double cpu_ms() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
struct Rec : SpgemmStageRecorder {
  double wall = 0, cpu = 0, w0 = 0, c0 = 0; bool in = false;
  static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
  void close() { if (in) wall += now() - w0, cpu += cpu_ms() - c0; in = false; }
  void begin_stage(const char*, bool in_total, StageSite) override { close(); in = in_total; w0 = now(); c0 = cpu_ms(); }
  void end_stages() override { close(); }
};
template <class T> void go(const Csr<double>& a64, std::vector<std::string> names, int threads, int rounds, const char* tag) {
  Csr<T> a = csr_cast<T>(a64);
  SpgemmOptions o; o.threads = threads;
  std::map<std::string, std::vector<double>> wall, cpu;
  for (auto& n : names) spgemm_registry().find(n)->fn<T>()(a, a, o);  // warm-up
  for (int r = 0; r < rounds; ++r)
    for (auto& n : names) {
      auto& f = spgemm_registry().find(n)->fn<T>();
      Rec rec; o.recorder = &rec;
      { auto res = f(a, a, o); }
      wall[n].push_back(rec.wall); cpu[n].push_back(rec.cpu);
    }
  for (auto& n : names) {
    auto& w = wall[n]; auto& c = cpu[n]; std::sort(w.begin(), w.end()); std::sort(c.begin(), c.end());
    std::printf("%s %s t%d %-26s wall med %8.1f min %8.1f | cpu med %8.1f min %8.1f\n", tag, sizeof(T) == 4 ? "f32" : "f64", threads, n.c_str(), w[w.size() / 2], w[0], c[c.size() / 2], c[0]);
  }
}
int main(int argc, char** argv) {
  Csr<double> a = load_matrix(argv[1]);
  int threads = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
  std::string prec = argv[4];
  std::vector<std::string> names(argv + 5, argv + argc);
  const char* tag = std::strrchr(argv[1], '/') + 1;
  if (prec != "f64") go<float>(a, names, threads, rounds, tag);
  if (prec != "f32") go<double>(a, names, threads, rounds, tag);
}
