"""Allocating y on a device array's own device, for out-of-place products on GPU arrays."""
from __future__ import annotations

from typing import Any


def empty_like_device(x: Any, n: int, dtype: str) -> Any:
    """An uninitialised length-`n` array of `dtype` from x's own library, on x's device."""
    module = type(x).__module__.split(".")[0]
    if module == "cupy":
        import cupy

        with cupy.cuda.Device(x.device.id):
            return cupy.empty(n, dtype=dtype)
    if module == "torch":
        import torch

        return torch.empty(n, dtype=getattr(torch, dtype), device=x.device)
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is not None:  # the array API standard
        ns = namespace()
        return ns.empty((n,), dtype=getattr(ns, dtype), device=x.device)
    raise TypeError(
        f"cannot allocate y for a {type(x).__name__} on its device: pass y= (a writable array of {n} {dtype})"
    )
