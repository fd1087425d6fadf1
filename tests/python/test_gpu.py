"""spkit.Plan on CUDA with CuPy / DLPack arrays (no host round trip). Skips without a GPU or CuPy."""
from __future__ import annotations

import numpy as np
import pytest

import spkit
from conftest import assert_close

if spkit.gpu_count() == 0:
    pytest.skip(f"no usable GPU (CUDA compiled: {spkit.cuda_compiled()}): GPU tests skipped", allow_module_level=True)
cp = pytest.importorskip("cupy", reason="CuPy not installed: GPU array tests skipped")

CUDA_KERNELS = [k["name"] for k in spkit.kernels("cuda")]


@pytest.mark.parametrize("kernel", CUDA_KERNELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_every_cuda_kernel_with_cupy(kernel, dtype, all_matrices):
    rng = np.random.default_rng(3)
    ran = 0
    for name, A in all_matrices.items():
        try:
            plan = spkit.Plan(A, kernel=kernel, precision=dtype, device="cuda")
        except (spkit.NotApplicable, spkit.TooLarge) as e:
            assert str(e), (kernel, name)
            continue
        x = rng.uniform(-1, 1, A.shape[1]).astype(dtype)
        ref = A @ x.astype(np.float64)
        xd = cp.asarray(x)
        yd = plan(xd)
        assert isinstance(yd, cp.ndarray) and yd.dtype == dtype and yd.shape == (A.shape[0],)
        assert_close(cp.asnumpy(yd), ref, dtype)
        y0 = rng.uniform(-1, 1, A.shape[0]).astype(dtype)
        yd = cp.asarray(y0)
        ptr = yd.data.ptr
        assert plan(xd, yd, alpha=2.0, beta=-0.5) is yd and yd.data.ptr == ptr  # in place, on the device
        assert_close(cp.asnumpy(yd), 2 * ref - 0.5 * y0.astype(np.float64), dtype)
        # Host arrays on a CUDA plan go through the plan's device buffers.
        assert_close(plan(x), ref, dtype)
        ran += 1
    assert ran >= 1, f"{kernel} ran on no matrix"  # formats such as BSR and DIA refuse most matrices, with a reason


def test_auto_on_gpu(all_matrices):
    for name, A in all_matrices.items():
        plan = spkit.Plan(A, device="cuda:0")
        assert plan.backend == "cuda" and plan.kernel in CUDA_KERNELS, name
        x = cp.linspace(-1, 1, A.shape[1])
        assert_close(cp.asnumpy(plan(x)), A @ cp.asnumpy(x), np.float64)


def test_dlpack_capsule_producers():
    """Any DLPack producer works: a CuPy array, and torch when it is installed."""
    A = spkit.generate("lap2d", 20)
    plan = spkit.Plan(A, device="cuda")
    x = cp.arange(A.shape[1], dtype=cp.float64)
    y = cp.empty(A.shape[0])
    plan(cp.from_dlpack(x), y)
    assert_close(cp.asnumpy(y), A @ cp.asnumpy(x), np.float64)
    y[:] = 0
    plan(x.toDlpack(), y)  # a bare DLPack capsule
    assert_close(cp.asnumpy(y), A @ cp.asnumpy(x), np.float64)
    with pytest.raises(TypeError, match="pass y="):  # a capsule says nothing of how to allocate y
        plan(x.toDlpack())
    try:
        import torch
    except ImportError:
        return
    xt = torch.arange(A.shape[1], dtype=torch.float64, device="cuda")
    yt = plan(xt)
    assert isinstance(yt, torch.Tensor) and yt.is_cuda
    assert_close(yt.cpu().numpy(), A @ xt.cpu().numpy(), np.float64)


def test_gpu_bad_inputs():
    A = spkit.generate("lap2d", 10)
    plan = spkit.Plan(A, device="cuda")
    with pytest.raises(TypeError, match="dtype"):
        plan(cp.ones(A.shape[1], dtype=cp.float32))
    with pytest.raises(ValueError, match="elements"):
        plan(cp.ones(A.shape[1] + 1))
    with pytest.raises(ValueError, match="not contiguous"):
        plan(cp.ones(2 * A.shape[1])[::2])
    with pytest.raises(ValueError, match="both be host arrays or both be device"):
        plan(cp.ones(A.shape[1]), np.ones(A.shape[0]))
    cpu_plan = spkit.Plan(A)
    with pytest.raises(ValueError, match="plan runs on the CPU"):
        cpu_plan(cp.ones(A.shape[1]))
    if cp.cuda.runtime.getDeviceCount() > 1:
        with cp.cuda.Device(1):
            x1 = cp.ones(A.shape[1])
        with pytest.raises(ValueError, match="device 1"):
            plan(x1)
