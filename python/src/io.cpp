// spkit._spkit: reading and writing matrix files, and the generator.
#include "ext_common.hpp"

#include "spkit/gen.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"

namespace spkit_py {

using namespace nb::literals;

namespace {

nb::tuple read_matrix(const std::string& path) {
  spkit::MmHeader header;
  spkit::Csr<double> a;
  {
    nb::gil_scoped_release release;
    a = spkit::load_matrix(path, &header);
  }
  nb::dict h;
  h["field"] = std::string(spkit::to_string(header.field));
  h["symmetry"] = std::string(spkit::to_string(header.symmetry));
  h["stored_entries"] = header.stored_entries;
  nb::tuple arrays = csr_to_python(std::move(a));
  return nb::make_tuple(arrays, h);
}

void write_matrix(const std::string& path, std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr,
                  HostVector<std::int32_t> indices, HostVector<double> data, bool spkb, const std::string& comment) {
  spkit::Csr<double> a = csr_from_python<double>(rows, cols, indptr, indices, data);
  nb::gil_scoped_release release;
  if (spkb) spkit::write_spkb(path, a);
  else spkit::write_matrix_market(path, a, spkit::MmField::real, comment);
}


}  // namespace

void register_io(nb::module_& m) {
  m.def("read_matrix", &read_matrix, "path"_a);
  m.def("write_matrix", &write_matrix, "path"_a, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a, "spkb"_a,
        "comment"_a);

  m.def("generator_families", &spkit::generator_families);
  m.def("generate", [](const std::string& family, std::int64_t n, std::int64_t cols, int points, int dof, int per_row,
                       int bandwidth, double zipf_s, std::uint64_t seed) {
    spkit::GenOptions o;
    o.family = family;
    o.n = n;
    o.cols = cols;
    o.points = points;
    o.dof = dof;
    o.per_row = per_row;
    o.bandwidth = bandwidth;
    o.zipf_s = zipf_s;
    o.seed = seed;
    spkit::Csr<double> a;
    {
      nb::gil_scoped_release release;
      a = spkit::generate(o);
    }
    return csr_to_python(std::move(a));
  }, "family"_a, "n"_a, "cols"_a, "points"_a, "dof"_a, "per_row"_a, "bandwidth"_a, "zipf_s"_a, "seed"_a);

}

}  // namespace spkit_py
