"""Named results, as torch returns them: ``x.max(0)`` gives ``.values``/``.indices``."""

from __future__ import annotations

from typing import Any, NamedTuple


class minmax_result(NamedTuple):  # noqa: N801 - torch.return_types spelling
    values: Any
    indices: Any


class sort_result(NamedTuple):  # noqa: N801
    values: Any
    indices: Any


class topk_result(NamedTuple):  # noqa: N801
    values: Any
    indices: Any
