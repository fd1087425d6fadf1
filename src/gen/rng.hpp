#pragma once
// Counter-based randomness for the generator: every row (and every edge) gets its own stream from
// splitmix64 of the seed and its index, so results never depend on the thread count or schedule.
#include <cstdint>

namespace spkit::gen_detail {

inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;

// Salts keep the streams of different purposes apart for the same seed. Every family's salts are
// here, in one list, so that no two purposes share one; the values are part of the matrices
// (changing one changes the generated matrices).
enum Salt : std::uint64_t {
  kRowSalt = 1, kEdgeSalt = 2, kRoadSalt = 3, kCircuitSalt = 4, kRankSalt = 5,
  kRmatSalt = 11, kRmatLabelSalt = 12, kRmatValueSalt = 13, kPointSalt = 14, kMeshLabelSalt = 15,
  kJitterSalt = 16, kOrderSalt = 17, kRoadStartSalt = 18, kRoadKeepSalt = 19
};

// A hash of (seed, a, b): the same value wherever and whenever it is computed.
inline std::uint64_t hash3(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return mix64(mix64(seed + kGolden) ^ mix64(a * kGolden + 0x632BE59BD9B4E019ull) ^ (b * 0xD6E8FEB86659FD93ull));
}

// Uniform in [0, 1) from 53 bits of a hash.
inline double unit_from(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

// splitmix64 generator started at hash3(seed, stream, salt).
class StreamRng {
 public:
  StreamRng(std::uint64_t seed, std::uint64_t stream, std::uint64_t salt) : state_(hash3(seed, stream, salt)) {}
  std::uint64_t next() {
    state_ += kGolden;
    return mix64(state_);
  }
  double uniform() { return unit_from(next()); }  // [0, 1)
  // Uniform integer in [0, m), m > 0 (Lemire's multiply-shift; bias below 2^-64 * m).
  std::int64_t below(std::int64_t m) {
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(next()) * static_cast<std::uint64_t>(m)) >> 64);
  }
  // A value of magnitude in [0.25, 1) and random sign: never zero, never tiny.
  double value() {
    std::uint64_t r = next();
    double magnitude = 0.25 + 0.75 * unit_from(r);
    return (r & 1u) ? -magnitude : magnitude;
  }

 private:
  std::uint64_t state_;
};

// A seeded bijection of [0, n), n >= 1: a 4-round Feistel network on the smallest even number of bits
// that covers n, cycle-walked back into range (the domain is below 4n: under 4 steps on average).
// Stateless and thread-safe.
class IndexPermutation {
 public:
  IndexPermutation(std::uint64_t n, std::uint64_t seed) : n_(n), seed_(seed) {
    int bits = 2;
    while (bits < 62 && (std::uint64_t{1} << bits) < n) bits += 2;
    half_ = bits / 2;
    mask_ = (std::uint64_t{1} << half_) - 1;
  }
  std::uint64_t operator()(std::uint64_t x) const {
    do x = encrypt(x);
    while (x >= n_);
    return x;
  }

 private:
  std::uint64_t encrypt(std::uint64_t x) const {
    std::uint64_t left = x >> half_, right = x & mask_;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t f = hash3(seed_, round, right) & mask_;
      const std::uint64_t next_left = right;
      right = left ^ f;
      left = next_left;
    }
    return (left << half_) | right;
  }
  std::uint64_t n_, seed_, mask_;
  int half_;
};

}  // namespace spkit::gen_detail
