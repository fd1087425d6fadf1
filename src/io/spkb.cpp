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
#include <type_traits>
#include <vector>

#include "io/io_util.hpp"
#include "platform/huge_pages.hpp"
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

  // The file is mapped (no read copy); each array is allocated (huge-page hint, pages zeroed by all
  // threads) and filled by one copy straight from the mapping, which avoids the zero-fill pass a
  // resize() would add. The checksums then run in parallel over the filled arrays.
  const io_detail::FileBytes file = io_detail::read_file(path, false);
  if (file.size != expect) throw bad("the file changed size while being read");
  Csr<double> a;
  a.rows = h.rows;
  a.cols = h.cols;
  // With one thread the copy and the hash are fused: each 1 MiB block is appended and then
  // hashed while it is still in cache (one pass over memory less). With more threads the serial copy
  // comes first and the hash runs in parallel afterwards, which is faster there.
  const bool fused = omp_get_max_threads() == 1;
  std::uint64_t sums[3];
  auto fill = [&](auto& v, const Section& sec, std::size_t count, std::uint64_t& sum) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    const T* src = reinterpret_cast<const T*>(file.data + sec.offset);
    v.reserve(count);
    advise_huge_pages(v.data(), count * sizeof(T));
    touch_pages_parallel(v.data(), count * sizeof(T));
    if (!fused) {
      v.assign(src, src + count);
      sum = io_detail::checksum64(v.data(), sec.bytes);
      return;
    }
    constexpr std::size_t per_block = io_detail::kChecksumBlock / sizeof(T);
    std::vector<std::uint64_t> block_hashes((count + per_block - 1) / per_block);
    for (std::size_t b = 0; b < block_hashes.size(); ++b) {
      const std::size_t first = b * per_block, n = std::min(per_block, count - first);
      v.insert(v.end(), src + first, src + first + n);  // within capacity: no reallocation
      block_hashes[b] = io_detail::checksum_block(v.data() + first, n * sizeof(T), b);
    }
    sum = io_detail::checksum_combine(block_hashes.data(), block_hashes.size(), sec.bytes);
  };
  fill(a.row_ptr, secs[0], static_cast<std::size_t>(h.rows) + 1, sums[0]);
  fill(a.col_idx, secs[1], static_cast<std::size_t>(h.nnz), sums[1]);
  fill(a.values, secs[2], static_cast<std::size_t>(h.nnz), sums[2]);
  if (payload_checksum(sums) != h.payload_checksum) throw bad("data checksum mismatch (the file is corrupted)");

  // The checksum guards against damage, not against a crafted file: check the structure too, so a
  // kernel never indexes out of bounds (parallel; cheap next to the read).
  if (a.row_ptr[0] != 0 || a.row_ptr[h.rows] != h.nnz) throw bad("row pointers do not span the entries");
  // Branch-free counting loops (vectorised): columns in range, strictly increasing within rows.
  std::int64_t bad_count = 0;
  const std::int64_t rows = h.rows, nnz = h.nnz;
  const std::uint32_t cols = static_cast<std::uint32_t>(h.cols);
  const std::int64_t* rp = a.row_ptr.data();
  const std::int32_t* ci = a.col_idx.data();
#pragma omp parallel for schedule(static) reduction(+ : bad_count) if (rows > 65536)
  for (std::int64_t i = 0; i < rows; ++i) bad_count += rp[i + 1] < rp[i];
  if (bad_count == 0) {
#pragma omp parallel for schedule(static) reduction(+ : bad_count) if (nnz > 65536)
    for (std::int64_t k = 0; k < nnz; ++k) bad_count += static_cast<std::uint32_t>(ci[k]) >= cols;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : bad_count) if (rows > 65536)
    for (std::int64_t i = 0; i < rows; ++i) {
      std::int64_t bad_row = 0;
      for (std::int64_t k = rp[i] + 1; k < rp[i + 1]; ++k) bad_row += ci[k] <= ci[k - 1];
      bad_count += bad_row;
    }
  }
  const bool ok = bad_count == 0;
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
