"""texport.set_num_threads / get_num_threads: the BLAS pool numpy's matmul uses,
with torch's checks and messages (test/parity/test_threads_parity.py compares them)."""

from __future__ import annotations

import numpy as np
import pytest
import threadpoolctl

import texport


def _numpy_blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]


@pytest.fixture
def restored_threads():
    before = texport.get_num_threads()
    yield
    texport.set_num_threads(before)


@pytest.mark.parametrize("count", [1, 2, np.int64(1)])
def test_set_num_threads_sizes_the_blas_pool(restored_threads, count):
    texport.set_num_threads(count)
    assert texport.get_num_threads() == int(count)
    assert _numpy_blas_threads() and set(_numpy_blas_threads()) == {int(count)}


def test_matmul_runs_after_limiting_threads(restored_threads):
    texport.set_num_threads(1)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = (texport.from_numpy(a) @ texport.from_numpy(a.T.copy())).numpy()
    np.testing.assert_array_equal(got, np.array([[14, 38, 62], [38, 126, 214], [62, 214, 366]], np.float32))


@pytest.mark.parametrize(("count", "message"), [
    (0, "set_num_threads expects a positive integer"),
    (-3, "set_num_threads expects a positive integer"),
    (1.5, "set_num_threads expects an int, but got float"),
    ("2", "set_num_threads expects an int, but got str"),
    (True, "set_num_threads expects an int, but got bool"),
])
def test_bad_counts_are_refused_as_torch_does(restored_threads, count, message):
    before = texport.get_num_threads()
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        texport.set_num_threads(count)
    assert texport.get_num_threads() == before
