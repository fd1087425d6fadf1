// spkit info FILE [--json] [--hack-size N]: sizes, row lengths, padding of ELL/HLL, bmSparse blocks
// and the bytes each format would take.
#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>

#include "commands.hpp"
#include "spkit/error.hpp"
#include "spkit/formats/sell.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/stats.hpp"

namespace spkit::cli {
namespace {

const char* field_name(MmField f) {
  switch (f) {
    case MmField::real: return "real";
    case MmField::integer: return "integer";
    case MmField::pattern: return "pattern";
  }
  return "real";
}

const char* symmetry_name(MmSymmetry s) {
  switch (s) {
    case MmSymmetry::general: return "general";
    case MmSymmetry::symmetric: return "symmetric";
    case MmSymmetry::skew_symmetric: return "skew-symmetric";
  }
  return "general";
}

nlohmann::json bytes_json(const MatrixStats::Bytes& b) { return {{"f64", b.f64}, {"f32", b.f32}}; }

nlohmann::json stats_json(const MmHeader& h, const MatrixStats& s) {
  nlohmann::json j;
  j["rows"] = s.rows;
  j["cols"] = s.cols;
  j["nnz"] = s.nnz;
  j["stored_entries"] = h.stored_entries;
  j["field"] = field_name(h.field);
  j["symmetry"] = symmetry_name(h.symmetry);
  j["row_nnz"] = {{"min", s.row_nnz_min}, {"max", s.row_nnz_max}, {"mean", s.row_nnz_mean}, {"std", s.row_nnz_std}};
  j["empty_rows"] = s.empty_rows;
  j["max_diag_distance"] = s.max_diag_distance;
  j["hub_column_share"] = s.hub_column_share;
  j["diagonals"] = s.diagonals;
  j["symmetric"] = s.symmetric;
  j["ell"] = {{"width", s.ell_width}, {"padding_ratio", s.ell_padding_ratio}, {"bytes", bytes_json(s.bytes_ell)}};
  j["hll"] = {{"hack_size", s.hack_size}, {"padding_ratio", s.hll_padding_ratio}, {"bytes", bytes_json(s.bytes_hll)}};
  j["hyb"] = {{"width", s.hyb_width}, {"coo_entries", s.hyb_coo_entries}, {"bytes", bytes_json(s.bytes_hyb)}};
  j["sell"] = {{"slice_height", kSellDefaultSliceHeight}, {"sigma", kSellDefaultSigma},
               {"padding_ratio", s.sell_padding_ratio}, {"delta16_fraction", s.sell_delta16_fraction}};
  // histogram[i] = blocks holding i+1 non-zeros (i = 0..63)
  std::vector<std::int64_t> hist(s.bm_block_histogram.begin() + 1, s.bm_block_histogram.end());
  j["bmsparse"] = {{"blocks", s.bm_blocks},
                   {"nnz_per_block", s.bm_nnz_per_block},
                   {"histogram", hist},
                   {"bytes", bytes_json(s.bytes_bmsparse)}};
  j["bytes"] = {{"coo", bytes_json(s.bytes_coo)}, {"csr", bytes_json(s.bytes_csr)},
                {"ell", bytes_json(s.bytes_ell)}, {"hll", bytes_json(s.bytes_hll)},
                {"hyb", bytes_json(s.bytes_hyb)}, {"bmsparse", bytes_json(s.bytes_bmsparse)}};
  return j;
}

std::string human_bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.1f} {}", v, units[u]);
}

void print_text(const std::string& path, const MmHeader& h, const MatrixStats& s) {
  fmt::print("{}\n", path);
  fmt::print("  size            {} x {}, {} non-zeros ({} stored entries, {} {})\n", s.rows, s.cols, s.nnz,
             h.stored_entries, field_name(h.field), symmetry_name(h.symmetry));
  fmt::print("  row length      min {}  mean {:.3f}  std {:.3f}  max {}\n", s.row_nnz_min, s.row_nnz_mean,
             s.row_nnz_std, s.row_nnz_max);
  fmt::print("  empty rows      {}\n", s.empty_rows);
  fmt::print("  max |col-row|   {} (bandwidth)\n", s.max_diag_distance);
  fmt::print("  hub columns     {:.3f} of the non-zeros in the 1% most used columns\n", s.hub_column_share);
  fmt::print("  diagonals       {} distinct (col - row offsets holding an entry)\n", s.diagonals);
  fmt::print("  symmetric       {}\n", s.symmetric ? "yes (values and pattern, exactly)" : "no");
  fmt::print("  ELL             width {}  padding {:.3f} x nnz\n", s.ell_width, s.ell_padding_ratio);
  fmt::print("  HLL             hack size {}  padding {:.3f} x nnz\n", s.hack_size, s.hll_padding_ratio);
  fmt::print("  HYB             width {}  COO part {} entries\n", s.hyb_width, s.hyb_coo_entries);
  fmt::print("  {:<16}padding {:.3f} x nnz  16-bit column deltas in {:.1f}% of slots\n",
             "SELL-32-" + std::to_string(kSellDefaultSigma), s.sell_padding_ratio, 100.0 * s.sell_delta16_fraction);
  fmt::print("  bmSparse 8x8    {} blocks, {:.2f} non-zeros per block\n", s.bm_blocks, s.bm_nnz_per_block);
  std::string hist;
  for (int k = 1; k <= 64; ++k)
    if (s.bm_block_histogram[k]) hist += fmt::format(" {}:{}", k, s.bm_block_histogram[k]);
  fmt::print("  blocks by nnz  {}\n", hist.empty() ? " -" : hist);
  fmt::print("  bytes (fp64 / fp32)\n");
  const std::pair<const char*, const MatrixStats::Bytes*> rows[] = {
      {"COO", &s.bytes_coo}, {"CSR", &s.bytes_csr}, {"ELL", &s.bytes_ell},
      {"HLL", &s.bytes_hll}, {"HYB", &s.bytes_hyb}, {"bmSparse", &s.bytes_bmsparse}};
  for (const auto& r : rows)
    fmt::print("    {:<9} {:>12} / {:>12}\n", r.first, human_bytes(r.second->f64), human_bytes(r.second->f32));
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "info",
      "Matrix statistics: sizes, row lengths, padding, blocks, bytes per format. With --json the keys are rows, "
      "cols, nnz, stored_entries, field, symmetry, row_nnz{min,max,mean,std}, empty_rows, max_diag_distance, hub_column_share, "
      "diagonals, symmetric (exact, of the loaded matrix), "
      "ell{width,padding_ratio,bytes}, hll{hack_size,padding_ratio,bytes}, hyb{width,coo_entries,bytes}, "
      "bmsparse{blocks,nnz_per_block,histogram,bytes} (histogram[i] = blocks with i+1 non-zeros) and "
      "bytes{coo,csr,ell,hll,hyb,bmsparse}; every bytes is {f64,f32}");
  struct Args {
    std::string path;
    bool json = false;
    int hack_size = 32;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("FILE", args->path, "matrix file (.mtx, .mtx.gz, .spkb)")->required();
  cmd->add_flag("--json", args->json, "print JSON instead of text");
  cmd->add_option("--hack-size", args->hack_size, "HLL hack size (rows per hack)")->capture_default_str();
  cmd->callback([args] {
    if (args->hack_size < 1) throw Error("--hack-size must be at least 1 (got " + std::to_string(args->hack_size) + ")");
    MmHeader header;
    Csr<double> a = load_matrix(args->path, &header);
    MatrixStats s = compute_stats(a, args->hack_size);
    if (args->json)
      fmt::print("{}\n", stats_json(header, s).dump(2));
    else
      print_text(args->path, header, s);
  });
}

}  // namespace spkit::cli
