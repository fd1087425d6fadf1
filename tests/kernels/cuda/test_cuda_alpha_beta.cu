// The CUDA side of the kernel contract: every CUDA kernel computes y = alpha*A*x + beta*y on device
// pointers, enqueues all its work on the stream it is given (a non-blocking one here, which does not
// synchronize with the legacy default stream) and never reads y when beta == 0 (y poisoned with NaN).
// The second test captures run() into a CUDA graph: work sent to another stream, or a synchronizing call,
// either fails the capture or is missing from the replayed graph.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/device.hpp"
#include "spkit/error.hpp"
#include "spkit/kernel.hpp"

namespace spkit::test {
namespace {

// A cudaStreamNonBlocking stream, destroyed at scope exit.
struct OwnStream {
  cudaStream_t s = nullptr;
  OwnStream() { SPKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~OwnStream() { cudaStreamDestroy(s); }
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
};

// Matrices that reach every multi-pass scheme: rows longer than binned's long-row threshold (1024) and
// than a merge-path tile, sub-warp and stream bins, empty rows; a symmetric band (DIA, DIA.sym, bmSparse);
// 3x3 blocks with a partial last block row (cuSPARSE BSR's padded x and y); a matrix with no non-zeros.
std::vector<NamedMatrix> contract_matrices() {
  std::vector<NamedMatrix> ms;
  {
    std::vector<std::int64_t> len(3001);
    for (std::size_t i = 0; i < len.size(); ++i) len[i] = i % 4 == 0 ? (i * 37) % 300 : (i * 7) % 13;
    len[17] = 5000;
    len[2222] = 2600;
    ms.push_back({"mixed_long_rows_3001", random_rows(3001, 5003, len, 41)});
  }
  ms.push_back({"symmetric_band_779", banded_csr(779, 779, {-40, -3, -1, 0, 1, 3, 40}, true, 5)});
  {
    const std::int32_t block_rows = 200, block_cols = 199;
    std::vector<std::vector<std::int32_t>> cols(static_cast<std::size_t>(3 * block_rows - 1));
    for (std::int32_t r = 0; r < 3 * block_rows - 1; ++r)
      for (const std::int32_t bc : {r / 3, (r / 3 + 7) % block_cols, (r / 3 + 61) % block_cols})
        for (std::int32_t c = 0; c < 3; ++c)
          if (3 * bc + c < 3 * block_cols - 2) cols[static_cast<std::size_t>(r)].push_back(3 * bc + c);
    ms.push_back({"blocks_3x3_599", random_csr(3 * block_rows - 1, 3 * block_cols - 2, 43, cols)});
  }
  ms.push_back({"no_nonzeros_37", random_rows(37, 29, std::vector<std::int64_t>(37, 0), 1)});
  return ms;
}

// alpha*A*x + beta*y0 in double from the T-rounded inputs, and a tolerance per row that grows with the
// row's length and magnitude in T's precision.
template <class T>
struct Expected {
  std::vector<double> y, tol;
};
template <class T>
Expected<T> expected(const Csr<T>& a, const std::vector<T>& x, T alpha, T beta, const std::vector<T>& y0) {
  Expected<T> e;
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double sum = 0, mag = 0;
    for (std::int64_t j = a.row_ptr[i]; j < a.row_ptr[i + 1]; ++j) {
      sum += static_cast<double>(a.values[j]) * static_cast<double>(x[a.col_idx[j]]);
      mag += std::abs(static_cast<double>(a.values[j]) * static_cast<double>(x[a.col_idx[j]]));
    }
    const double old = beta == T(0) ? 0.0 : static_cast<double>(beta) * static_cast<double>(y0[i]);
    e.y.push_back(static_cast<double>(alpha) * sum + old);
    const double n = static_cast<double>(a.row_length(i)) + 4;
    e.tol.push_back(4 * eps * n * (std::abs(static_cast<double>(alpha)) * mag + std::abs(old)) + 1e-30);
  }
  return e;
}

// Rows of y outside their tolerance (NaN included); appends the first few to `report`.
template <class T>
std::int64_t bad_rows(const std::vector<T>& y, const Expected<T>& e, std::string& report) {
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double d = std::abs(static_cast<double>(y[i]) - e.y[i]);
    if (!(d <= e.tol[i])) {
      if (bad++ < 3) report += " row " + std::to_string(i) + ": " + std::to_string(y[i]) + " vs " + std::to_string(e.y[i]);
    }
  }
  return bad;
}

struct Scalars {
  double alpha, beta;
};
// beta = 0 runs start from a NaN-poisoned y: any read of y shows.
const Scalars kScalars[] = {{-0.5, 2.0}, {-0.5, 0.0}, {1.0, 0.0}, {2.0, 1.0}};

template <class T>
void check_kernel_on(const KernelInfo& k, const NamedMatrix& m) {
  const Csr<T> a = csr_cast<T>(m.a);
  std::unique_ptr<SpmvPlan<T>> plan;
  try {
    plan = k.factory<T>()(a, PlanOptions{});
  } catch (const NotApplicable&) {
    return;
  }
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(k.name + " on " + m.name + (sizeof(T) == 4 ? " (float)" : " (double)") + ", seed " + std::to_string(seed));
  const auto xd = random_vector(a.cols, seed);
  const auto yd = random_vector(a.rows, seed + 1);
  const std::vector<T> x(xd.begin(), xd.end()), y0(yd.begin(), yd.end());
  OwnStream stream;
  cuda::DeviceBuffer<T> dx(x, "x"), dy(static_cast<std::size_t>(a.rows), "y");
  for (const Scalars& sc : kScalars) {
    const T alpha = static_cast<T>(sc.alpha), beta = static_cast<T>(sc.beta);
    SCOPED_TRACE("alpha " + std::to_string(sc.alpha) + ", beta " + std::to_string(sc.beta));
    if (a.rows > 0) {
      if (beta == T(0)) SPKIT_CUDA_CHECK(cudaMemsetAsync(dy.get(), 0xff, dy.bytes(), stream.s));  // NaN
      else SPKIT_CUDA_CHECK(cudaMemcpyAsync(dy.get(), y0.data(), dy.bytes(), cudaMemcpyHostToDevice, stream.s));
    }
    for (int rep = 0; rep < 2; ++rep) {  // twice: a plan's per-product state (tickets, carries) resets
      if (rep == 1 && a.rows > 0 && beta != T(0))
        SPKIT_CUDA_CHECK(cudaMemcpyAsync(dy.get(), y0.data(), dy.bytes(), cudaMemcpyHostToDevice, stream.s));
      plan->run(alpha, dx.get(), beta, dy.get(), Stream{stream.s});
      std::vector<T> y(static_cast<std::size_t>(a.rows));
      if (a.rows > 0)
        SPKIT_CUDA_CHECK(cudaMemcpyAsync(y.data(), dy.get(), dy.bytes(), cudaMemcpyDeviceToHost, stream.s));
      SPKIT_CUDA_CHECK(cudaStreamSynchronize(stream.s));
      std::string report;
      EXPECT_EQ(bad_rows(y, expected(a, x, alpha, beta, y0), report), 0) << "run " << rep << ":" << report;
    }
  }
}

TEST(CudaAlphaBeta, EveryKernelOnItsOwnStream) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: alpha/beta check compiled but not run";
  const auto ms = contract_matrices();
  for (const auto& k : registry().all()) {
    if (k.backend != Backend::cuda) continue;
    for (const auto& m : ms) {
      check_kernel_on<double>(k, m);
      check_kernel_on<float>(k, m);
    }
  }
}

// run() captured into a graph on a non-blocking stream, then the graph replayed from a fresh y: what run()
// enqueued elsewhere ran during the capture and is missing from the replay; a synchronizing call fails the
// capture (DeviceError from the kernel's own check, or an error status here).
TEST(CudaAlphaBeta, RunEnqueuesOnlyOnItsStream) {
  if (gpu_count() == 0) GTEST_SKIP() << "no CUDA device on this machine: alpha/beta check compiled but not run";
  const auto ms = contract_matrices();
  for (const auto& k : registry().all()) {
    if (k.backend != Backend::cuda) continue;
    for (const auto& m : ms) {
      if (m.a.nnz() == 0) continue;
      std::unique_ptr<SpmvPlan<double>> plan;
      try {
        plan = k.factory<double>()(m.a, PlanOptions{});
      } catch (const NotApplicable&) {
        continue;
      }
      SCOPED_TRACE(k.name + " on " + m.name);
      const std::uint64_t seed = fresh_seed();
      const auto x = random_vector(m.a.cols, seed), y0 = random_vector(m.a.rows, seed + 1);
      OwnStream stream;
      cuda::DeviceBuffer<double> dx(x, "x"), dy(y0, "y");
      plan->run(-0.5, dx.get(), 2.0, dy.get(), Stream{stream.s});  // first run outside: lazy set-up (texture)
      ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
      cudaGraph_t graph = nullptr;
      ASSERT_EQ(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
      try {
        plan->run(-0.5, dx.get(), 2.0, dy.get(), Stream{stream.s});
      } catch (const DeviceError& e) {
        ADD_FAILURE() << "run() during capture: " << e.what();
      }
      const cudaError_t end = cudaStreamEndCapture(stream.s, &graph);
      if (end != cudaSuccess) {
        ADD_FAILURE() << "capture invalidated: " << cudaGetErrorString(end);
        cudaGetLastError();
        continue;
      }
      cudaGraphExec_t exec = nullptr;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      dy.upload(y0.data(), y0.size());
      ASSERT_EQ(cudaGraphLaunch(exec, stream.s), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
      const std::vector<double> y = dy.to_host();
      std::string report;
      EXPECT_EQ(bad_rows(y, expected(m.a, x, -0.5, 2.0, y0), report), 0) << report;
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
  }
}

}  // namespace
}  // namespace spkit::test
