#pragma once
// The bench report (report.html, report.md, plots/*.png) is drawn by scripts/report.py with
// matplotlib; these helpers find and run it, and time fast_matrix_market's reader the same way.
#include <string>
#include <vector>

namespace spkit::harness {

// The first existing file of `candidates` (after $SPKIT_REPORT_SCRIPT), or "" when none exists.
std::string find_report_script(const std::vector<std::string>& candidates);
// The Python interpreter to use: $SPKIT_PYTHON, else "python3".
std::string python_command();
// Runs `python report.py results_json --out out_dir`, its output going to this process's
// stdout/stderr. Returns the exit status (127 when Python could not be started).
int run_report_script(const std::string& script, const std::string& results_json, const std::string& out_dir);
// Seconds of fast_matrix_market's read_coo on `path` (best of `reps`, in a Python subprocess);
// 0 when Python or the package is not available.
double time_fast_matrix_market(const std::string& path, int reps = 3);
// Runs argv (argv[0] looked up in PATH), returns the exit status and fills `out` with its stdout.
int run_capture(const std::vector<std::string>& argv, std::string* out);

}  // namespace spkit::harness
