#pragma once
// Internal helpers shared by the Matrix Market, .spkb and vector code: whole-file reads (gzip
// inflated), atomic writes (temporary file + rename) and a fast checksum.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "spkit/formats/csr.hpp"

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

// Resizes a fresh vector to n elements, first asking the kernel for transparent huge pages on its
// storage (reserve, madvise(MADV_HUGEPAGE), then resize). Large buffers are otherwise filled one 4 KiB
// page fault at a time, which on a VM costs more than parsing the data (measured: docs/perf/io.md).
// The first write to each page of fresh memory is also done by all threads (the kernel zeroes pages
// at first touch, and resize() alone would do that on one thread).
void advise_huge_pages(void* data, std::size_t bytes);
void touch_pages_parallel(void* data, std::size_t bytes);
template <class T>
void resize_huge(std::vector<T>& v, std::size_t n) {
  static_assert(std::is_trivially_copyable<T>::value, "raw storage is touched before the elements exist");
  if (n * sizeof(T) >= (std::size_t(4) << 20) && v.capacity() < n) {
    v.clear();
    v.shrink_to_fit();
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
    touch_pages_parallel(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

// 64-bit checksum of a byte range; parallel over 1 MiB blocks (block hashes combined in order), so
// the result does not depend on the thread count. Several GB/s per core.
std::uint64_t checksum64(const void* data, std::size_t bytes, int threads = 0);
// The pieces of checksum64, for hashing while reading: the hash of block `index` (bytes
// [index * kChecksumBlock, ...)), and the final combination of all block hashes.
constexpr std::size_t kChecksumBlock = std::size_t(1) << 20;
std::uint64_t checksum_block(const void* data, std::size_t bytes, std::uint64_t index);
std::uint64_t checksum_combine(const std::uint64_t* block_hashes, std::size_t blocks, std::size_t total_bytes);

// Row buckets of the general COO->CSR path (src/formats/csr.cpp), filled by the Matrix Market parser
// when it does that path's distribution itself (load_matrix on a general file in random order).
// Bucket b holds rows [b << shift, (b + 1) << shift); an entry is the key (row - (b << shift)) << col_bits
// | column and its value.
struct BucketLayout {
  int shift = 0, col_bits = 0;
  std::int64_t buckets = 0;
};
// The conversion's layout for a rows x cols matrix; false when a key would not fit 32 bits.
bool packed_bucket_layout(std::int64_t rows, std::int64_t cols, BucketLayout& out);
// What the Matrix Market reader's bucketed route (load_matrix, parse_matrix_market_csr on a general file
// in random order) did since the process started, for tests: parses that took it, and parses that left
// it for the COO route after pass 2 placed other entries than pass 1 counted (a bug if ever non-zero:
// the two passes must tell lines apart the same way).
struct BucketRouteCounts {
  std::int64_t taken = 0, fell_back = 0;
};
BucketRouteCounts bucket_route_counts();

// Sorts the row buckets a parser placed in csr's own arrays into CSR: csr.col_idx[bucket_start[b],
// bucket_start[b + 1]) holds bucket b's keys ((row - (b << shift)) << col_bits | column, as 32-bit
// patterns) in input order and csr.values their values. Sets row_ptr; columns end sorted, duplicates
// summed in input order, as coo_to_csr gives from the same entries in that order.
void sort_buckets_in_place(Csr<double>& csr, const BucketLayout& layout, const std::vector<std::int64_t>& bucket_start,
                           int threads);

}  // namespace spkit::io_detail

namespace spkit {
// coo_to_csr that may take over coo's column and value arrays (defined in src/formats/csr.cpp).
Csr<double> coo_to_csr_consume(Coo<double>&& coo);
}  // namespace spkit
