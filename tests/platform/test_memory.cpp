// The /proc/meminfo figures that memory budgets (generators, conversions, SpGEMM) are checked against.
#include <gtest/gtest.h>

#include "platform/memory.hpp"

namespace spkit::test {
namespace {

constexpr const char* kMeminfo =
    "MemTotal:       131859968 kB\n"
    "MemFree:        120000000 kB\n"
    "MemAvailable:   125000000 kB\n"
    "HugePages_Total:       0\n"  // no unit: must not derail what follows
    "HugePages_Free:        0\n"
    "Hugepagesize:       2048 kB\n"
    "DirectMap1G:    67108864 kB";  // last line without a newline

TEST(Meminfo, ReadsKeysInKibAndWithoutUnit) {
  EXPECT_EQ(meminfo_bytes(kMeminfo, "MemTotal"), 131859968ull * 1024);
  EXPECT_EQ(meminfo_bytes(kMeminfo, "MemAvailable"), 125000000ull * 1024);
  EXPECT_EQ(meminfo_bytes(kMeminfo, "HugePages_Total"), 0u);
  EXPECT_EQ(meminfo_bytes(kMeminfo, "Hugepagesize"), 2048ull * 1024);
  EXPECT_EQ(meminfo_bytes(kMeminfo, "DirectMap1G"), 67108864ull * 1024);
}

TEST(Meminfo, MissingOrMalformedKeysGiveZero) {
  EXPECT_EQ(meminfo_bytes(kMeminfo, "SwapTotal"), 0u);
  EXPECT_EQ(meminfo_bytes(kMeminfo, "MemAvail"), 0u);  // a prefix of a key is not the key
  EXPECT_EQ(meminfo_bytes("MemAvailable: lots kB\n", "MemAvailable"), 0u);
  EXPECT_EQ(meminfo_bytes("", "MemAvailable"), 0u);
}

TEST(Meminfo, ThisMachineHasMemory) {
  // Whatever the source (/proc/meminfo or sysconf), a machine that runs the tests has a few MiB free.
  EXPECT_GT(available_memory_bytes(), 16u << 20);
  EXPECT_GE(total_memory_bytes(), available_memory_bytes() / 2);
}

}  // namespace
}  // namespace spkit::test
