"""The facts an op-table row may carry: its family and its tags.

A tag is a fact about an op that its schema does not say (whether an op
writes, aliases or works in place is read from the schema, never tagged).
The names follow torch's ``torch.Tag`` where torch has one.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

# The family of an op names the file of its shape rule, its kernel and its
# decomposition: dialects/shape_rules/<family>.py, interpreter/kernels/<family>.py,
# lowering/decompositions/<family>.py.
FAMILIES = (
    "elementwise",  # pointwise maths, activations, fills and copies, dropout
    "reductions",  # sums, means, norms, scans, sorting, softmax
    "linalg",  # matrix products, linear, distances
    "conv_pool",  # convolution, pooling, padding, resampling
    "norms",  # batch, layer, group and instance norm
    "recurrent",  # RNN, LSTM and GRU: whole sequences and single cells
    "losses",  # loss functions
    "indexing",  # gather, scatter, index, masks, data-dependent sizes
    "views",  # views and their copies, reshaping, joining, splitting, dtype changes
    "factories",  # new tensors from sizes or another tensor's metadata, random fills
    "scalars",  # symbolic scalars read from tensors, runtime asserts
)

# Each tag and what it means (torch's name where torch has the fact).
TAGS = {
    # torch's Tag.core: a Core ATen overload (core_aten_ops.txt), an op of the core dialect
    "core": "a Core ATen overload",
    # torch's Tag.pointwise
    "pointwise": "each result element depends on the same element of the inputs",
    # torch's Tag.view_copy, written view_copy=<op>
    "view_copy": "the functional copy of the view <op>: its values, in fresh memory",
    # torch's Tag.inplace_view
    "inplace_view": "changes self's shape or strides in place, not its values",
    # torch's Tag.nondeterministic_seeded
    "nondeterministic_seeded": "draws from the random generator (never Pure)",
    # torch's functionalization decomposes a CompositeImplicitAutograd op that
    # aliases or writes, by its schema or possibly (torch's Tag.maybe_aliasing_or_mutating:
    # dropout returns its input when not training); torch._export.utils._check_valid_to_preserve.
    # Also the ops whose decomposition torch registers as their Autograd kernel
    # (softshrink, hardshrink: ``py_impl(DispatchKey.Autograd)``), which run_decompositions
    # applies even with an empty table.
    "decomposed_by_functionalize": "a CompositeImplicitAutograd op that may alias or write: "
                                   "run_decompositions never keeps it",
    "kept_in_core": "not core, but torch keeps it in core ATen programs: legal at the core level",
    "no_decomposition": "not core, and no decomposition to core on purpose: lowering keeps it",
}

# Tags written with a value (``view_copy=permute``): the value is an op name.
VALUED_TAGS = frozenset({"view_copy"})


class TagError(ValueError):
    pass


@dataclass(frozen=True)
class Facts:
    """The facts of one row: tag names, and the op a ``view_copy`` copies."""

    tags: frozenset[str]
    copied_view: str | None = None


def parse_tags(text: str) -> Facts:
    """``core, pointwise`` or ``view_copy=permute`` -> Facts; an unknown tag is an error."""
    names: set[str] = set()
    copied_view = None
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        if name not in TAGS:
            raise TagError(f"unknown tag {name!r} (known: {', '.join(TAGS)})")
        if bool(value) != (name in VALUED_TAGS):
            raise TagError(f"tag {name!r} {'needs' if name in VALUED_TAGS else 'takes no'} a value")
        names.add(name)
        copied_view = value or copied_view
    return Facts(frozenset(names), copied_view)


def check_family(family: str) -> str:
    if family not in FAMILIES:
        raise TagError(f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
    return family


def import_families(package: str) -> None:
    """Import the module of every family in a layer's ``package`` (each registers
    its entries on import)."""
    for family in FAMILIES:
        importlib.import_module(f"{package}.{family}")
