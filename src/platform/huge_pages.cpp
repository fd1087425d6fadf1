#include "platform/huge_pages.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <cstdint>

namespace spkit {

void advise_huge_pages(void* data, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  const std::uintptr_t huge = std::uintptr_t(2) << 20;
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // a hint: failure is harmless
#else
  (void)data;
  (void)bytes;
#endif
}

void touch_pages_parallel(void* data, std::size_t bytes) {
  auto* p = static_cast<volatile unsigned char*>(data);
  const std::int64_t pages = static_cast<std::int64_t>(bytes / 4096);
#pragma omp parallel for schedule(static) if (bytes >= (std::size_t(16) << 20))
  for (std::int64_t k = 0; k < pages; ++k) p[static_cast<std::size_t>(k) * 4096] = 0;
}

}  // namespace spkit
