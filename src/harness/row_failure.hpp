#pragma once
// What an exception thrown by a kernel's plan or run means for its benchmark row, shared by run_spmv and
// run_spgemm: refusals (NotApplicable, TooLarge, DeviceError, out of memory) make a "skipped" row with the
// reason; anything else is "FAILED". Call from inside a catch (...) block.
#include <exception>
#include <new>
#include <string>

#include "spkit/error.hpp"

namespace spkit::harness_detail {

// A row's note with another part after it ("a; b"), either may be empty.
inline std::string join_note(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "; " + b;
}

struct RowFailure {
  std::string status;  // "skipped" or "FAILED"
  std::string note;
};

// `what_failed` names the step in the FAILED note ("plan", "run"); `oom_note` is the out-of-memory note.
inline RowFailure current_row_failure(const char* what_failed, const char* oom_note) {
  try {
    throw;
  } catch (const NotApplicable& e) {
    return {"skipped", std::string("not applicable: ") + e.what()};
  } catch (const TooLarge& e) {
    return {"skipped", std::string("too large: ") + e.what()};
  } catch (const DeviceError& e) {
    return {"skipped", std::string("device error: ") + e.what()};
  } catch (const std::bad_alloc&) {
    return {"skipped", oom_note};
  } catch (const std::exception& e) {
    return {"FAILED", std::string(what_failed) + " failed: " + e.what()};
  }
}

}  // namespace spkit::harness_detail
