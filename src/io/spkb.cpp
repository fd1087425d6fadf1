// .spkb: spkit's binary CSR cache. The layout is documented in docs/SPKB.md; keep both in step.
#include "spkit/io/spkb.hpp"

#include <fcntl.h>
#include <omp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "io/io_util.hpp"
#include "spkit/error.hpp"

namespace spkit {

namespace {

constexpr char kMagic[8] = {'S', 'P', 'K', 'B', '\r', '\n', '\x1a', '\n'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kHeaderBytes = 128;
constexpr std::uint32_t kValueFloat64 = 1;
constexpr std::uint32_t kIndexI64RowPtrI32Col = 1;

// On-disk header, little-endian, 128 bytes. Field offsets are fixed by docs/SPKB.md.
struct SpkbHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;
  std::uint32_t value_type;
  std::uint32_t index_type;
  std::int64_t rows;
  std::int64_t cols;
  std::int64_t nnz;
  std::int64_t stored_entries;
  std::uint32_t format;
  std::uint32_t field;
  std::uint32_t symmetry;
  std::uint32_t flags;
  std::uint64_t payload_bytes;
  std::uint64_t payload_checksum;
  std::uint8_t reserved[32];
  std::uint64_t header_checksum;  // checksum64 of the 120 bytes before it
};
static_assert(sizeof(SpkbHeader) == kHeaderBytes, "SPKB header must be 128 bytes");
static_assert(offsetof(SpkbHeader, header_checksum) == 120, "SPKB header layout");

bool little_endian() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

std::size_t pad8(std::size_t n) { return (n + 7) & ~std::size_t(7); }

// The payload: row_ptr (rows+1 int64), col_idx (nnz int32, zero-padded to 8 bytes), values (nnz double).
struct Section {
  void* data;
  std::size_t bytes;      // bytes of data
  std::size_t on_disk;    // bytes including padding
  std::size_t offset;     // file offset
};

std::vector<Section> sections(std::int64_t rows, std::int64_t nnz, void* rp, void* ci, void* va) {
  std::vector<Section> s;
  std::size_t off = kHeaderBytes;
  const std::size_t rp_bytes = static_cast<std::size_t>(rows + 1) * 8, ci_bytes = static_cast<std::size_t>(nnz) * 4,
                    va_bytes = static_cast<std::size_t>(nnz) * 8;
  s.push_back({rp, rp_bytes, rp_bytes, off});
  off += rp_bytes;
  s.push_back({ci, ci_bytes, pad8(ci_bytes), off});
  off += pad8(ci_bytes);
  s.push_back({va, va_bytes, va_bytes, off});
  return s;
}

// Combines the three section checksums (each checksum64 of the section's data bytes).
std::uint64_t payload_checksum(const std::uint64_t (&h)[3]) {
  return io_detail::checksum64(h, sizeof(h), 1);
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

void write_spkb(const std::string& path, const Csr<double>& a, const MmHeader& declared) {
  if (!little_endian()) throw Error(".spkb files are little-endian; this host is not");
  check_csr(a);
  SpkbHeader h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  h.header_bytes = kHeaderBytes;
  h.value_type = kValueFloat64;
  h.index_type = kIndexI64RowPtrI32Col;
  h.rows = a.rows;
  h.cols = a.cols;
  h.nnz = a.nnz();
  h.stored_entries = declared.stored_entries > 0 ? declared.stored_entries : a.nnz();
  h.format = static_cast<std::uint32_t>(declared.format);
  h.field = static_cast<std::uint32_t>(declared.field);
  h.symmetry = static_cast<std::uint32_t>(declared.symmetry);
  auto secs = sections(a.rows, a.nnz(), const_cast<std::int64_t*>(a.row_ptr.data()),
                       const_cast<std::int32_t*>(a.col_idx.data()), const_cast<double*>(a.values.data()));
  std::uint64_t sums[3];
  for (int k = 0; k < 3; ++k) sums[k] = io_detail::checksum64(secs[k].data, secs[k].bytes);
  h.payload_checksum = payload_checksum(sums);
  h.payload_bytes = secs[2].offset + secs[2].on_disk - kHeaderBytes;
  h.header_checksum = io_detail::checksum64(&h, 120, 1);

  io_detail::AtomicFile file(path);
  file.write(&h, sizeof(h));
  static const char zeros[8] = {};
  for (const auto& s : secs) {
    file.write(s.data, s.bytes);
    if (s.on_disk > s.bytes) file.write(zeros, s.on_disk - s.bytes);
  }
  file.commit();
}

bool is_spkb_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char m[8];
  const bool yes = ::pread(fd, m, 8, 0) == 8 && std::memcmp(m, kMagic, 4) == 0;
  ::close(fd);
  return yes;
}

Csr<double> read_spkb(const std::string& path, MmHeader* header_out) {
  if (!little_endian()) throw Error(".spkb files are little-endian; this host is not");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + path + "': " + errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error("cannot stat '" + path + "': " + errno_text());
  const std::uint64_t file_size = static_cast<std::uint64_t>(st.st_size);
  auto bad = [&](const std::string& what) { return Error(path + ": not a valid .spkb file: " + what); };

  SpkbHeader h{};
  if (file_size < kHeaderBytes || ::pread(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h)))
    throw bad("truncated header (" + std::to_string(file_size) + " bytes, the header alone is 128)");
  if (std::memcmp(h.magic, kMagic, 4) != 0) throw bad("wrong magic bytes");
  if (std::memcmp(h.magic, kMagic, 8) != 0) throw bad("magic bytes damaged (a text-mode transfer?)");
  if (h.version != kVersion)
    throw bad("version " + std::to_string(h.version) + " (this spkit reads version " + std::to_string(kVersion) + ")");
  if (io_detail::checksum64(&h, 120, 1) != h.header_checksum) throw bad("header checksum mismatch (corrupted header)");
  if (h.header_bytes != kHeaderBytes || h.value_type != kValueFloat64 || h.index_type != kIndexI64RowPtrI32Col)
    throw bad("unsupported header size, value or index type");
  if (h.rows < 0 || h.cols < 0 || h.nnz < 0 || h.rows > std::numeric_limits<std::int32_t>::max() ||
      h.cols > std::numeric_limits<std::int32_t>::max() || h.nnz > (std::int64_t(1) << 50) || h.field > 2 ||
      h.symmetry > 2 || h.format > 1)
    throw bad("impossible sizes in the header");
  auto secs = sections(h.rows, h.nnz, nullptr, nullptr, nullptr);
  const std::uint64_t expect = secs[2].offset + secs[2].on_disk;
  if (h.payload_bytes + kHeaderBytes != expect) throw bad("payload size disagrees with the header's sizes");
  if (file_size < expect)
    throw bad("truncated: " + std::to_string(file_size) + " bytes, the header announces " + std::to_string(expect));
  if (file_size > expect) throw bad("unexpected " + std::to_string(file_size - expect) + " bytes after the data");

  Csr<double> a;
  a.rows = h.rows;
  a.cols = h.cols;
  a.row_ptr.resize(static_cast<std::size_t>(h.rows) + 1);
  a.col_idx.resize(static_cast<std::size_t>(h.nnz));
  a.values.resize(static_cast<std::size_t>(h.nnz));
  secs = sections(h.rows, h.nnz, a.row_ptr.data(), a.col_idx.data(), a.values.data());

  // Read 1 MiB blocks in parallel straight into the arrays, hashing each block while it is in cache.
  struct Task {
    int section;
    std::size_t block;
  };
  std::vector<Task> tasks;
  std::vector<std::uint64_t> block_hash[3];
  for (int s = 0; s < 3; ++s) {
    const std::size_t blocks = (secs[s].bytes + io_detail::kChecksumBlock - 1) / io_detail::kChecksumBlock;
    block_hash[s].resize(blocks);
    for (std::size_t b = 0; b < blocks; ++b) tasks.push_back({s, b});
  }
  const std::int64_t ntasks = static_cast<std::int64_t>(tasks.size());
  int read_errno = 0;
#pragma omp parallel for schedule(dynamic, 4) if (ntasks > 1)
  for (std::int64_t t = 0; t < ntasks; ++t) {
    const Section& s = secs[tasks[t].section];
    const std::size_t begin = tasks[t].block * io_detail::kChecksumBlock;
    const std::size_t len = std::min(io_detail::kChecksumBlock, s.bytes - begin);
    char* dst = static_cast<char*>(s.data) + begin;
    std::size_t got = 0;
    while (got < len) {
      const ssize_t n = ::pread(fd, dst + got, len - got, static_cast<off_t>(s.offset + begin + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
#pragma omp critical(spkb_read_error)
        read_errno = n < 0 ? errno : EIO;
        break;
      }
      got += static_cast<std::size_t>(n);
    }
    block_hash[tasks[t].section][tasks[t].block] = io_detail::checksum_block(dst, len, tasks[t].block);
  }
  if (read_errno) {
    errno = read_errno;
    throw Error("cannot read '" + path + "': " + errno_text());
  }
  std::uint64_t sums[3];
  for (int s = 0; s < 3; ++s) sums[s] = io_detail::checksum_combine(block_hash[s].data(), block_hash[s].size(), secs[s].bytes);
  if (payload_checksum(sums) != h.payload_checksum) throw bad("data checksum mismatch (the file is corrupted)");

  // The checksum guards against damage, not against a crafted file: check the structure too, so a
  // kernel never indexes out of bounds (parallel; cheap next to the read).
  if (a.row_ptr[0] != 0 || a.row_ptr[h.rows] != h.nnz) throw bad("row pointers do not span the entries");
  bool ok = true;
  const std::int64_t rows = h.rows, cols = h.cols;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (rows > 65536)
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t b = a.row_ptr[i], e = a.row_ptr[i + 1];
    if (e < b || b < 0 || e > h.nnz) {
      ok = false;
      continue;
    }
    std::int32_t prev = -1;
    for (std::int64_t k = b; k < e; ++k) {
      const std::int32_t c = a.col_idx[k];
      ok = ok && c > prev && c < cols;
      prev = c;
    }
  }
  if (!ok) throw bad("row pointers or column indices are inconsistent");
  if (header_out) {
    header_out->format = static_cast<MmFormat>(h.format);
    header_out->field = static_cast<MmField>(h.field);
    header_out->symmetry = static_cast<MmSymmetry>(h.symmetry);
    header_out->rows = h.rows;
    header_out->cols = h.cols;
    header_out->stored_entries = h.stored_entries;
  }
  return a;
}

}  // namespace spkit
