#pragma once
// Synthetic matrices of the families of SPEC §6, deterministic for a seed, generated in parallel.
#include <cstdint>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit {

struct GenOptions {
  std::string family;       // lap2d lap3d fem random powerlaw road circuit banded
  std::int64_t n = 0;       // grid side (lap2d, lap3d, fem, road) or rows (random, powerlaw, circuit, banded)
  std::int64_t cols = 0;    // random: columns (0 = square)
  int points = 7;           // lap3d: 7 or 27
  int dof = 3;              // fem: dense dof x dof blocks
  int per_row = 8;          // random: k per row; powerlaw: mean row length; circuit: mean
  int bandwidth = 5;        // banded: half bandwidth
  double zipf_s = 1.0;      // powerlaw exponent
  std::uint64_t seed = 42;
};

std::vector<std::string> generator_families();
// Throws spkit::Error on an unknown family or invalid options (names the option).
Csr<double> generate(const GenOptions& opts);
// A size n for `family` that gives about `target_nnz` non-zeros (used by the bench suite sizes).
std::int64_t size_for_nnz(const std::string& family, std::int64_t target_nnz, const GenOptions& base = {});

}  // namespace spkit
