"""A texport function (or a control region) as a torch FX graph, each node
with torch's metadata: ``meta["val"]`` (a FakeTensor or SymInt computed by
torch's own fake kernels under the program's FakeTensorMode),
``meta["stack_trace"]`` (from the op's IR location) and
``meta["unbacked_bindings"]`` where a kernel made an unbacked symbol.

How each IR op becomes nodes, as torch.export writes them:

- ``core.add.Tensor`` -> ``torch.ops.aten.add.Tensor``; an op with several
  results (or a list) -> one node and an ``operator.getitem`` node per result read;
- ``tx.constant`` -> its literal in the arguments of its users; ``tx.mul`` and
  the other SymInt arithmetic -> ``operator.mul`` ...; ``tx.cmp`` ->
  ``operator.ge`` ...; ``tx.max``/``tx.min``/``tx.to_float`` -> ``torch.sym_max``
  ``torch.sym_min`` ``torch.sym_float``; ``tx.assert`` ->
  ``aten._assert_scalar.default(cond, message)``;
- ``control.cond``/``map``/``scan``/``while_loop`` -> ``torch.ops.higher_order``'s
  cond / map_impl / scan / while_loop, each region a GraphModule attribute read
  by a ``get_attr`` node, results read by ``getitem``.
"""

from __future__ import annotations

import linecache
import operator
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch._dispatch.python import enable_python_dispatcher
from torch.fx.experimental.symbolic_shapes import compute_unbacked_bindings
from xdsl.dialects.func import ReturnOp
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects import tx
from texport.dialects.aten import AtenOp
from texport.dialects.dtypes import DType
from texport.dialects.symbolic import dim_str
from texport.dialects.tx import SymBoolType, SymFloatType, SymIntType, TensorType
from texport.tracer.library import AUTO_FUNCTIONALIZED

from .torch_symbols import TorchSymbols


class ToTorchError(ValueError):
    """A texport program torch cannot hold; the message names the op and where it came from."""


_SYM_OPERATORS: dict[str, Callable[..., Any]] = {
    "tx.add": operator.add, "tx.sub": operator.sub, "tx.mul": operator.mul,
    "tx.floordiv": operator.floordiv, "tx.mod": operator.mod,
    "tx.max": torch.sym_max, "tx.min": torch.sym_min,
}
_COMPARISONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                "gt": operator.gt, "ge": operator.ge}
# control op -> (torch's higher-order op name, the base name of each region's submodule)
_CONTROL = {
    "control.cond": ("cond", ("true_graph", "false_graph")),
    "control.map": ("map_impl", ("body_graph",)),
    "control.scan": ("scan", ("scan_combine_graph",)),
    "control.while_loop": ("while_loop", ("while_loop_cond_graph", "while_loop_body_graph")),
}


def torch_dtype(dtype: DType) -> torch.dtype:
    return getattr(torch, dtype.torch_name)


def torch_op(op: AtenOp) -> Any:
    """``torch.ops.<ns>.<name>.<overload>`` of an IR op; a clear error when torch has none."""
    schema = op.op_def.schema
    packet = getattr(getattr(torch.ops, schema.namespace), schema.name, None) \
        if hasattr(torch.ops, schema.namespace) else None
    overload = getattr(packet, schema.overload, None) if packet is not None else None
    if overload is None:
        raise ToTorchError(
            f"{_where(op)}: torch has no op {schema.namespace}::{schema.name}.{schema.overload} "
            f"(texport's schema: {op.op_def.schema_text}); register it with torch.library "
            f"before calling to_torch")
    return overload


class GraphBuilder:
    """Builds one FX graph from one block; subgraphs of control ops recursively."""

    def __init__(self, symbols: TorchSymbols, owner: torch.nn.Module) -> None:
        self.symbols = symbols
        self.owner = owner  # the module the graph's get_attr nodes read (its subgraphs)
        self.graph = torch.fx.Graph()
        self.nodes: dict[SSAValue, Any] = {}  # IR value -> fx Node or literal
        self.vals: dict[SSAValue, Any] = {}  # IR value -> fake value
        self.subgraph_counts: dict[str, int] = {}
        self.origin: dict[Any, Operation] = {}  # fx node -> the IR op it came from

    # ---- the graph ----------------------------------------------------------

    def placeholders(self, args: Sequence[SSAValue], names: list[str], vals: list[Any] | None = None) -> list[Any]:
        """One placeholder per block argument, named ``names``, valued ``vals`` (else from the IR type)."""
        created = []
        for index, (arg, name) in enumerate(zip(args, names, strict=True)):
            val = vals[index] if vals is not None else self.fake_of_type(arg.type, name)
            node = self.graph.placeholder(name)
            node.meta["val"] = val
            self.nodes[arg] = node
            self.vals[arg] = val
            created.append(node)
        return created

    def node_names(self) -> dict[str, str]:
        """texport value name -> the name of its FX node (FX renames a clash)."""
        return {value.name_hint: node.name for value, node in self.nodes.items()
                if value.name_hint and isinstance(node, torch.fx.Node)}

    def constant_placeholder(self, name: str, value: Any) -> Any:
        """A placeholder for a user input export specialised to a constant (torch keeps one)."""
        node = self.graph.placeholder(name)
        node.meta["val"] = value
        return node

    def body(self, block: Block) -> list[Any]:
        """Every op of ``block`` as nodes; returns what its terminator returns (nodes or literals)."""
        for op in block.ops:
            if isinstance(op, ReturnOp) or op.name == "control.yield":
                return [self.nodes[v] for v in op.operands]
            self.emit(op)
        raise ToTorchError("a texport block ends without func.return or control.yield")

    def output(self, values: Any) -> None:
        self.graph.output(values)

    # ---- fake values --------------------------------------------------------

    def fake_of_type(self, attr: Any, where: str) -> Any:
        """A fake value of an IR type: a contiguous FakeTensor with torch SymInt sizes, or a SymInt."""
        if isinstance(attr, TensorType):
            sizes = [self.symbols.value(d) for d in attr.shape]
            with self.symbols.fake_mode:
                return torch.empty(sizes, dtype=torch_dtype(attr.dtype))
        if isinstance(attr, SymIntType) and attr.value is not None:
            return self.symbols.value(attr.value)
        raise ToTorchError(f"input {where} has type {attr}, which to_torch cannot give a torch value")

    # ---- ops ----------------------------------------------------------------

    def emit(self, op: Operation) -> None:
        if isinstance(op, AtenOp):
            self.emit_aten(op)
        elif isinstance(op, tx.ConstantOp):
            value = op.value.value.data
            self.nodes[op.result] = self.vals[op.result] = value
        elif op.name in _SYM_OPERATORS:
            self.emit_python(op, _SYM_OPERATORS[op.name], op.operands)
        elif isinstance(op, tx.CmpOp):
            self.emit_python(op, _COMPARISONS[op.predicate.data], op.operands)
        elif isinstance(op, tx.ToFloatOp):
            self.emit_python(op, torch.sym_float, op.operands)
        elif isinstance(op, tx.AssertOp):
            self.emit_assert(op)
        elif op.name in _CONTROL:
            self.emit_control(op)
        else:
            raise ToTorchError(f"{_where(op)}: to_torch has no torch form of the op {op.name}")

    def emit_python(self, op: Operation, function: Callable[..., Any], operands: Any) -> None:
        """SymInt arithmetic and comparisons: a Python call on torch's symbolic values
        (a literal when every operand is one, as torch folds it)."""
        args = [self.nodes[v] for v in operands]
        vals = [self.vals[v] for v in operands]
        result = op.results[0]
        val = function(*vals)
        if not any(isinstance(a, torch.fx.Node) for a in args):
            self.nodes[result] = self.vals[result] = val
            return
        self.nodes[result] = self.call(function, tuple(args), {}, val, result.name_hint or op.name[3:], op)
        self.vals[result] = val

    def emit_assert(self, op: tx.AssertOp) -> None:
        condition = self.vals[op.condition]
        if isinstance(condition, bool):
            if not condition:
                raise ToTorchError(f"{_where(op)}: the program asserts a false condition: {op.message.data}")
            return
        try:
            with self.symbols.fake_mode:
                torch._check(condition, lambda: op.message.data)  # teaches torch's ShapeEnv the fact
        except RuntimeError:  # false on the hints (a guess when no example input gave them): torch checks at run time
            pass
        node = self.graph.create_node("call_function", torch.ops.aten._assert_scalar.default,
                                      (self.nodes[op.condition], op.message.data), name="_assert_scalar_default")
        self.set_meta(node, None, op)

    def emit_aten(self, op: AtenOp) -> None:
        if op.op_def.schema.overload == AUTO_FUNCTIONALIZED:
            self.emit_auto_functionalized(op)
            return
        target = torch_op(op)
        args, kwargs, fake_args, fake_kwargs = self.call_arguments(op)
        try:
            with self.symbols.fake_mode, enable_python_dispatcher():  # torch's symbolic meta kernels
                val = target(*fake_args, **fake_kwargs)
        except Exception as err:  # noqa: BLE001 - any failure of torch's kernel, located
            raise ToTorchError(f"{_where(op)}: torch's {target} failed on the program's values "
                               f"({type(err).__name__}: {err})") from err
        schema = op.op_def.schema
        results = list(op.results)
        single = len(results) == 1 and not schema.returns_tuple and not schema.returns[0].type.is_list
        if not results:  # an op run for its effect (an assert, a write): torch's node has no val
            self.call(target, args, kwargs, None, schema.name, op, with_val=bool(schema.returns))
            return
        if single:
            self.nodes[results[0]] = self.call(target, args, kwargs, val, _name(results[0], schema.name), op)
            self.vals[results[0]] = val
            self.bind(results[0], val, op)
            return
        node = self.call(target, args, kwargs, val, schema.name, op)
        self.read_results(node, list(val), results, op)

    def emit_auto_functionalized(self, op: AtenOp) -> None:
        """texport's functional form of a custom op that writes its arguments
        (``mylib.add_one_.auto_functionalized``: the new values of the written
        arguments, then the op's results) as torch's ``auto_functionalized_v2``
        (the op's results, then the new value of each distinct written base)."""
        schema = op.op_def.schema
        packet = getattr(getattr(torch.ops, schema.namespace, None), schema.name, None)
        mutable = getattr(packet, "default", None)
        if mutable is None:
            raise ToTorchError(f"{_where(op)}: torch has no op {schema.namespace}::{schema.name}.default, "
                               f"the op texport's {op.op_def.key} is the functional form of")
        written = [a.name for a in mutable._schema.arguments if a.is_write]
        kwargs, fake_kwargs, bases = {}, {}, []
        for plan, value in zip(op.plan, op.arguments()):
            if plan.name in written:
                if value not in bases:
                    bases.append(value)
                kwargs[f"_{plan.name}_base_index"] = fake_kwargs[f"_{plan.name}_base_index"] = bases.index(value)
            else:
                kwargs[plan.name], fake_kwargs[plan.name] = self.argument(value, plan.arg.type.base, op)
        kwargs["_all_bases"] = [self.nodes[b] for b in bases]
        fake_kwargs["_all_bases"] = [self.vals[b] for b in bases]
        hop = torch.ops.higher_order.auto_functionalized_v2
        try:
            with self.symbols.fake_mode, enable_python_dispatcher():
                val = hop(mutable, **fake_kwargs)
        except Exception as err:  # noqa: BLE001 - located below
            raise ToTorchError(f"{_where(op)}: torch's auto_functionalized_v2 of {mutable} failed on the "
                               f"program's values ({type(err).__name__}: {err})") from err
        node = self.call(hop, (mutable,), kwargs, val, "auto_functionalized_v2", op)
        own = len(val) - len(bases)
        order = [own + bases.index(v) for v, plan in zip(op.arguments(), op.plan) if plan.name in written]
        order += list(range(len(op.results) - len(order)))
        self.read_results(node, [val[i] for i in order], list(op.results), op, indexes=order)

    def read_results(self, node: Any, vals: list[Any], results: list[SSAValue], op: Operation,
                     indexes: list[int] | None = None) -> None:
        """``getitem`` nodes for the results the program reads (torch leaves the rest out)."""
        if len(vals) != len(results):
            raise ToTorchError(f"{_where(op)}: texport's op has {len(results)} results, "
                               f"torch's {node.target} returns {len(vals)}")
        for position, (result, val) in enumerate(zip(results, vals)):
            index = indexes[position] if indexes is not None else position
            self.vals[result] = val
            self.bind(result, val, op)
            if result.uses:
                item = self.graph.create_node("call_function", operator.getitem, (node, index),
                                              name=_name(result, "getitem"))
                self.set_meta(item, val, op)
                self.nodes[result] = item

    def call(self, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any], val: Any, name: str,
             op: Operation, with_val: bool = True) -> Any:
        node = self.graph.create_node("call_function", target, args, kwargs, name=name)
        self.set_meta(node, val if with_val else _NO_VAL, op)
        bindings = compute_unbacked_bindings(self.symbols.shape_env, val)
        if bindings:
            node.meta["unbacked_bindings"] = bindings
        return node

    def set_meta(self, node: Any, val: Any, op: Operation) -> None:
        if val is not _NO_VAL:
            node.meta["val"] = val
        trace = stack_trace(op)
        if trace is not None:
            node.meta["stack_trace"] = trace
        self.origin[node] = op

    def bind(self, result: SSAValue, val: Any, op: Operation) -> None:
        """Tell the symbol table which torch symbols texport's result dims are; a
        result torch computes otherwise than texport's IR type says is an error."""
        attr = result.type
        if isinstance(attr, TensorType) and isinstance(val, torch.Tensor):
            static = [(d, s) for d, s in zip(attr.shape, val.shape) if type(d) is int and isinstance(s, int)]
            if val.dtype != torch_dtype(attr.dtype) or val.dim() != len(attr.shape) \
                    or any(d != s for d, s in static):
                raise ToTorchError(f"{_where(op)}: torch computes {_describe_val(val)} where texport's IR "
                                   f"type is {describe_type(attr)}")
            for dim, size in zip(attr.shape, val.shape):
                self.symbols.bind(dim, size)
        elif isinstance(attr, SymIntType) and attr.value is not None:
            self.symbols.bind(attr.value, val)

    # ---- arguments ----------------------------------------------------------

    def call_arguments(self, op: AtenOp) -> tuple[tuple[Any, ...], dict[str, Any], tuple[Any, ...], dict[str, Any]]:
        """The op's arguments as torch's call: positional ones up to the last that
        differs from its default, keyword-only ones by name when not their default."""
        values = op.arguments()
        entries = list(zip(op.plan, values))
        positional = [(p, v) for p, v in entries if not p.arg.kwarg_only]
        last = max((i for i, (p, v) in enumerate(positional) if not _is_default(p, v)), default=-1)
        args, fake_args = [], []
        for plan, value in positional[: last + 1]:
            node_form, fake_form = self.argument(value, plan.arg.type.base, op)
            args.append(node_form)
            fake_args.append(fake_form)
        kwargs, fake_kwargs = {}, {}
        for plan, value in entries:
            if plan.arg.kwarg_only and not _is_default(plan, value):
                kwargs[plan.name], fake_kwargs[plan.name] = self.argument(value, plan.arg.type.base, op)
        return tuple(args), kwargs, tuple(fake_args), fake_kwargs

    def argument(self, value: Any, base: str, op: Operation) -> tuple[Any, Any]:
        """(what the node holds, what the fake call takes) for one argument value."""
        if isinstance(value, SSAValue):
            return self.nodes[value], self.vals[value]
        if isinstance(value, list):
            pairs = [self.argument(v, base, op) for v in value]
            return [p[0] for p in pairs], [p[1] for p in pairs]
        literal = _literal(value, base, op)
        return literal, literal

    # ---- control flow -------------------------------------------------------

    def emit_control(self, op: Operation) -> None:
        hop_name, bases = _CONTROL[op.name]
        hop = getattr(torch.ops.higher_order, hop_name)
        operands = list(op.operands)
        inputs = [self.vals[v] for v in operands]
        if op.name == "control.cond":
            region_vals = [inputs[1:]] * 2
        elif op.name == "control.map":
            count = len(op.xs)
            region_vals = [[_first_slice(v) for v in inputs[:count]] + inputs[count:]]
        elif op.name == "control.scan":
            carries = len(op.init)
            count = len(op.xs)
            region_vals = [inputs[:carries] + [_first_slice(v) for v in inputs[carries:carries + count]]
                           + inputs[carries + count:]]
        else:
            region_vals = [inputs, inputs]
        graph_nodes = []
        for base, region, vals in zip(bases, op.regions, region_vals):
            graph_nodes.append(self.subgraph(base, region.block, vals, op))
        node_args, fake_args = self.control_arguments(op, graph_nodes)
        try:
            with self.symbols.fake_mode, enable_python_dispatcher():
                val = hop(*fake_args)
        except Exception as err:  # noqa: BLE001 - located below
            raise ToTorchError(f"{_where(op)}: torch's {hop_name} failed on the program's values "
                               f"({type(err).__name__}: {err})") from err
        node = self.call(hop, node_args, {}, val, hop_name, op)
        self.read_results(node, list(val), list(op.results), op)
        if op.name == "control.scan" and _reversed(op):
            stacked = [r for r in list(op.results)[len(op.init):] if r in self.nodes]
            flipped, fake = self.flipped([self.nodes[r] for r in stacked], [self.vals[r] for r in stacked], op)
            self.nodes.update(zip(stacked, flipped))
            self.vals.update(zip(stacked, fake))

    def flipped(self, nodes: list[Any], vals: list[Any], op: Operation) -> tuple[list[Any], list[Any]]:
        """``aten.flip(x, [0])`` of each node (torch's reverse scan runs forward on flipped tensors)."""
        flip = torch.ops.aten.flip.default
        with self.symbols.fake_mode, enable_python_dispatcher():
            fake = [flip(v, [0]) for v in vals]
        return [self.call(flip, (n, [0]), {}, f, "flip", op) for n, f in zip(nodes, fake)], fake

    def control_arguments(self, op: Operation, graph_nodes: list[tuple[Any, Any]]) -> tuple[tuple, tuple]:
        """torch's operand layout of each higher-order op (nodes, and fake values)."""
        graphs = [g[0] for g in graph_nodes]
        modules = [g[1] for g in graph_nodes]

        def pick(values: Any) -> tuple[list[Any], list[Any]]:
            return [self.nodes[v] for v in values], [self.vals[v] for v in values]

        if op.name == "control.cond":
            inputs, fake = pick(op.inputs)
            pred_node, pred_val = self.nodes[op.pred], self.vals[op.pred]
            return (pred_node, *graphs, tuple(inputs)), (pred_val, *modules, tuple(fake))
        if op.name == "control.map":
            xs, fake_xs = pick(op.xs)
            args, fake_args = pick(op.args)
            return (graphs[0], xs, args), (modules[0], fake_xs, fake_args)
        if op.name == "control.scan":
            init, fake_init = pick(op.init)
            xs, fake_xs = pick(op.xs)
            if _reversed(op):  # torch's scan(reverse=True): flip xs, scan forward, flip the stacked outputs
                xs, fake_xs = self.flipped(xs, fake_xs, op)
            extra, fake_extra = pick(op.additional_inputs)
            return (graphs[0], init, xs, tuple(extra)), (modules[0], fake_init, fake_xs, tuple(fake_extra))
        carried, fake_carried = pick(op.carried)
        extra, fake_extra = pick(op.additional_inputs)
        return (*graphs, tuple(carried), tuple(extra)), (*modules, tuple(fake_carried), tuple(fake_extra))

    def subgraph(self, base: str, block: Block, vals: list[Any], op: Operation) -> tuple[Any, Any]:
        """A region as a GraphModule attribute of the owner, and the get_attr node reading it."""
        count = self.subgraph_counts.get(base, 0)
        self.subgraph_counts[base] = count + 1
        name = f"{base}_{count}"
        module = torch.nn.Module()
        builder = GraphBuilder(self.symbols, module)
        names = [_name(arg, f"arg{i}_1") for i, arg in enumerate(block.args)]
        builder.placeholders(block.args, _unique(names), vals)
        returned = builder.body(block)
        if base == "while_loop_cond_graph":
            builder.output(returned[0])  # torch's cond graph returns the bare predicate
        elif base == "scan_combine_graph":
            builder.output(list(returned))
        else:
            builder.output(tuple(returned))
        graph_module = torch.fx.GraphModule(module, builder.graph, class_name=name)
        self.owner.register_module(name, graph_module)
        node = self.graph.create_node("get_attr", name, name=name)
        self.origin[node] = op
        return node, graph_module


# ---- helpers ----------------------------------------------------------------

_NO_VAL = object()


def stack_trace(op: Operation) -> str | None:
    """An IR location as torch's ``stack_trace`` text (the file, the line, its source)."""
    location = op.location
    if type(location).__name__ != "FileLineColLoc":
        return None
    filename, line = location.filename.data, location.line.data
    code = linecache.getline(filename, line).strip()
    text = f'  File "{filename}", line {line}, in <unknown>\n'
    return text + (f"    {code}\n" if code else "")


def _where(op: Operation) -> str:
    name = op.results[0].name_hint if op.results and op.results[0].name_hint else None
    location = op.location
    place = ""
    if type(location).__name__ == "FileLineColLoc":
        place = f" at {location.filename.data}:{location.line.data}"
    return f"op {op.name}" + (f" (result %{name})" if name else "") + place


def _name(value: SSAValue, fallback: str) -> str:
    hint = value.name_hint
    return hint if hint and hint.isidentifier() else fallback


def _unique(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 0
        while candidate in seen:
            n += 1
            candidate = f"{name}_{n}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _is_default(plan: Any, value: Any) -> bool:
    arg = plan.arg
    if not arg.has_default or isinstance(value, SSAValue):
        return False
    if isinstance(value, list) and any(isinstance(v, SSAValue) for v in value):
        return False
    return value == arg.default and (type(value) is type(arg.default) or value is None)


def _literal(value: Any, base: str, op: Operation) -> Any:
    """A literal argument as torch takes it: texport holds dtypes as DTypes and
    layouts, devices and memory formats by name (``"contiguous_format"``)."""
    if isinstance(value, DType):
        return torch_dtype(value)
    if isinstance(value, str) and base in ("MemoryFormat", "Layout"):
        found = getattr(torch, value, None)
        if not isinstance(found, (torch.memory_format, torch.layout)):
            raise ToTorchError(f"{_where(op)}: {value!r} is not a torch {base}")
        return found
    if isinstance(value, str) and base == "Device":
        return torch.device(value)
    return value


def _reversed(op: Operation) -> bool:
    return op.reverse is not None and bool(op.reverse.value.data)


def _first_slice(val: Any) -> Any:
    """A fake slice ``xs[0]`` (what map and scan bodies see)."""
    if not isinstance(val, torch.Tensor):
        raise ToTorchError("map and scan take tensors with a leading dim")
    return val.select(0, 0)


def _describe_val(val: Any) -> str:
    return f"{str(val.dtype).removeprefix('torch.')}[{', '.join(str(d) for d in val.shape)}]"


def describe_type(attr: Any) -> str:
    if isinstance(attr, TensorType):
        return f"{attr.dtype.short_name}[{', '.join(dim_str(d) for d in attr.shape)}]"
    if isinstance(attr, (SymIntType, SymFloatType, SymBoolType)):
        return f"Sym({dim_str(attr.value) if attr.value is not None else '?'})"
    return str(attr)
