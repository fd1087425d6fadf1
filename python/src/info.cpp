// spkit._spkit: the kernel registry, matrix statistics and the devices.
#include "ext_common.hpp"

#include "spkit/device.hpp"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"

namespace spkit_py {

using namespace nb::literals;

namespace {

nb::dict stats_dict(const spkit::MatrixStats& s) {
  nb::dict d;
  d["rows"] = s.rows;
  d["cols"] = s.cols;
  d["nnz"] = s.nnz;
  d["row_nnz_min"] = s.row_nnz_min;
  d["row_nnz_max"] = s.row_nnz_max;
  d["row_nnz_mean"] = s.row_nnz_mean;
  d["row_nnz_std"] = s.row_nnz_std;
  d["empty_rows"] = s.empty_rows;
  d["max_diag_distance"] = s.max_diag_distance;
  d["hub_column_share"] = s.hub_column_share;
  d["diagonals"] = s.diagonals;
  d["symmetric"] = s.symmetric;
  d["ell_width"] = s.ell_width;
  d["ell_padding_ratio"] = s.ell_padding_ratio;
  d["hack_size"] = s.hack_size;
  d["hll_padding_ratio"] = s.hll_padding_ratio;
  d["hyb_width"] = s.hyb_width;
  d["hyb_coo_entries"] = s.hyb_coo_entries;
  d["bm_blocks"] = s.bm_blocks;
  d["bm_nnz_per_block"] = s.bm_nnz_per_block;
  nb::list hist;  // [k - 1] = blocks holding k non-zeros, k = 1..64
  for (int k = 1; k <= 64; ++k) hist.append(s.bm_block_histogram[static_cast<std::size_t>(k)]);
  d["bm_block_histogram"] = hist;
  nb::dict bytes;
  const std::pair<const char*, const spkit::MatrixStats::Bytes*> formats[] = {
      {"coo", &s.bytes_coo}, {"csr", &s.bytes_csr}, {"ell", &s.bytes_ell},
      {"hll", &s.bytes_hll}, {"hyb", &s.bytes_hyb}, {"bmsparse", &s.bytes_bmsparse}};
  for (const auto& [name, b] : formats) {
    nb::dict per;
    per["float64"] = b->f64;
    per["float32"] = b->f32;
    bytes[name] = per;
  }
  d["bytes"] = bytes;
  return d;
}

}  // namespace

void register_info(nb::module_& m) {
  m.def("kernels", [] {
    nb::list out;
    for (const spkit::KernelInfo& k : spkit::registry().all()) {
      nb::dict d;
      d["name"] = k.name;
      d["format"] = std::string(spkit::to_string(k.format));
      d["backend"] = std::string(spkit::to_string(k.backend));
      d["parallel"] = k.parallel;
      d["comparison"] = k.comparison;
      d["auto"] = static_cast<bool>(k.cost);
      d["description"] = k.description;
      out.append(d);
    }
    return out;
  });

  m.def("info", [](std::int64_t rows, std::int64_t cols, HostVector<std::int64_t> indptr,
                   HostVector<std::int32_t> indices, HostVector<double> data, int hack_size) {
    spkit::Csr<double> a = csr_from_python<double>(rows, cols, indptr, indices, data);
    spkit::MatrixStats s;
    {
      nb::gil_scoped_release release;
      s = spkit::compute_stats(a, hack_size);
    }
    return stats_dict(s);
  }, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a, "hack_size"_a);

  m.def("cuda_compiled", &spkit::cuda_compiled);
  m.def("gpu_count", &spkit::gpu_count);
}

}  // namespace spkit_py
