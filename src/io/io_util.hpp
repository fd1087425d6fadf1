#pragma once
// Internal helpers shared by the Matrix Market, .spkb and vector code: whole-file reads (gzip
// inflated), atomic writes (temporary file + rename) and a fast checksum.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>


namespace spkit::io_detail {

// A file's bytes in memory: a plain file is mapped read-only (pages fault in as the parsing threads
// read them, so in parallel); gzip data
// (detected by its magic bytes) is inflated into a heap buffer.
struct FileBytes {
  std::shared_ptr<const char> owner;  // heap buffer or read-only mapping
  const char* data = nullptr;
  std::size_t size = 0;
  bool was_gzip = false;
  bool truncated = false;  // only the first max_bytes of a plain file were read
  std::string_view view() const { return {data, size}; }
};

FileBytes read_file(const std::string& path, bool inflate_gzip = true,
                    std::size_t max_bytes = static_cast<std::size_t>(-1));
bool has_gzip_magic(const void* data, std::size_t size);

// Writes a file under a temporary name in the same directory and renames it over `path` on commit().
// When destroyed without commit() (an exception), the temporary is removed: no partial output.
// A path that exists and is not a regular file (/dev/null, a FIFO) is written directly.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void commit();

 private:
  std::string path_;
  std::string tmp_path_;
  int fd_ = -1;
  bool direct_ = false;
};

// 64-bit checksum of a byte range; parallel over 1 MiB blocks (block hashes combined in order), so
// the result does not depend on the thread count. Several GB/s per core.
std::uint64_t checksum64(const void* data, std::size_t bytes, int threads = 0);
// The pieces of checksum64, for hashing while reading: the hash of block `index` (bytes
// [index * kChecksumBlock, ...)), and the final combination of all block hashes.
constexpr std::size_t kChecksumBlock = std::size_t(1) << 20;
std::uint64_t checksum_block(const void* data, std::size_t bytes, std::uint64_t index);
std::uint64_t checksum_combine(const std::uint64_t* block_hashes, std::size_t blocks, std::size_t total_bytes);

}  // namespace spkit::io_detail
