#pragma once
// The generator's internals shared by generate.cpp (the grid and random families) and
// graph_families.cpp (rmat, geometric, fem_mesh, road_planar): a family is a RowGenerator that says
// how long a row is and fills it; build_csr runs both in two parallel passes.
#include <cstdint>
#include <memory>
#include <string>

#include "spkit/formats/csr.hpp"
#include "spkit/gen.hpp"

namespace spkit::gen_detail {

class RowGenerator {
 public:
  virtual ~RowGenerator() = default;
  virtual std::int64_t rows() const = 0;
  virtual std::int64_t cols() const = 0;
  // About the non-zeros to come: checked against memory before anything large is allocated.
  virtual double expected_nnz() const = 0;
  virtual std::int64_t row_length(std::int64_t row) const = 0;
  // Writes exactly row_length(row) entries, columns strictly increasing.
  virtual void fill_row(std::int64_t row, std::int32_t* cols, double* values) const = 0;
};

// Off-diagonal value of the symmetric families: the same for (i, j) and (j, i), in (-1, -0.5].
double symmetric_value(std::uint64_t seed, std::int64_t i, std::int64_t j);
// Values of a symmetric row whose columns are set: off-diagonals symmetric, the diagonal one more
// than their absolute sum (strict diagonal dominance with a positive diagonal: SPD).
void fill_symmetric_values(std::uint64_t seed, std::int64_t row, const std::int32_t* cols, double* values,
                           std::int64_t len);
// Pass 1 row lengths, prefix sum, pass 2 fill; both in parallel, independent of the thread count.
Csr<double> build_csr(const RowGenerator& gen, const std::string& family, const GenProgress& progress);

// The families of graph_families.cpp. Each validates its options (throws spkit::Error naming the
// option) before anything large is allocated.
std::unique_ptr<RowGenerator> make_geometric(const GenOptions& o);
std::unique_ptr<RowGenerator> make_fem_mesh(const GenOptions& o);
std::unique_ptr<RowGenerator> make_road_planar(const GenOptions& o);
void check_rmat_options(const GenOptions& o);
Csr<double> generate_rmat(const GenOptions& o, const GenProgress& progress);
// The lattice side n of fem_mesh that gives about target_nnz non-zeros for the other options of o.
double fem_mesh_side_for_nnz(const GenOptions& o, double target_nnz);
// Resolved defaults: dimensions (geometric 2, fem_mesh 3) and numbering (road_planar bfs, else sfc).
int family_dims(const GenOptions& o);
std::string family_ordering(const GenOptions& o);

}  // namespace spkit::gen_detail
