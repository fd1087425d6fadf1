// Whole-file reads (mmap, gzip through zlib), atomic writes and the .spkb checksum.
#include "io/io_util.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef SPKIT_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "platform/huge_pages.hpp"
#include "spkit/error.hpp"

namespace spkit::io_detail {

namespace {

std::string errno_text() { return std::strerror(errno); }

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

FileBytes own_buffer(std::unique_ptr<char[]> out, std::size_t size) {
  FileBytes fb;
  char* raw = out.release();
  fb.owner = std::shared_ptr<const char>(raw, [](const char* p) { delete[] p; });
  fb.data = raw;
  fb.size = size;
  fb.was_gzip = true;
  return fb;
}

#ifdef SPKIT_HAVE_LIBDEFLATE
// libdeflate inflates in one call (several times faster than zlib's stream) but needs the output
// size up front. The gzip trailer's ISIZE is the size mod 2^32, so try ISIZE, ISIZE + 2^32, ... up to
// deflate's maximum ratio. Anything else (several members, damaged or truncated data) returns nothing
// and the zlib path below handles it, with its precise messages.
std::optional<FileBytes> inflate_libdeflate(const unsigned char* in, std::size_t in_size) {
  if (in_size < 18) return std::nullopt;
  std::uint32_t isize;
  std::memcpy(&isize, in + in_size - 4, 4);
  struct Decompressor {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    ~Decompressor() {
      if (d) libdeflate_free_decompressor(d);
    }
  } dec;
  if (!dec.d) return std::nullopt;
  const std::uint64_t max_out = static_cast<std::uint64_t>(in_size) * 1032 + 1024;
  for (std::uint64_t guess = isize; guess <= max_out; guess += std::uint64_t(1) << 32) {
    const std::size_t cap = static_cast<std::size_t>(std::max<std::uint64_t>(guess, 1));
    std::unique_ptr<char[]> out(new char[cap]);
    advise_huge_pages(out.get(), cap);
    touch_pages_parallel(out.get(), cap);
    std::size_t used_in = 0, used_out = 0;
    const libdeflate_result r = libdeflate_gzip_decompress_ex(dec.d, in, in_size, out.get(), cap, &used_in, &used_out);
    if (r == LIBDEFLATE_SUCCESS) {
      if (used_in != in_size) return std::nullopt;  // more members follow: zlib
      return own_buffer(std::move(out), used_out);
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) return std::nullopt;
  }
  return std::nullopt;
}
#endif

// Inflates every gzip member of `in` (concatenated members are legal gzip) with zlib's streaming
// API; the output buffer grows geometrically, starting from the last member's ISIZE hint.
FileBytes inflate_gzip(const std::string& path, const unsigned char* in, std::size_t in_size) {
#ifdef SPKIT_HAVE_LIBDEFLATE
  if (std::optional<FileBytes> fast = inflate_libdeflate(in, in_size)) return std::move(*fast);
#endif
  std::size_t capacity = std::max<std::size_t>(in_size * 4, 1 << 16);
  if (in_size >= 4) {
    std::uint32_t isize;  // size mod 2^32 of the last member: only a hint
    std::memcpy(&isize, in + in_size - 4, 4);
    if (isize > capacity && isize < std::size_t(in_size) * 1100) capacity = isize + 1;
  }
  std::unique_ptr<char[]> out(new char[capacity]);
  std::size_t produced = 0;

  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw Error(path + ": zlib inflateInit2 failed");
  struct Ender {
    z_stream* z;
    ~Ender() { inflateEnd(z); }
  } ender{&zs};

  std::size_t consumed = 0;
  bool stream_end = false;
  auto fail = [&](const std::string& what) {
    const std::int64_t line = 1 + std::count(out.get(), out.get() + produced, '\n');
    throw ParseError(path, line, what);
  };
  while (true) {
    if (produced == capacity) {
      const std::size_t grown = capacity * 2;
      std::unique_ptr<char[]> bigger(new char[grown]);
      std::memcpy(bigger.get(), out.get(), produced);
      out = std::move(bigger);
      capacity = grown;
    }
    const std::size_t in_left = in_size - consumed;
    zs.next_in = const_cast<unsigned char*>(in + consumed);
    zs.avail_in = static_cast<uInt>(std::min<std::size_t>(in_left, std::numeric_limits<uInt>::max()));
    zs.next_out = reinterpret_cast<unsigned char*>(out.get() + produced);
    zs.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity - produced, std::numeric_limits<uInt>::max()));
    const uInt avail_in_before = zs.avail_in, avail_out_before = zs.avail_out;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    consumed += avail_in_before - zs.avail_in;
    produced += avail_out_before - zs.avail_out;
    if (rc == Z_STREAM_END) {
      stream_end = true;
      // Another member follows? (skip trailing zero padding some tools append)
      std::size_t next = consumed;
      while (next < in_size && in[next] == 0) ++next;
      if (next + 2 <= in_size && in[next] == 0x1f && in[next + 1] == 0x8b) {
        consumed = next;
        inflateReset(&zs);
        stream_end = false;
        continue;
      }
      if (next < in_size) fail("trailing garbage after the gzip data");
      break;
    }
    if (rc == Z_BUF_ERROR) {
      if (consumed == in_size && zs.avail_out != 0) break;  // input exhausted mid-stream
      continue;                                             // output full: grow
    }
    if (rc != Z_OK) fail(std::string("corrupt gzip data (zlib: ") + (zs.msg ? zs.msg : "error") + ")");
  }
  if (!stream_end) fail("truncated gzip data (the compressed stream ends before its end marker)");
  return own_buffer(std::move(out), produced);
}

}  // namespace

bool has_gzip_magic(const void* data, std::size_t size) {
  const auto* b = static_cast<const unsigned char*>(data);
  return size >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

FileBytes read_file(const std::string& path, bool inflate, std::size_t max_bytes) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) throw Error("cannot open '" + path + "': " + errno_text());
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw Error("cannot stat '" + path + "': " + errno_text());
  if (S_ISDIR(st.st_mode)) throw Error("'" + path + "' is a directory, not a matrix file");

  FileBytes fb;
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) {
    // A prefix (e.g. for the header only); gzip data is always inflated whole.
    unsigned char magic[2] = {0, 0};
    if (::pread(f.fd, magic, 2, 0) == 2 && has_gzip_magic(magic, 2) && inflate) return read_file(path, inflate);
    auto* raw = new char[max_bytes];
    fb.owner = std::shared_ptr<const char>(raw, [](const char* p) { delete[] p; });
    std::size_t got = 0;
    while (got < max_bytes) {
      const ssize_t n = ::pread(f.fd, raw + got, max_bytes - got, static_cast<off_t>(got));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("cannot read '" + path + "': " + errno_text());
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    fb.data = raw;
    fb.size = got;
    fb.truncated = true;
    return fb;
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const std::size_t size = static_cast<std::size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f.fd, 0);
    if (map == MAP_FAILED) throw Error("cannot map '" + path + "': " + errno_text());
    fb.owner = std::shared_ptr<const char>(static_cast<const char*>(map),
                                           [size](const char* p) { ::munmap(const_cast<char*>(p), size); });
    fb.data = static_cast<const char*>(map);
    fb.size = size;
  } else if (!S_ISREG(st.st_mode)) {
    // A pipe or character device: read until EOF.
    std::vector<char> buf;
    std::size_t used = 0;
    while (true) {
      if (buf.size() - used < (1 << 20)) buf.resize(std::max<std::size_t>(buf.size() * 2, 1 << 22));
      const ssize_t n = ::read(f.fd, buf.data() + used, buf.size() - used);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Error("cannot read '" + path + "': " + errno_text());
      }
      if (n == 0) break;
      used += static_cast<std::size_t>(n);
    }
    auto* raw = new char[std::max<std::size_t>(used, 1)];
    std::memcpy(raw, buf.data(), used);
    fb.owner = std::shared_ptr<const char>(raw, [](const char* p) { delete[] p; });
    fb.data = raw;
    fb.size = used;
  }
  if (inflate && has_gzip_magic(fb.data, fb.size))
    return inflate_gzip(path, reinterpret_cast<const unsigned char*>(fb.data), fb.size);
  return fb;
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw Error("cannot write '" + path + "': it is a directory");
    direct_ = true;  // /dev/null, a FIFO: never rename over a device
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open '" + path + "' for writing: " + errno_text());
    return;
  }
  tmp_path_ = path + ".tmp-XXXXXX";
  std::vector<char> tmpl(tmp_path_.begin(), tmp_path_.end());
  tmpl.push_back('\0');
  fd_ = ::mkstemp(tmpl.data());
  if (fd_ < 0) throw Error("cannot create a temporary file next to '" + path + "': " + errno_text());
  tmp_path_ = tmpl.data();
  ::fchmod(fd_, 0644);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!direct_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, std::min<std::size_t>(bytes, std::size_t(1) << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write '" + path_ + "': " + errno_text());
    }
    p += n;
    bytes -= static_cast<std::size_t>(n);
  }
}

void AtomicFile::commit() {
  if (direct_) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw Error("cannot write '" + path_ + "': " + errno_text());
  }
  fd_ = -1;
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0)
    throw Error("cannot rename the temporary file to '" + path_ + "': " + errno_text());
  tmp_path_.clear();
}

namespace {

constexpr std::uint64_t P1 = 0x9E3779B185EBCA87ULL, P2 = 0xC2B2AE3D27D4EB4FULL, P3 = 0x165667B19E3779F9ULL;
inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t round64(std::uint64_t acc, std::uint64_t v) { return rotl(acc + v * P2, 31) * P1; }
inline std::uint64_t mix(std::uint64_t h) {
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  return h ^ (h >> 32);
}

// xxHash64-style block hash: four independent lanes over 32-byte stripes, then the tail.
std::uint64_t hash_block(const unsigned char* p, std::size_t n, std::uint64_t seed) {
  std::uint64_t a = seed + P1 + P2, b = seed + P2, c = seed, d = seed - P1;
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    std::uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a = round64(a, w[0]);
    b = round64(b, w[1]);
    c = round64(c, w[2]);
    d = round64(d, w[3]);
  }
  std::uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = rotl(h ^ round64(0, w), 27) * P1 + P3;
  }
  for (; i < n; ++i) h = rotl(h ^ (p[i] * P3), 11) * P1;
  return mix(h);
}

}  // namespace

std::uint64_t checksum_block(const void* data, std::size_t bytes, std::uint64_t index) {
  return hash_block(static_cast<const unsigned char*>(data), bytes, index);
}

std::uint64_t checksum_combine(const std::uint64_t* block_hashes, std::size_t blocks, std::size_t total_bytes) {
  return hash_block(reinterpret_cast<const unsigned char*>(block_hashes), blocks * 8, total_bytes);
}

std::uint64_t checksum64(const void* data, std::size_t bytes, int threads) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::int64_t blocks = static_cast<std::int64_t>((bytes + kChecksumBlock - 1) / kChecksumBlock);
  std::vector<std::uint64_t> hashes(static_cast<std::size_t>(blocks));
  if (threads <= 0) threads = omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (blocks > 1)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::size_t start = static_cast<std::size_t>(b) * kChecksumBlock;
    hashes[b] = hash_block(p + start, std::min(kChecksumBlock, bytes - start), static_cast<std::uint64_t>(b));
  }
  return checksum_combine(hashes.data(), hashes.size(), bytes);
}

}  // namespace spkit::io_detail
