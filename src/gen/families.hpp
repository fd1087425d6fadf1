#pragma once
// The generator's families, one maker per family, dispatched by generate.cpp. Each maker validates
// its options (throws spkit::Error naming the option, spkit::TooLarge) before anything large is
// allocated. The dispatcher checks --n >= 1 before calling a RowGenerator family's maker.
#include <memory>

#include "gen/row_generator.hpp"
#include "spkit/formats/csr.hpp"
#include "spkit/gen.hpp"

namespace spkit::gen_detail {

// grids.cpp: stencils on a regular grid and the full band.
std::unique_ptr<RowGenerator> make_lap2d(const GenOptions& o);
std::unique_ptr<RowGenerator> make_lap3d(const GenOptions& o);
std::unique_ptr<RowGenerator> make_fem(const GenOptions& o);
std::unique_ptr<RowGenerator> make_banded(const GenOptions& o);

// random_graphs.cpp: uniform, power-law (Zipf) and R-MAT (Graph500 Kronecker) patterns.
std::unique_ptr<RowGenerator> make_random(const GenOptions& o);
std::unique_ptr<RowGenerator> make_powerlaw(const GenOptions& o);
// R-MAT draws edges, not rows: its own two-pass build (counting sort of the edges).
void check_rmat_options(const GenOptions& o);
Csr<double> generate_rmat(const GenOptions& o, const GenProgress& progress);

// circuit.cpp: circuit-simulation-like pattern.
std::unique_ptr<RowGenerator> make_circuit(const GenOptions& o);

// roads.cpp: the grid with edges removed (road) and the planar road network (road_planar).
std::unique_ptr<RowGenerator> make_road(const GenOptions& o);
std::unique_ptr<RowGenerator> make_road_planar(const GenOptions& o);

// geometric.cpp: random geometric graph.
std::unique_ptr<RowGenerator> make_geometric(const GenOptions& o);

// meshes.cpp: unstructured P1/P2 finite-element meshes.
std::unique_ptr<RowGenerator> make_fem_mesh(const GenOptions& o);
// The lattice side n of fem_mesh that gives about target_nnz non-zeros for the other options of o.
double fem_mesh_side_for_nnz(const GenOptions& o, double target_nnz);

}  // namespace spkit::gen_detail
