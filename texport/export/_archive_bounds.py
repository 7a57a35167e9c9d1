"""Bounds checked on an archive's text before json, numpy or sympy see it.

An archive comes from anywhere: these checks are linear in the text and decide
whether the expensive readers may run at all (json's decoder recurses per
bracket; numpy allocates what an .npy header declares). Dims are bounded by the
IR's own dim parser (texport.dialects.symbolic).
"""

from __future__ import annotations

import re

import numpy as np

MAX_MANIFEST_BYTES = 16 << 20  # a 10,000-tensor model's manifest is about 3 MB
MAX_PROGRAM_BYTES = 256 << 20  # the IR text; xDSL's objects take ~10x more
MAX_JSON_DEPTH = 128  # a pytree spec is 2 levels per node: 60 nested containers
MAX_SPEC_DEPTH = 60
MAX_NPY_HEADER_BYTES = 10_000  # numpy's own read_array_header limit
MAX_NPY_DIMS = 32
# A JSON string, or an unterminated one running to the end (a lone backslash last
# included): always matches at a '"', each character consumed once, never backtracking.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\[\s\S][^"\\]*)*(?:"|\\?\Z)')
_OPENERS = np.frombuffer(b"[{", np.uint8)
_CLOSERS = np.frombuffer(b"]}", np.uint8)


def json_depth(text: str) -> int:
    """How deeply ``text``'s arrays and objects nest (brackets inside strings ignored)."""
    skeleton = np.frombuffer(_JSON_STRING.sub("", text).encode("utf-8"), np.uint8)
    steps = np.isin(skeleton, _OPENERS).astype(np.int64) - np.isin(skeleton, _CLOSERS)
    return int(np.cumsum(steps).max(initial=0))
