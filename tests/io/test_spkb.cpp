// .spkb: corrupted and truncated files are refused with the reason and the path.
#include <gtest/gtest.h>

#include <string>

#include "formats/csr_reference.hpp"
#include "io/mm_test_util.hpp"
#include "spkit/error.hpp"
#include "spkit/io/spkb.hpp"

using namespace spkit;
using namespace spkit::csr_test;
using namespace spkit::mm_test;

TEST(Spkb, RefusesCorruptedAndTruncatedFiles) {
  const Csr<double> a = random_csr(300, 200, 0.05, seed_now());
  const fs::path p = scratch_dir() / "c.spkb";
  write_spkb(p.string(), a);
  const std::string good = read_bytes(p);
  auto expect_refused = [&](const std::string& bytes, const char* fragment) {
    write_text(p, bytes);
    try {
      read_spkb(p.string());
      FAIL() << fragment << ": accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  };
  std::string b = good;
  b[good.size() - 3] ^= 1;  // a value bit
  expect_refused(b, "checksum mismatch");
  b = good;
  b[200] ^= 0x10;  // a row pointer / column bit
  expect_refused(b, "checksum mismatch");
  b = good;
  b[30] ^= 1;  // rows in the header
  expect_refused(b, "header checksum");
  expect_refused(good.substr(0, good.size() - 8), "truncated");
  expect_refused(good.substr(0, 100), "truncated header");
  expect_refused(good + "x", "after the data");
  b = good;
  b[0] = 'X';
  expect_refused(b, "magic");
  b = good;
  b[8] = 9;  // version
  expect_refused(b, "version 9");
  write_text(p, good);
  expect_same(a, read_spkb(p.string()));
}
