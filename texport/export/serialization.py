"""``save(ep, f)`` / ``load(f)``: an ExportedProgram as one zip archive.

Nothing in an archive is ever executed: the program is MLIR text (parsed and
verified), arrays are ``.npy`` members read without pickle, and everything
else is plain JSON. Members are stored uncompressed, like torch's ``.pt2``::

    program.mlir                       the module, with op locations (print(ep) shows `# code:`)
    data/weights/weight_<i>.npy        state_dict: parameters and persistent buffers
    data/constants/constant_<i>.npy    non-persistent buffers and lifted constants
    data/example_inputs/input_<i>.npy  the tensors of ep.example_inputs
    extra/<i>                          extra_files, as torch.export.save's
    manifest.json                      written last; lists every other member with its sha256

The manifest (``FORMAT_VERSION`` 1)::

    {"format": "texport", "format_version": 1, "dialect": "TRAINING",
     "members": {"program.mlir": {"sha256": "…", "size": 1234}, …},
     "program": "program.mlir",
     "signature": {"inputs": [{"kind": "PARAMETER", "arg": {"tensor": "p_conv_weight"},
                               "target": "conv.weight", "persistent": null}, …],
                   "outputs": [{"kind": "USER_OUTPUT", "arg": {"tensor": "batch_norm"},
                                "target": null}]},
     "in_spec": <spec>, "out_spec": <spec>,
     "user_input_paths": ["x"], "input_constants": {"flag": 2},
     "forward_signature": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD"}],
     "range_constraints": {"s0": [2, 64]},
     "state_dict": [{"name": "conv.weight", "member": "data/weights/weight_0.npy",
                     "dtype": "float32", "shape": [3, 1, 1, 1], "parameter": true,
                     "requires_grad": true}, …],
     "constants": [...as state_dict...],
     "example_inputs": {"spec": <spec>, "leaves": [{"tensor": {...array...}} | {"value": 3}]},
     "extra_files": {"note.txt": "extra/0"}}

A pytree ``<spec>`` is ``"*"`` for a leaf, else ``{"type": NAME, "context": …,
"children": [<spec>, …]}`` where NAME is the node's serialized type name
(``builtins.tuple``, ``builtins.list``, ``builtins.dict``,
``collections.namedtuple``, ``collections.OrderedDict``,
``collections.defaultdict``, ``collections.deque``) or, for a registered
dataclass or custom node, its ``serialized_type_name`` or else
``module.qualname``. Scalars that JSON cannot hold exactly are objects:
``{"float": "nan"}``, ``{"complex": [re, im]}``; infinite range bounds are
``"oo"`` / ``"-oo"``.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import io
import json
import math
import os
import struct
import sys
import zipfile
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable
from pathlib import Path
from typing IMPORT_PLACEHOLDER
