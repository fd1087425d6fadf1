// Matrix Market writer: .mtx -> CSR -> .mtx (and .spkb) exactly, the integer and pattern fields, and no
// partial file after a failed write.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>

#include "formats/csr_reference.hpp"
#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/matrix_market.hpp"
#include "spkit/io/spkb.hpp"

using namespace spkit;
using namespace spkit::csr_test;
using namespace spkit::mm_test;

TEST(MatrixMarketFiles, RoundTripMtxCsrMtxIsExact) {
  const std::uint64_t seed = seed_now();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (auto [r, c, d] : {std::tuple<int, int, double>{0, 0, 0}, {1, 1, 1.0}, {37, 5, 0.3}, {5, 41, 0.2}, {300, 300, 0.02}}) {
    const Csr<double> a = random_csr(r, c, d, seed + r);
    const fs::path p = scratch_dir() / "rt.mtx";
    write_matrix_market(p.string(), a, MmField::real, "line one\nline two");
    MmHeader h;
    const Csr<double> b = load_matrix(p.string(), &h);
    expect_same(a, b);
    EXPECT_EQ(h.stored_entries, a.nnz());
    const std::string text = read_bytes(p);
    EXPECT_EQ(text.rfind("%%MatrixMarket matrix coordinate real general\n% line one\n% line two\n", 0), 0u);
    // and mtx -> spkb -> CSR
    const fs::path q = scratch_dir() / "rt.spkb";
    write_spkb(q.string(), b, h);
    EXPECT_TRUE(is_spkb_file(q.string()));
    MmHeader h2;
    expect_same(a, load_matrix(q.string(), &h2));
    EXPECT_EQ(h2.rows, a.rows);
    EXPECT_EQ(h2.stored_entries, h.stored_entries);
  }
}

TEST(MatrixMarketFiles, IntegerAndPatternWriters) {
  Csr<double> a;
  a.rows = 2;
  a.cols = 2;
  a.row_ptr = {0, 1, 2};
  a.col_idx = {1, 0};
  a.values = {3, -4};
  const fs::path p = scratch_dir() / "int.mtx";
  write_matrix_market(p.string(), a, MmField::integer);
  EXPECT_EQ(read_bytes(p), "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 3\n2 1 -4\n");
  write_matrix_market(p.string(), a, MmField::pattern);
  EXPECT_EQ(read_bytes(p), "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n");
  // A failed write leaves nothing behind (and does not clobber an existing file).
  a.values[0] = 0.5;
  const fs::path fresh = scratch_dir() / "never.mtx";
  EXPECT_THROW(write_matrix_market(fresh.string(), a, MmField::integer), Error);
  EXPECT_FALSE(fs::exists(fresh));
  for (const auto& e : fs::directory_iterator(scratch_dir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  EXPECT_THROW(write_matrix_market((scratch_dir() / "no/such/dir/x.mtx").string(), a), Error);
}
