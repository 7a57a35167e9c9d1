"""What a shape rule sees and returns: tensor metadata over symbolic dims."""

from __future__ import annotations

from dataclasses import dataclass, field

from .dtypes import DType
from .symbolic import Dim, dim_str


@dataclass(frozen=True, slots=True)
class TensorMeta:
    """Shape and dtype of a tensor. A dim is an int, a sympy expression, or
    None for a data-dependent size that the caller fills with a fresh unbacked
    symbol (nonzero, masked_select, unique).

    ``strides`` are the element strides torch gives the tensor, None when they
    are the row-major ones (most tensors). They are how the value was made, not
    a fact of its shape: the tracer fills them from the stride rules
    (shape_rules/strides.py); shape rules ignore them and leave them out of
    their results, and two metas of one shape and dtype compare equal."""

    shape: tuple[Dim | None, ...]
    dtype: DType
    strides: tuple[Dim, ...] | None = field(default=None, compare=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def numel(self) -> Dim:
        total: Dim = 1
        for size in self.shape:
            total = total * size
        return total

    def __repr__(self) -> str:
        dims = ", ".join("?" if d is None else dim_str(d) for d in self.shape)
        return f"{self.dtype.short_name}[{dims}]"


@dataclass(frozen=True, slots=True)
class ScalarMeta:
    """A symbolic scalar result (item, sym_size): kind 'int' | 'float' | 'bool',
    and its value when known (an int or a sympy expression), else None."""

    kind: str
    value: object = None
