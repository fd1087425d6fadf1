// Running the Python side of the bench: scripts/report.py and the fast_matrix_market timing.
#include "spkit/harness/report.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace spkit::harness {

namespace fs = std::filesystem;

std::string find_report_script(const std::vector<std::string>& candidates) {
  std::vector<std::string> all;
  if (const char* env = std::getenv("SPKIT_REPORT_SCRIPT")) all.emplace_back(env);
  all.insert(all.end(), candidates.begin(), candidates.end());
  for (const auto& c : all) {
    std::error_code ec;
    if (!c.empty() && fs::is_regular_file(c, ec)) return c;
  }
  return {};
}

std::string python_command() {
  const char* env = std::getenv("SPKIT_PYTHON");
  return env && *env ? env : "python3";
}

namespace {

// fork + execvp; stdout to `pipe_out` when given. Returns the exit status (127: could not start).
int spawn_wait(const std::vector<std::string>& argv, std::string* out) {
  int fds[2] = {-1, -1};
  if (out && ::pipe(fds) != 0) return 127;
  pid_t pid = ::fork();
  if (pid < 0) {
    if (out) ::close(fds[0]), ::close(fds[1]);
    return 127;
  }
  if (pid == 0) {
    if (out) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  if (out) {
    ::close(fds[1]);
    char buf[4096];
    ssize_t got;
    while ((got = ::read(fds[0], buf, sizeof buf)) > 0) out->append(buf, static_cast<std::size_t>(got));
    ::close(fds[0]);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

}  // namespace

int run_capture(const std::vector<std::string>& argv, std::string* out) { return spawn_wait(argv, out); }

int run_report_script(const std::string& script, const std::string& results_json, const std::string& out_dir) {
  return spawn_wait({python_command(), script, results_json, "--out", out_dir}, nullptr);
}

double time_fast_matrix_market(const std::string& path, int reps) {
  // The path goes in as argv[1], never into the program text.
  static const char* program =
      "import sys, time\n"
      "import fast_matrix_market as fmm\n"
      "best = float('inf')\n"
      "for _ in range(int(sys.argv[2])):\n"
      "    t = time.perf_counter(); fmm.read_coo(sys.argv[1]); best = min(best, time.perf_counter() - t)\n"
      "print(repr(best))\n";
  std::string out;
  int rc = spawn_wait({python_command(), "-c", program, path, std::to_string(reps)}, &out);
  if (rc != 0) return 0;
  try {
    double s = std::stod(out);
    return s > 0 ? s : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace spkit::harness
