#pragma once
// spkit's exceptions. Library code throws these with a message a user can act on; the CLI catches
// them at the top, prints one line and exits non-zero. Nothing in the library prints or exits.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace spkit {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed input: names the source (file path or "<buffer>") and the 1-based line.
class ParseError : public Error {
 public:
  ParseError(std::string source, std::int64_t line, const std::string& what)
      : Error(source + ":" + std::to_string(line) + ": " + what), source_(std::move(source)), line_(line) {}
  const std::string& source() const { return source_; }
  std::int64_t line() const { return line_; }

 private:
  std::string source_;
  std::int64_t line_;
};

// A structure would need more memory than allowed (or than an index type can address).
class TooLarge : public Error {
 public:
  TooLarge(const std::string& what, std::uint64_t bytes_needed)
      : Error(what + " (would need " + std::to_string(bytes_needed) + " bytes)"), bytes_(bytes_needed) {}
  std::uint64_t bytes_needed() const { return bytes_; }

 private:
  std::uint64_t bytes_;
};

// A kernel that does not apply to this matrix (e.g. BSR without a block structure worth it).
class NotApplicable : public Error {
 public:
  using Error::Error;
};

// A failed CUDA / cuSPARSE call: names the call and the error string.
class DeviceError : public Error {
 public:
  DeviceError(const std::string& call, const std::string& what) : Error(call + ": " + what), call_(call) {}
  const std::string& call() const { return call_; }

 private:
  std::string call_;
};

}  // namespace spkit
