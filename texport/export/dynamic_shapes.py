"""``texport.export.dynamic_shapes``: the dynamic-shape spec (torch.export.dynamic_shapes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from texport.tracer.dynamic_shapes import (
    AdditionalInputs,
    Dim,
    ShapesCollection,
    dims,
    refine_dynamic_shapes_from_suggested_fixes,
)


@dataclass
class _ConstraintTarget:
    """One dim of one input tensor: ``t_id`` (the tensor's id) and ``dim``."""

    t_id: int
    dim: int


@dataclass
class _Constraint(_ConstraintTarget):
    """A range on an input dim (torch's constraint objects, from before Dim specs):
    ``constraint_range`` is (min, max), ``shared`` another dim it must equal."""

    constraint_range: tuple[int, Any] = (0, None)
    shared: _ConstraintTarget | None = None
    debug_name: str | None = None

    def _clone_with_range(self, lower: int = 0, upper: Any = None) -> _Constraint:
        low, high = self.constraint_range
        upper = high if upper is None else upper if high is None else min(high, upper)
        return _Constraint(self.t_id, self.dim, (max(low, lower), upper), self.shared, self.debug_name)

    def __ge__(self, lower: int) -> _Constraint:  # type: ignore[override]
        return self._clone_with_range(lower=lower)

    def __gt__(self, lower: int) -> _Constraint:  # type: ignore[override]
        return self._clone_with_range(lower=lower + 1)

    def __le__(self, upper: int) -> _Constraint:  # type: ignore[override]
        return self._clone_with_range(upper=upper)

    def __lt__(self, upper: int) -> _Constraint:  # type: ignore[override]
        return self._clone_with_range(upper=upper - 1)

    @property
    def serializable_spec(self) -> dict[str, Any]:
        low, high = self.constraint_range
        return {"t_id": self.t_id, "dim": self.dim, "min": low, "max": high}


@dataclass
class _DerivedConstraint(_ConstraintTarget):
    """A dim defined as a function of another dim's constraint (``2 * d``)."""

    root: Any = None
    fn: Any = None
    constraint_range: tuple[int, Any] = (0, None)
    debug_name: str | None = None


@dataclass
class _RelaxedConstraint(_ConstraintTarget):
    """A dim left for export to decide (Dim.AUTO)."""


Constraint = Union[_Constraint, _DerivedConstraint, _RelaxedConstraint]  # noqa: UP007 - torch's alias

__all__ = ["AdditionalInputs", "Constraint", "Dim", "ShapesCollection", "dims",
           "refine_dynamic_shapes_from_suggested_fixes"]
