#pragma once
// The matrices every kernel is checked on: hand-made edge cases, generator families at small sizes
// and real matrices: those kept in the repository (tests/data/matrices, always present) and those of
// ../shared/matrices beside a developer's checkout (absent in a user's clone). Shared by all kernel tests.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "spkit/formats/csr.hpp"

namespace spkit::test {

struct NamedMatrix {
  std::string name;
  Csr<double> a;
};

// Builds CSR from a dense description: pattern(i, j) says whether (i, j) is stored; values random
// in [-1, 1) (never exactly zero, so a missed entry always shows).
Csr<double> random_csr(std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                       const std::vector<std::vector<std::int32_t>>& row_columns);
// Entries (i, i + d) for each offset d that lands inside the matrix (bands, stencil-like patterns, far
// diagonals). Values never zero; with `symmetric` a value depends only on the pair {i, j}, so a square
// result is exactly symmetric.
Csr<double> banded_csr(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& offsets, bool symmetric,
                       std::uint64_t seed = 7);
// Random matrix with given row lengths (columns distinct, uniform).
Csr<double> random_rows(std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& lengths,
                        std::uint64_t seed);

// A matrix of full b x b blocks (dof blocks): block row I holds the block columns pattern[I] (any order);
// values random, never zero.
Csr<double> full_blocks_csr(std::int64_t block_rows, std::int64_t block_cols, int b,
                            const std::vector<std::vector<std::int32_t>>& pattern, std::uint64_t seed);
// Block row I gets lengths[I] distinct block columns, uniform in [0, block_cols).
std::vector<std::vector<std::int32_t>> random_block_pattern(std::int64_t block_cols,
                                                            const std::vector<std::int64_t>& lengths, std::uint64_t seed);

// Hand-made edge cases: empty, 1x1, empty rows, one dense row, a dense column, non-square both
// ways, sizes that are not multiples of 8 / 32 / the hack size, one row holding most non-zeros.
std::vector<NamedMatrix> edge_case_matrices();
// Every generator family at a small size (n chosen to be awkward: not a multiple of 8 or 32).
std::vector<NamedMatrix> family_matrices();
// The real matrices kept in the repository (tests/data/matrices, with MANIFEST.tsv and their sources).
std::filesystem::path repo_matrices_dir();
// ../shared/matrices beside the checkout (or beside an ancestor, for a worktree) when it exists with a
// MANIFEST.tsv; nullopt in a user's clone, where tests that need it skip with a message.
std::optional<std::filesystem::path> shared_matrices_dir();
// Real matrices from the repository's and, when present, the shared folder (a name in both is taken
// once) up to `max_nnz`.
std::vector<NamedMatrix> real_matrices(std::int64_t max_nnz = 2'000'000);
// All three.
std::vector<NamedMatrix> all_test_matrices();

// Random x in [-1, 1) for a fresh seed each call (seed printed by the caller on failure).
std::vector<double> random_vector(std::int64_t n, std::uint64_t seed);
std::uint64_t fresh_seed();

}  // namespace spkit::test
