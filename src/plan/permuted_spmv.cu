// The CUDA side of the permuted plan (src/plan/permuted_spmv.hpp): gather x' = P x and scatter
// y = P^T y' + beta y, one thread per row each, enqueued on the caller's stream around the inner kernel.
// Both passes read at random and write in order: the scatter is computed as y[j] = y'[new_of_old[j]]
// + beta y[j], not as y[old_of_new[i]] = y'[i], because scattered 4- and 8-byte stores each cost a
// partial 32-byte sector. Measured (H200, ncu, fp64, RCM plans of 16M non-zeros): the scattering form took
// 49 us on a geometric graph (1.78M rows) and 150 us on a planar road graph (4.8M rows), against 18 and
// 69 us for the gather of x over the same rows (docs/perf/spmv-gpu.md, stop 43).
#include "kernels/cuda/cuda_common.cuh"
#include "plan/permuted_spmv.hpp"

#include <vector>

namespace spkit::plan_detail {
namespace {

template <class T>
__global__ void gather_kernel(const T* __restrict__ x, const std::int32_t* __restrict__ old_of_new, T* __restrict__ xp,
                              std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) xp[i] = x[old_of_new[i]];
}

template <class T>
__global__ void scatter_kernel(const T* __restrict__ yp, const std::int32_t* __restrict__ new_of_old, T beta, T* y,
                               std::int64_t n) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const T v = yp[new_of_old[j]];
  y[j] = beta == T(0) ? v : v + beta * y[j];  // beta == 0: y not read (may hold NaN)
}

// Row blocks: one thread per (row, column), the k columns of a row adjacent (coalesced for k >= 8).
template <class T>
__global__ void gather_rows_kernel(const T* __restrict__ x, std::int64_t ldx, std::int64_t k,
                                   const std::int32_t* __restrict__ old_of_new, T* __restrict__ xp, std::int64_t n) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n * k) return;
  const std::int64_t i = t / k, c = t % k;
  xp[t] = x[static_cast<std::int64_t>(old_of_new[i]) * ldx + c];
}

template <class T>
__global__ void scatter_rows_kernel(const T* __restrict__ yp, std::int64_t k, const std::int32_t* __restrict__ new_of_old,
                                    T beta, T* y, std::int64_t ldy, std::int64_t n) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n * k) return;
  const std::int64_t j = t / k, c = t % k;
  const T v = yp[static_cast<std::int64_t>(new_of_old[j]) * k + c];
  T* out = y + j * ldy + c;
  *out = beta == T(0) ? v : v + beta * *out;
}

template <class T>
class CudaPermutedPlan final : public SpmvPlan<T>, public RenumberedPlan<T> {
 public:
  CudaPermutedPlan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p, Ordering ordering, int device)
      : inner_(std::move(inner)), host_old_of_new_(p.old_of_new), host_new_of_old_(inverse_of(p)), ordering_(ordering),
        device_(device), n_(p.size()) {
    cuda::set_device(device_);
    const std::size_t n = static_cast<std::size_t>(n_);
    old_of_new_ = cuda::DeviceBuffer<std::int32_t>(p.old_of_new, "permutation");
    new_of_old_ = cuda::DeviceBuffer<std::int32_t>(host_new_of_old_, "inverse permutation");
    xp_ = cuda::DeviceBuffer<T>(n, "permuted x");
    yp_ = cuda::DeviceBuffer<T>(n, "permuted y");
    const cuda::DeviceProps& props = cuda::device_props(device_);
    block_ = cuda::default_block_threads(props);
    blocks_ = n_ > 0 ? cuda::blocks_for(n_, block_, props) : 0;
  }

  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    if (n_ == 0) return;
    gather(x, xp_.get(), stream);
    inner_->run(alpha, xp_.get(), T(0), yp_.get(), stream);
    scatter(yp_.get(), beta, y, stream);
  }
  SpmvPlan<T>& inner() override { return *inner_; }
  const std::vector<std::int32_t>& old_of_new() const override { return host_old_of_new_; }
  const std::vector<std::int32_t>& new_of_old() const override { return host_new_of_old_; }
  void gather(const T* user, T* plan, Stream stream) override {
    if (n_ == 0) return;
    gather_kernel<T><<<static_cast<unsigned>(blocks_), block_, 0, cuda::cuda_stream(stream)>>>(
        user, old_of_new_.get(), plan, n_);
    SPKIT_LAUNCH_CHECK("permuted plan gather");
  }
  void scatter(const T* plan, T beta, T* user, Stream stream) override {
    if (n_ == 0) return;
    scatter_kernel<T><<<static_cast<unsigned>(blocks_), block_, 0, cuda::cuda_stream(stream)>>>(
        plan, new_of_old_.get(), beta, user, n_);
    SPKIT_LAUNCH_CHECK("permuted plan scatter");
  }
  void gather_rows(const T* user, std::int64_t ld_user, std::int64_t k, T* plan, Stream stream) override {
    if (n_ == 0 || k == 0) return;
    gather_rows_kernel<T><<<static_cast<unsigned>(row_blocks(k)), block_, 0, cuda::cuda_stream(stream)>>>(
        user, ld_user, k, old_of_new_.get(), plan, n_);
    SPKIT_LAUNCH_CHECK("permuted plan row gather");
  }
  void scatter_rows(const T* plan, std::int64_t k, T beta, T* user, std::int64_t ld_user, Stream stream) override {
    if (n_ == 0 || k == 0) return;
    scatter_rows_kernel<T><<<static_cast<unsigned>(row_blocks(k)), block_, 0, cuda::cuda_stream(stream)>>>(
        plan, k, new_of_old_.get(), beta, user, ld_user, n_);
    SPKIT_LAUNCH_CHECK("permuted plan row scatter");
  }
  Backend backend() const override { return Backend::cuda; }
  std::uint64_t bytes_moved() const override { return inner_->bytes_moved() + permutation_bytes<T>(n_); }
  std::string detail() const override { return permuted_detail(inner_->detail(), ordering_); }
  double optimize_ms() const override { return inner_->optimize_ms(); }

 private:
  std::int64_t row_blocks(std::int64_t k) const { return cuda::blocks_for(n_ * k, block_, cuda::device_props(device_)); }

  std::unique_ptr<SpmvPlan<T>> inner_;
  // For the passes on host pointers (Plan::to_plan_numbering).
  std::vector<std::int32_t> host_old_of_new_, host_new_of_old_;
  Ordering ordering_;
  int device_ = 0;
  std::int64_t n_ = 0;
  cuda::DeviceBuffer<std::int32_t> old_of_new_, new_of_old_;  // the scatter reads the inverse
  cuda::DeviceBuffer<T> xp_, yp_;  // x and y in the plan's numbering
  int block_ = 256;
  std::int64_t blocks_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<SpmvPlan<T>> make_cuda_permuted_plan(std::unique_ptr<SpmvPlan<T>> inner, const Permutation& p,
                                                     Ordering ordering, int device) {
  return std::make_unique<CudaPermutedPlan<T>>(std::move(inner), p, ordering, device);
}

template std::unique_ptr<SpmvPlan<float>> make_cuda_permuted_plan(std::unique_ptr<SpmvPlan<float>>, const Permutation&,
                                                                  Ordering, int);
template std::unique_ptr<SpmvPlan<double>> make_cuda_permuted_plan(std::unique_ptr<SpmvPlan<double>>,
                                                                   const Permutation&, Ordering, int);

}  // namespace spkit::plan_detail
