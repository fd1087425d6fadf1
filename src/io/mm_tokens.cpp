// Pieces of the input quoted in the reader's error messages.
#include "io/mm_tokens.hpp"

namespace spkit::io_detail {

std::string quote(std::string_view s) {
  std::string out = "'";
  std::size_t shown = 0;
  for (char c : s) {
    if (shown++ == 24) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out + "'";
}

// The token starting at p (up to the next blank or line end).
std::string_view token_at(const char* p, const char* end) {
  const char* q = p;
  while (q < end && !is_blank(*q) && *q != '\n') ++q;
  return {p, static_cast<std::size_t>(q - p)};
}

}  // namespace spkit::io_detail
