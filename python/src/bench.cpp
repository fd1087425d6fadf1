// spkit._spkit: spkit.bench(), the harness's suite loop (spkit/harness/bench_loop.hpp) with Python's
// arguments converted, the GIL released while it runs, and Ctrl-C or an exception in the progress callback
// stopping it cleanly.
#include "ext_common.hpp"

#include <ctime>
#include <memory>

#include "spkit/config.hpp"
#include "spkit/harness/bench_loop.hpp"
#include "spkit/harness/results.hpp"
#include "spkit/precision.hpp"

namespace spkit_py {

using namespace nb::literals;
namespace harness = spkit::harness;

namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string bench(const std::vector<std::string>& matrices, const std::string& kernels, const std::string& device,
                  const std::string& precision, const std::vector<int>& threads, int reps, int warmup,
                  const std::string& size, bool generated, std::uint64_t seed, const std::string& out,
                  bool measure_bandwidth, nb::object progress, const std::string& command) {
  harness::SuiteRunOptions o;
  try {
    o.device = harness::parse_device_select(device);
  } catch (const spkit::Error&) {
    throw nb::value_error(("device must be \"cpu\", \"gpu\" or \"all\", got \"" + device + "\"").c_str());
  }
  o.precisions = spkit::parse_precisions(precision);
  for (int t : threads)
    if (t < 1) throw nb::value_error("threads must be positive integers");
  if (reps < 1) throw nb::value_error("reps must be at least 1");
  if (warmup < 0) throw nb::value_error("warmup must be >= 0");
  if (!generated && matrices.empty()) throw nb::value_error("nothing to run: generated=False and no matrices");
  o.size = size;
  o.generated = generated;
  o.files = matrices;
  o.seed = seed;
  o.kernels = kernels;
  o.threads = threads;
  o.threads_given = !threads.empty();
  o.reps = reps;
  o.warmup = warmup;
  // What spkit.bench() has always run: every cell at the given reps, no auto rows, no SpGEMM or SpMM
  // section, no fast_matrix_market subprocess.
  o.reps_fixed = true;
  o.all_cells = true;
  o.auto_rows = false;
  o.spgemm = false;
  o.spmm = false;
  o.time_fast_matrix_market = false;
  o.measure_bandwidth = measure_bandwidth;
  o.out = out;

  harness::BenchResults header;
  header.spkit_version = SPKIT_VERSION;
  header.git_commit = "unknown";
  header.created_utc = utc_now();
  header.command = command;
  std::string thread_names;
  for (int t : threads) thread_names += (thread_names.empty() ? "" : ",") + std::to_string(t);
  header.options = {{"size", generated ? size : "none"}, {"kernels", kernels},          {"device", device},
                    {"precision", precision},             {"threads", thread_names},    {"reps", std::to_string(reps)},
                    {"warmup", std::to_string(warmup)},   {"seed", std::to_string(seed)}};

  // Ctrl-C: before every cell the GIL is taken back to ask Python whether a signal arrived and to call
  // `progress`; a Python error from either is kept, stops the run, and is raised once it has stopped.
  std::unique_ptr<nb::python_error> pending;
  o.on_cell = [&](const harness::SuiteCellEvent& e, double) {
    nb::gil_scoped_acquire acquire;
    if (pending) return;
    if (PyErr_CheckSignals() != 0) {
      pending = std::make_unique<nb::python_error>();
      return;
    }
    if (progress.is_none()) return;
    nb::dict event;
    event["matrix"] = e.matrix;
    event["matrix_index"] = e.matrix_index;
    event["matrices"] = e.matrices;
    event["kernel"] = e.kernel->name;
    event["precision"] = std::string(spkit::to_string(e.precision));
    event["threads"] = e.threads;
    event["cell"] = e.cell > 0 ? e.cell - 1 : 0;
    event["cells"] = e.cells;
    try {
      progress(event);
    } catch (nb::python_error& err) {
      pending = std::make_unique<nb::python_error>(std::move(err));
    }
  };
  o.stop = [&] {
    if (pending) return true;
    nb::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) pending = std::make_unique<nb::python_error>();
    return pending != nullptr;
  };

  harness::SuiteRun run;
  {
    nb::gil_scoped_release release;
    run = harness::run_suite(o, std::move(header));
  }
  if (pending) throw *pending;
  return harness::results_to_json(run.results);
}

}  // namespace

void register_bench(nb::module_& m) {
  m.def("bench_row_keys", &harness::row_keys);
  m.def("bench", &bench, "matrices"_a, "kernels"_a, "device"_a, "precision"_a, "threads"_a, "reps"_a, "warmup"_a,
        "size"_a, "generated"_a, "seed"_a, "out"_a, "measure_bandwidth"_a, "progress"_a.none(), "command"_a);
}

}  // namespace spkit_py
