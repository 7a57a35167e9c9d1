"""The one seeded generator every random kernel draws from.

PCG64 gives the same stream on every platform, so ``manual_seed(0); randn(3)``
is reproducible across runs and machines (not equal to torch's stream)."""

from __future__ import annotations

import numpy as np

_state: list[np.random.Generator] = [np.random.Generator(np.random.PCG64(0))]


def manual_seed(seed: int) -> np.random.Generator:
    _state[0] = np.random.Generator(np.random.PCG64(seed))
    return _state[0]


def generator() -> np.random.Generator:
    return _state[0]
