"""functionalize: training → functional.

The function's ops are replayed, in order, into the same block at the
functional level:

- an op that writes nothing becomes its functional twin (same operands);
- an op that writes — by schema (``add_``) or hiddenly (``batch_norm`` in
  training mode) — is traced through its rule: the in-place renaming of
  ``rules.INPLACE`` or a functionalization rule registered here; the rule's
  writes (``SubTracer.rebind``) are *mutations*;
- a mutation of a value that is a view of another (``x[0].add_(1)``) is
  replayed on its base with the view's scatter form (``select_scatter``,
  ``slice_scatter``, a ``view``/``permute`` back, ...), up to the root;
- a later read of a mutated value, or of a view of it, reads the new value
  (views are regenerated from the new base);
- a function argument that was mutated becomes an extra result, first, in
  argument order: BUFFER_MUTATION for buffers, USER_INPUT_MUTATION for user
  inputs (torch's order and kinds); a buffer whose new value is a ``copy``
  takes the copy's source instead (``forward_buffer_copies``, run by the
  passes' tidy step, after dead-code elimination, as torch's run_decompositions).

Before the replay the functionalize pass decomposes the ops tagged
``decomposed_by_functionalize`` (reshape, flatten, view_as, to, ...), which
torch's functionalization never keeps (decompose.py).

Writing a parameter or a lifted constant is an error, as in torch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, StringAttr
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects.aten import AtenOp, op_class
from texport.dialects.names import set_name
from texport.dialects.registry import Registry
from texport.tracer.dispatcher import current_mode, using_mode
from texport.tracer.errors import TracingError
from texport.tracer.handles import OpOverload, handle_for
from texport.tracer.library import functional_variant
from texport.tracer.subtrace import NOT_HANDLED, SubTracer, call_rule, output_values, symbol_sources
from texport.tracer.tensor import Tensor
from texport.tracer.tracing import NameTable

from .errors import FunctionalizationError
from .legality import where
from .patterns import TracedEmitter
from .rules import INPLACE

# --------------------------------------------------------------------------
# Rules for ops that write outside the in-place renamings
# --------------------------------------------------------------------------

Functionalization = Callable[..., Any]
FUNCTIONALIZATIONS: Registry[Functionalization] = Registry("functionalization", stage="decompositions")


def register_functionalization(op: OpOverload) -> Callable[[Functionalization], Functionalization]:
    """Register the functional form of an op that writes: a function in
    texport's API that returns the op's results and calls ``write(arg, new)``
    for each argument the op writes."""
    return FUNCTIONALIZATIONS.decorator(op.key)


def write(target: Tensor, value: Tensor) -> None:
    """Inside a functionalization rule: the op writes ``value`` into ``target``."""
    mode = current_mode()
    if not isinstance(mode, SubTracer):
        raise RuntimeError("write() is only meaningful inside a functionalization rule")
    mode.rebind(target, value)


def rewrite_call(tracer: SubTracer, op: OpOverload, values: list[Any]) -> Any:
    """The SubTracer hook: calls that write become their functional forms."""
    rule = FUNCTIONALIZATIONS.get(op.key)
    if rule is not None:
        args, kwargs = _split(op, values)
        return rule(*args, **kwargs)
    if not op._schema.is_mutable:
        return NOT_HANDLED
    if op.op_def.has_tag("inplace_view"):  # the training IR keeps using the old type afterwards
        raise TracingError(f"{op} changes a tensor's shape in place: functionalize cannot express it")
    for rule in INPLACE.rules_for(op.op_def.ir_name):
        match = rule.match_values(values)
        if match is None:
            continue
        new = rule.build(match, TracedEmitter(tracer))
        target = values[_written_argument(op)]
        if new is not target:
            tracer.rebind(target, new)
        return target
    if op._schema.namespace != "aten":  # a custom op: torch's auto_functionalized
        return _auto_functionalized(tracer, op, values)
    raise TracingError(f"{op} writes its operands and has no functional form")


def _auto_functionalized(tracer: SubTracer, op: OpOverload, values: list[Any]) -> Any:
    functional, written = functional_variant(op)
    results = tracer.call(functional, values)
    results = results if isinstance(results, tuple) else (results,)
    for index, new in zip(written, results):
        tracer.rebind(values[index], new)
    rest = results[len(written):]
    if not op._schema.returns:
        return None
    return rest[0] if len(rest) == 1 and not op._schema.returns_tuple else tuple(rest)


def _split(op: OpOverload, values: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    args, kwargs = [], {}
    for arg, value in zip(op._schema.arguments, values):
        if arg.kwarg_only:
            kwargs[arg.name] = value
        else:
            args.append(value)
    return args, kwargs


def _written_argument(op: OpOverload) -> int:
    return next(i for i, a in enumerate(op._schema.arguments) if a.is_write)


# --------------------------------------------------------------------------
# Views: which argument a view op aliases, and how a write reaches the base
# --------------------------------------------------------------------------

Scatter = Callable[[Tensor, Tensor, list[Any], int, AtenOp], Tensor]
SCATTERS: Registry[Scatter] = Registry("view scatter", stage="decompositions")

# ``to`` may copy (a new dtype) and is recorded only when it does: not a view.
_COPYING_VIEWS = frozenset({"aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other"})


def view_argument(op: AtenOp) -> int | None:
    """The index of the argument the op's results alias (a view op), or None."""
    schema = op.op_def.schema
    if op.op_def.key in _COPYING_VIEWS or not schema.returns:
        return None
    alias = schema.returns[0].alias
    if alias is None or alias.is_write:
        return None
    for index, arg in enumerate(schema.arguments):
        if arg.alias is not None and arg.alias.before & alias.before:
            return index
    return None


# --------------------------------------------------------------------------
# The pass body
# --------------------------------------------------------------------------


@dataclass
class _ViewOf:
    parent: SSAValue  # the old value this one is a view of
    op: AtenOp | None  # the old view op (None: the same tensor, an in-place result)
    index: int  # which result of the view op


class Functionalizer:
    """Replays one function's ops at the functional level (module docstring)."""

    def __init__(self, block: Block, arg_attrs: list[DictionaryAttr] | None = None, *,
                 names: NameTable | None = None, sources: dict[str, Any] | None = None) -> None:
        self.block = block
        self.arg_attrs = arg_attrs  # None: a control-flow body, whose arguments nothing may write
        self.names = names or NameTable()
        self.sources = sources if sources is not None else symbol_sources(block.args, "functional")
        self.tracer = SubTracer(block, level="functional", names=self.names, symbol_sources=self.sources,
                                rewrite=rewrite_call, what="functionalize")
        self.value: dict[SSAValue, tuple[SSAValue, int]] = {a: (a, 0) for a in self.block.args}
        self.views: dict[SSAValue, _ViewOf] = {}
        self.roots: dict[SSAValue, SSAValue] = {}
        self.version: dict[SSAValue, int] = {}
        self.replays: dict[tuple[AtenOp, SSAValue], Operation] = {}

    # ---- values ---------------------------------------------------------------

    def root(self, value: SSAValue) -> SSAValue:
        return self.roots.get(value, value)

    def resolve(self, value: SSAValue) -> SSAValue:
        """The current functional value of an old value."""
        entry = self.value.get(value)
        if entry is None:
            return value  # defined outside the function body
        new, seen = entry
        current = self.version.get(self.root(value), 0)
        if seen == current:
            return new
        view = self.views[value]
        base = self.resolve(view.parent)
        new = base if view.op is None else self.replay(view.op, view.index, base)
        self.value[value] = (new, current)
        return new

    def resolve_arg(self, value: Any) -> Any:
        if isinstance(value, SSAValue):
            return self.resolve(value)
        if isinstance(value, list):
            return [self.resolve_arg(v) for v in value]
        return value

    def define(self, old: SSAValue, new: SSAValue, view: _ViewOf | None = None) -> None:
        if view is not None:
            self.views[old] = view
            self.roots[old] = self.root(view.parent)
        self.value[old] = (new, self.version.get(self.root(old), 0))

    def mutate(self, old: SSAValue, new: SSAValue, op: Operation) -> None:
        """``old`` (and so its root) now holds ``new``. A write through a view
        reaches the root as torch's FunctionalStorageImpl::apply_update takes it
        there: the views between the root and the written one are taken afresh
        from the root's value, then each level is scattered back, innermost
        first. The written view itself is left out of date (torch's
        commit_update), so its next read regenerates it from the new root."""
        if self.resolve(old) is new:
            return
        chain = self.view_chain(old)
        bases = [self.resolve(self.root(old))]
        for view in chain[:-1]:
            bases.append(self.replay(view.op, view.index, bases[-1], fresh=True))
        for view, base in zip(reversed(chain), reversed(bases)):
            new = self.scatter(view, base, new, op)
        root = self.root(old)
        self.version[root] = self.version.get(root, 0) + 1
        self.value[root] = (new, self.version[root])

    def view_chain(self, value: SSAValue) -> list[_ViewOf]:
        """The view steps from the root down to ``value`` (in-place results,
        which are the tensor they wrote, are no step)."""
        chain = []
        while (view := self.views.get(value)) is not None:
            if view.op is not None:
                chain.append(view)
            value = view.parent
        return chain[::-1]

    # ---- regenerating and scattering views --------------------------------------

    def replay(self, view_op: AtenOp, index: int, base: SSAValue, *, fresh: bool = False) -> SSAValue:
        """The view op again on a new base; the same one for the same base,
        unless ``fresh`` (apply_update takes its own)."""
        made = None if fresh else self.replays.get((view_op, base))
        if made is None:
            operands = [self.resolve(v) for v in view_op.operands]
            operands[0] = base
            made = _twin(view_op, operands)
            self.block.add_op(made)
            for old, new in zip(view_op.results, made.results):
                _copy_name(old, new, self.tracer.names)
            if not fresh:
                self.replays[(view_op, base)] = made
        return made.results[index]

    def scatter(self, view: _ViewOf, base: SSAValue, src: SSAValue, at: Operation) -> SSAValue:
        view_op = view.op
        assert view_op is not None
        scatter = SCATTERS.get(view_op.op_def.key)
        if scatter is None:
            raise FunctionalizationError(
                f"functionalize: a write through '{view_op.name}'{where(at)} cannot reach its base "
                "(no scatter form for this view)"
            )
        tracer = self.tracer
        tracer.location = at.location
        args = [tracer.traced(self.resolve_arg(v)) for v in view_op.arguments()]
        with using_mode(tracer):
            result = scatter(tracer.traced(base), tracer.traced(src), args, view.index, view_op)
        return tracer.ir_value(result)

    # ---- ops ------------------------------------------------------------------

    def run(self) -> list[tuple[SSAValue, str, str]]:
        """Replay the block; for a function, return its mutation outputs."""
        old_ops = list(self.block.ops)
        for op in old_ops:
            self.block.detach_op(op)
        returned: list[SSAValue] | None = None
        for op in old_ops:
            if isinstance(op, ReturnOp) and self.arg_attrs is not None:
                returned = [self.resolve(v) for v in op.operands]
            elif isinstance(op, AtenOp) and (op.op_def.schema.is_mutable or op.op_def.key in FUNCTIONALIZATIONS):
                self.trace_writer(op)
            else:
                self.twin(op)
        mutations = self.mutations()
        if returned is not None:
            self.block.add_op(ReturnOp(*[value for value, _, _ in mutations], *returned))
        for op in reversed(old_ops):
            if op.parent is None:
                op.erase(safe_erase=False)
            elif isinstance(op, AtenOp) and op.level == "training":
                op.move_to("functional")  # kept (only now: until here, errors name ops as written)
        return mutations

    def twin(self, op: Operation) -> None:
        operands = [self.resolve(v) for v in op.operands]
        if not op.regions and all(new is old for new, old in zip(operands, op.operands)):
            new = op  # its operands hold their current values: the op itself stays, no copy
        elif isinstance(op, AtenOp):
            new = _twin(op, operands)
        else:
            new = op.clone(value_mapper=dict(zip(op.operands, operands)))
            for region in new.regions:
                for block in region.blocks:
                    Functionalizer(block, names=self.names, sources=self.sources).run()
        self.block.add_op(new)
        aliased = view_argument(op) if isinstance(op, AtenOp) else None
        parent = op.arguments()[aliased] if aliased is not None else None
        for index, (old, result) in enumerate(zip(op.results, new.results)):
            _copy_name(old, result, self.tracer.names)
            view = _ViewOf(parent, op, index) if isinstance(parent, SSAValue) else None
            self.define(old, result, view)

    def trace_writer(self, op: AtenOp) -> None:
        tracer = self.tracer
        tracer.location = op.location
        tracer.writes = {}
        old_args = op.arguments()
        schema = op.op_def.schema
        try:
            result, traced = call_rule(tracer, handle_for(op.op_def.key), self.resolve_arg(old_args),
                                       [a.kwarg_only for a in schema.arguments], [a.name for a in schema.arguments])
        except TracingError as err:
            raise FunctionalizationError(f"functionalize: '{op.name}'{where(op)}: {err}") from None
        for old, arg in zip(old_args, traced):
            if isinstance(arg, Tensor) and id(arg) in tracer.writes and isinstance(old, SSAValue):
                self.mutate(old, tracer.ir_value(arg), op)
        outputs = output_values(tracer, result) if schema.returns else []
        for index, old in enumerate(op.results):
            written = schema.returns[index].alias
            if written is not None and written.is_write:
                source = old_args[next(i for i, a in enumerate(schema.arguments) if a.alias == written)]
                self.define(old, self.resolve(source), _ViewOf(source, None, 0))
            elif index < len(outputs) and outputs[index] is not None:
                self.define(old, outputs[index])
            elif old.uses:
                raise FunctionalizationError(f"functionalize: the rule of '{op.name}' gives no result #{index}")

    # ---- signature ------------------------------------------------------------

    def mutations(self) -> list[tuple[SSAValue, str, str]]:
        """(new value, output kind, target) for each mutated argument, in argument order."""
        found = []
        for index, arg in enumerate(self.block.args):
            if not self.version.get(arg):
                continue
            if self.arg_attrs is None:
                raise FunctionalizationError(
                    f"functionalize: a control-flow body writes its argument #{index} in place "
                    "(bodies must be functional, as torch requires)"
                )
            attr = self.arg_attrs[index] if index < len(self.arg_attrs) else DictionaryAttr({})
            kind = _string(attr, "tx.input") or "USER_INPUT"
            if kind == "BUFFER":
                found.append((self.resolve(arg), "BUFFER_MUTATION", _string(attr, "tx.target") or arg.name_hint or ""))
            elif kind == "USER_INPUT":
                found.append((self.resolve(arg), "USER_INPUT_MUTATION", arg.name_hint or ""))
            else:
                what = _string(attr, "tx.target") or arg.name_hint
                raise FunctionalizationError(f"functionalize: the program writes the {kind.lower()} '{what}' in place")
        return found


def _twin(op: AtenOp, operands: list[SSAValue]) -> AtenOp:
    """The op at the functional level (the same class when already there)."""
    cls = op_class(op.op_def, "functional") if op.level == "training" else type(op)
    return cls.create(operands=operands, result_types=op.result_types, properties=op.properties,
                      attributes=op.attributes, location=op.location)  # (create copies both)


def _copy_name(old: SSAValue, new: SSAValue, names: NameTable) -> None:
    if old.name_hint:
        set_name(new, old.name_hint)


def _string(attr: DictionaryAttr, key: str) -> str | None:
    value = attr.data.get(key)
    return value.data if isinstance(value, StringAttr) else None


def forward_buffer_copies(func: FuncOp) -> None:
    """A buffer whose new value is a ``copy`` of another value takes that value
    itself, and the copy goes: torch's run_decompositions does this last
    (``_remove_unnecessary_copy_op_pass``), after its retrace has named the
    nodes, and whatever the shapes and dtypes (the unlifted module's write-back
    broadcasts and casts, as ``copy_`` does). User inputs keep their copy."""
    returned = func.body.block.last_op
    if not isinstance(returned, ReturnOp) or not func.res_attrs:
        return
    for value, attrs in zip(returned.operands, func.res_attrs.data):
        copy = value.owner
        if _string(attrs, "tx.output") == "BUFFER_MUTATION" and _is_copy(copy):
            value.replace_all_uses_with(copy.operands[1])
            func.body.block.erase_op(copy)
    func.function_type = FunctionType.from_lists(func.function_type.inputs.data,
                                                 [v.type for v in returned.operands])


def _is_copy(op: Operation | Block) -> bool:
    return isinstance(op, AtenOp) and op.op_def.key == "aten.copy.default"


def functionalize_function(func: FuncOp) -> list[tuple[SSAValue, str, str]]:
    """Functionalize ``func`` in place; its results gain the mutated arguments
    first. Returns (value, kind, target) for each mutation output."""
    block = func.body.block
    attrs = list(func.arg_attrs.data) if func.arg_attrs else [DictionaryAttr({})] * len(block.args)
    mutations = Functionalizer(block, attrs).run()
    if mutations:
        results = [DictionaryAttr({"tx.output": StringAttr(kind), "tx.target": StringAttr(target)})
                   for _, kind, target in mutations]
        returned = len(func.body.block.last_op.operands) - len(mutations)
        old = list(func.res_attrs.data) if func.res_attrs else [DictionaryAttr({})] * returned
        func.res_attrs = ArrayAttr(results + old)
    returned = func.body.block.last_op
    func.function_type = FunctionType.from_lists(func.function_type.inputs.data,
                                                 [v.type for v in returned.operands])
    return mutations
