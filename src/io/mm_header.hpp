#pragma once
// The Matrix Market header: the banner, comment lines and the size line, read serially before the body.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "spkit/io/matrix_market.hpp"

namespace spkit::io_detail {

struct ParsedHeader {
  MmHeader header;
  std::size_t body_offset = 0;  // first byte after the size line
  std::int64_t body_first_line = 0;  // 1-based number of the line starting at body_offset
};

// The banner and size line of `text` (`src` names it in errors); throws ParseError at the offending line,
// also for gzip, .spkb or binary data where text was expected.
ParsedHeader parse_header(std::string_view text, const std::string& src);

}  // namespace spkit::io_detail
