#pragma once
// What the Matrix Market tests share: a scratch directory, files written and read back byte for byte,
// text parsed the COO route's way into CSR, random matrices with awkward values, and the usual banner.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "spkit/formats/csr.hpp"
#include "spkit/io/matrix_market.hpp"

namespace spkit::mm_test {

namespace fs = std::filesystem;

inline const std::string kRealGeneralBanner = "%%MatrixMarket matrix coordinate real general\n";

// A per-process scratch directory, removed when the test binary exits.
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("spkit_io_test_" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

inline fs::path scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

inline void write_text(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary);
  f << s;
}

inline void write_gzip(const fs::path& p, const std::string& s) {
  gzFile g = gzopen(p.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(gzwrite(g, s.data(), static_cast<unsigned>(s.size())), static_cast<int>(s.size()));
  gzclose(g);
}

inline std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline Csr<double> parse_csr(const std::string& text, int threads = 0) {
  ReadOptions o;
  o.threads = threads;
  MmMatrix m = parse_matrix_market(text, "<t>", o);
  return coo_to_csr(m.coo);
}

inline Csr<double> random_csr(std::int64_t rows, std::int64_t cols, double density, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::bernoulli_distribution keep(density);
  Csr<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.push_back(0);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j)
      if (keep(rng)) {
        a.col_idx.push_back(static_cast<std::int32_t>(j));
        // awkward values: tiny, huge, negative, exactly representable, shortest-repr tricky
        const int kind = static_cast<int>(rng() % 5);
        double v = u(rng);
        if (kind == 1) v *= 1e-300;
        if (kind == 2) v *= 1e300;
        if (kind == 3) v = std::nextafter(0.1, 1.0);
        a.values.push_back(v);
      }
    a.row_ptr.push_back(static_cast<std::int64_t>(a.values.size()));
  }
  return a;
}

}  // namespace spkit::mm_test
