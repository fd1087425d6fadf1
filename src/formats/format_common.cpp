#include "spkit/formats/format_common.hpp"

#include "platform/memory.hpp"

namespace spkit {

std::uint64_t effective_budget(const FormatLimits& limits) {
  return limits.memory_budget_bytes ? limits.memory_budget_bytes : available_memory_bytes();
}

}  // namespace spkit
