#pragma once
// Fresh large buffers filled fast: transparent huge pages asked for, first touch spread over all threads.
// Used by the readers and by the format conversions, whose outputs are the largest fresh memory they touch.
#include <cstddef>
#include <type_traits>
#include <vector>

namespace spkit {

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

}  // namespace spkit
