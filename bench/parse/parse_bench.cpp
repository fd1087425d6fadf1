// Parse benchmark driver (built by bench/parse/run.sh against build/cpu's libspkit.so).
//   parse_bench gen OUT.mtx ROWS PER_ROW SEED [shuffle]   write a random real general matrix
//   parse_bench time FILE.mtx THREADS REPS                 time .mtx -> COO, COO -> CSR, .mtx -> CSR,
//                                                          and (via FILE.spkb) .spkb -> CSR
//                                                          and CSR -> .mtx (write_matrix_market)
//   parse_bench read FILE.mtx THREADS REPS                 only .mtx -> COO, COO -> CSR, .mtx -> CSR
// Prints one line per measurement: "spkit <what> threads=<t> best_s=<s> median_s=<s> MB/s=<x> ... file=<f>
// all_s=<every repetition>" (MB = 1e6 bytes of the file being read; GB/s for .spkb).
#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"

using namespace spkit;
using clk = std::chrono::steady_clock;

static double seconds_since(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

static double file_mb(const std::string& p) {
  struct stat st {};
  stat(p.c_str(), &st);
  return static_cast<double>(st.st_size) / 1e6;
}

static std::string all_times(const std::vector<double>& t) {
  std::string s;
  char buf[32];
  for (double x : t) {
    std::snprintf(buf, sizeof buf, "%s%.4f", s.empty() ? "" : ",", x);
    s += buf;
  }
  return s;
}

static void report(const char* what, int threads, std::vector<double> t, double mb, const char* unit,
                   const std::string& path) {
  const std::string all = all_times(t);
  std::sort(t.begin(), t.end());
  const double best = t.front(), median = t[t.size() / 2];
  const double scale = unit[0] == 'G' ? 1e-3 : 1.0;
  std::printf("spkit %-10s threads=%d best_s=%.4f median_s=%.4f %s=%.1f (best) %.1f (median) file=%s all_s=%s\n", what,
              threads, best, median, unit, mb * scale / best, mb * scale / median, path.c_str(), all.c_str());
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  if (mode == "gen" && argc >= 6) {
    const std::int64_t rows = std::atoll(argv[3]), per_row = std::atoll(argv[4]);
    std::mt19937_64 rng(std::strtoull(argv[5], nullptr, 10));
    const bool shuffle = argc >= 7 && std::string(argv[6]) == "shuffle";
    Csr<double> a;
    a.rows = a.cols = rows;
    a.row_ptr.resize(rows + 1);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<std::int32_t> cols;
    for (std::int64_t i = 0; i < rows; ++i) {
      a.row_ptr[i] = static_cast<std::int64_t>(a.col_idx.size());
      const std::int64_t k = 1 + static_cast<std::int64_t>(rng() % (2 * per_row - 1));  // mean per_row
      cols.clear();
      for (std::int64_t j = 0; j < k; ++j) cols.push_back(static_cast<std::int32_t>(rng() % rows));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      for (auto c : cols) {
        a.col_idx.push_back(c);
        a.values.push_back(u(rng));
      }
    }
    a.row_ptr[rows] = static_cast<std::int64_t>(a.col_idx.size());
    if (!shuffle) {
      write_matrix_market(argv[2], a, MmField::real, "random benchmark matrix");
    } else {
      // Entries in random order: write rows as a permuted COO through a CSR whose "rows" are lines.
      Coo<double> coo = csr_to_coo(a);
      std::vector<std::int64_t> perm(coo.values.size());
      for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<std::int64_t>(k);
      std::shuffle(perm.begin(), perm.end(), rng);
      FILE* f = std::fopen(argv[2], "w");
      std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%% random benchmark matrix, shuffled\n%lld %lld %lld\n",
                   (long long)rows, (long long)rows, (long long)perm.size());
      for (auto k : perm) std::fprintf(f, "%d %d %.17g\n", coo.row_idx[k] + 1, coo.col_idx[k] + 1, coo.values[k]);
      std::fclose(f);
    }
    std::printf("wrote %s: %lld x %lld, %lld entries, %.1f MB\n", argv[2], (long long)rows, (long long)rows,
                (long long)a.nnz(), file_mb(argv[2]));
    return 0;
  }
  if ((mode == "time" || mode == "read") && argc >= 5) {
    const std::string path = argv[2];
    const int threads = std::atoi(argv[3]), reps = std::atoi(argv[4]);
    omp_set_num_threads(threads);
    ReadOptions opts;
    opts.threads = threads;
    const double mb = file_mb(path);
    std::vector<double> t_coo, t_conv, t_csr, t_spkb;
    std::int64_t nnz = 0;
    for (int r = 0; r < reps; ++r) {
      auto t0 = clk::now();
      MmMatrix m = read_matrix_market(path, opts);
      t_coo.push_back(seconds_since(t0));
      t0 = clk::now();
      Csr<double> a = coo_to_csr(m.coo);
      t_conv.push_back(seconds_since(t0));
      nnz = a.nnz();
    }
    for (int r = 0; r < reps; ++r) {
      auto t0 = clk::now();
      Csr<double> a = load_matrix(path, nullptr, opts);
      t_csr.push_back(seconds_since(t0));
    }
    if (mode == "read") {
      std::printf("# %s: %.1f MB, %lld non-zeros\n", path.c_str(), mb, (long long)nnz);
      report("mtx->COO", threads, t_coo, mb, "MB/s", path);
      report("mtx->CSR", threads, t_csr, mb, "MB/s", path);
      report("COO->CSR", threads, t_conv, mb, "MB/s", path);
      return 0;
    }
    const std::string spkb = path + ".spkb";
    std::vector<double> t_write;
    {
      Csr<double> a = load_matrix(path, nullptr, opts);
      write_spkb(spkb, a);
      const std::string out = path + ".written.mtx";
      for (int r = 0; r < reps; ++r) {
        auto t0 = clk::now();
        write_matrix_market(out, a);
        t_write.push_back(seconds_since(t0));
      }
      std::remove(out.c_str());
    }
    const double spkb_mb = file_mb(spkb);
    for (int r = 0; r < reps; ++r) {
      auto t0 = clk::now();
      Csr<double> a = read_spkb(spkb);
      t_spkb.push_back(seconds_since(t0));
    }
    std::remove(spkb.c_str());
    std::printf("# %s: %.1f MB, %lld non-zeros; .spkb %.1f MB\n", path.c_str(), mb, (long long)nnz, spkb_mb);
    report("mtx->COO", threads, t_coo, mb, "MB/s", path);
    report("mtx->CSR", threads, t_csr, mb, "MB/s", path);
    report("COO->CSR", threads, t_conv, mb, "MB/s", path);  // MB/s of the .mtx file, for comparison
    report("spkb->CSR", threads, t_spkb, spkb_mb, "GB/s", spkb);
    report("CSR->mtx", threads, t_write, mb, "MB/s", path);
    return 0;
  }
  std::fprintf(stderr, "usage: see the comment at the top of parse_bench.cpp\n");
  return 2;
}
