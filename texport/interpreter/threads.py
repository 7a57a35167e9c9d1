"""How many threads the kernels use: ``texport.set_num_threads`` as ``torch.set_num_threads``.

texport's kernels are numpy calls, and numpy's only parallel work is its BLAS
(matmul, and through it linear, conv and bmm); everything else runs on one
thread. So the setting is the BLAS thread pool's size, set through
threadpoolctl (the library numpy and scikit-learn use to control the OpenBLAS,
MKL and BLIS pools they load). It applies to every BLAS loaded when it is
called and lasts until the next call, as torch's does.
"""

from __future__ import annotations

import operator
from typing import Any

_requested: int | None = None  # the last count set, kept for BLAS libraries that load later


def set_num_threads(count: int) -> None:
    """Sets the number of threads the kernels' BLAS calls use (torch's checks and messages)."""
    global _requested
    if isinstance(count, bool):
        raise RuntimeError("set_num_threads expects an int, but got bool")
    try:
        count = operator.index(count)  # ints and numpy integers, as torch takes them
    except TypeError:
        raise RuntimeError(f"set_num_threads expects an int, but got {type(count).__name__}") from None
    if count <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _requested = count
    _limit_blas(count)


def get_num_threads() -> int:
    """The number of threads the kernels' BLAS calls use: the last count set, else the
    BLAS pool's own size (OpenBLAS starts with one thread per core)."""
    if _requested is not None:
        return _requested
    pools = [info["num_threads"] for info in _blas_pools()]
    return min(pools) if pools else 1


def _blas_pools() -> list[dict[str, Any]]:
    import numpy  # noqa: F401 - its BLAS must be loaded for threadpoolctl to see it
    import threadpoolctl

    return [info for info in threadpoolctl.threadpool_info() if info.get("user_api") == "blas"]


def _limit_blas(count: int) -> None:
    import numpy  # noqa: F401 - as above
    import threadpoolctl

    threadpoolctl.threadpool_limits(limits=count, user_api="blas")
