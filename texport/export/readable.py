"""torch-style readable listings of a texport function (``print_readable``).

    class GraphModule(torch.nn.Module):
        def forward(self, p_conv_weight: "f32[3, 1, 1, 1]", x: "f32[1, 1, 3, 3]"):
            # code: return self._conv_forward(input, self.weight, self.bias)
            conv2d: "f32[1, 3, 3, 3]" = torch.ops.aten.conv2d.default(x, p_conv_weight);  x = p_conv_weight = None
            return (conv2d,)
"""

from __future__ import annotations

import linecache
import math
from typing import Any

from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue

from texport.dialects import tx
from texport.dialects.aten import AtenOp
from texport.dialects.dtypes import DType
from texport.dialects.names import fresh_name
from texport.dialects.symbolic import dim_str
from texport.dialects.tx import TensorType


def type_text(attr: Any) -> str:
    if isinstance(attr, TensorType):
        return f"{attr.dtype.short_name}[{', '.join(dim_str(d) for d in attr.shape)}]"
    value = getattr(attr, "value", None)
    return f"Sym({dim_str(value) if value is not None else '?'})"


def literal(value: Any, names: dict[SSAValue, str]) -> str:
    if isinstance(value, SSAValue):
        return names[value]
    if isinstance(value, list):
        return "[" + ", ".join(literal(v, names) for v in value) + "]"
    if isinstance(value, DType):
        return f"torch.{value.torch_name}"
    if isinstance(value, float) and not math.isfinite(value):
        return {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan")
    return repr(value)


_SUBGRAPHS = {
    "control.cond": ("cond", ("true_graph", "false_graph")),
    "control.map": ("map_impl", ("body_graph",)),
    "control.scan": ("scan", ("scan_combine_graph",)),
    "control.while_loop": ("while_loop", ("while_loop_cond_graph", "while_loop_body_graph")),
}


class _Printer:
    def __init__(self, func: FuncOp | None) -> None:
        self.func = func
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set()
        self.lines: list[str] = []
        self.last_code: str | None = None
        self.subgraphs: list[tuple[str, Any, list[str]]] = []  # (class name, block, arg names)
        self.graph_counts: dict[str, int] = {}

    def name(self, value: SSAValue, base: str | None = None) -> str:
        if value not in self.names:
            candidate = base or value.name_hint or "v"
            text, n = candidate, 0
            while text in self.taken:
                n += 1
                text = f"{candidate}_{n}"
            self.taken.add(text)
            self.names[value] = text
        return self.names[value]

    def fresh(self, base: str) -> str:
        return fresh_name(base, self.taken)

    def run(self, class_name: str = "GraphModule", block: Any = None,
            arg_names: list[str] | None = None) -> str:
        block = block if block is not None else self.func.body.block
        params = [f'{self.name(a, n)}: "{type_text(a.type)}"'
                  for a, n in zip(block.args, arg_names or [None] * len(block.args))]
        last_use = _last_uses(block)
        body: list[str] = []
        for op in block.ops:
            self.lines = body
            if isinstance(op, ReturnOp) or op.name == "control.yield":
                results = ", ".join(self.names[v] for v in op.operands)
                body.append(f"return ({results}{',' if len(op.operands) == 1 else ''})")
                continue
            self.code_comment(op)
            self.emit(op, last_use)
        head = f"    def forward(self, {', '.join(params)}):" if params else "    def forward(self):"
        text = f"class {class_name}(torch.nn.Module):\n" + head + "\n" + "\n".join(
            "        " + line for line in body
        ) + "\n"
        for name, sub_block, names in self.subgraphs:
            nested = _Printer(None).run(name, sub_block, names)
            text += "\n" + "\n".join("    " + line if line else line for line in nested.splitlines()) + "\n"
        return text

    def code_comment(self, op: Operation) -> None:
        location = op.location
        if type(location).__name__ != "FileLineColLoc":
            return
        code = linecache.getline(location.filename.data, location.line.data).strip()
        if code and code != self.last_code:
            self.lines.append(f"# code: {code}")
            self.last_code = code

    def emit(self, op: Operation, last_use: dict[SSAValue, Operation]) -> None:
        dead = [self.names[v] for v in dict.fromkeys(op.operands)
                if last_use.get(v) is op and v in self.names and self.names[v].isidentifier()]
        suffix = f";  {' = '.join(dead)} = None" if dead else ""
        if isinstance(op, AtenOp):
            self.emit_aten(op, suffix)
        elif isinstance(op, tx.ConstantOp):
            self.names[op.results[0]] = str(op.value.value.data)
        elif op.name in tx.PYTHON_OPERATORS:
            lhs, rhs = (self.names[v] for v in op.operands)
            result = op.results[0]
            self.lines.append(f'{self.name(result)}: "{type_text(result.type)}" = {lhs} {tx.PYTHON_OPERATORS[op.name]} {rhs}{suffix}')
        elif op.name in tx.PYTHON_FUNCTIONS:
            lhs, rhs = (self.names[v] for v in op.operands)
            result = op.results[0]
            call = f"{tx.PYTHON_FUNCTIONS[op.name][1]}({lhs}, {rhs})"
            self.lines.append(f'{self.name(result)}: "{type_text(result.type)}" = {call}{suffix}')
        elif isinstance(op, tx.ToFloatOp):
            result = op.results[0]
            self.lines.append(f'{self.name(result)}: "{type_text(result.type)}" = torch.sym_float({self.names[op.input]}){suffix}')
        elif isinstance(op, tx.CmpOp):
            lhs, rhs = (self.names[v] for v in op.operands)
            result = op.results[0]
            self.lines.append(f'{self.name(result)}: "Sym({lhs} {tx.PREDICATES[op.predicate.data]} {rhs})" = {lhs} {tx.PREDICATES[op.predicate.data]} {rhs}{suffix}')
        elif op.name in _SUBGRAPHS:
            self.emit_control(op, suffix)
        elif isinstance(op, tx.AssertOp):
            name = self.fresh("_assert_scalar_default")
            self.lines.append(
                f"{name} = torch.ops.aten._assert_scalar.default({self.names[op.condition]}, {op.message.data!r}){suffix}"
            )
        else:
            operands = ", ".join(self.names.get(v, "?") for v in op.operands)
            names = ", ".join(self.name(r) for r in op.results)
            self.lines.append(f"{names} = {op.name}({operands}){suffix}")

    def emit_control(self, op: Operation, suffix: str) -> None:
        """torch's higher-order-op form: subgraph modules, then getitem reads."""
        node_base, graph_bases = _SUBGRAPHS[op.name]
        operands = [self.names[v] for v in op.operands]
        graphs = []
        for base, region in zip(graph_bases, op.regions):
            count = self.graph_counts.get(base, 0)
            self.graph_counts[base] = count + 1
            name = f"{base}_{count}"
            graphs.append(name)
            n_args = len(region.block.args)
            self.subgraphs.append((name, region.block, operands[-n_args:] if n_args else []))
        node = self.fresh(node_base)
        target = "map_impl" if node_base == "map_impl" else node_base
        if op.name == "control.cond":
            call = f"{operands[0]}, {', '.join(graphs)}, ({', '.join(operands[1:])}{',' if len(operands) == 2 else ''})"
        else:
            call = f"{', '.join(graphs)}, [{', '.join(operands)}]"
        self.lines.append(f"{node} = torch.ops.higher_order.{target}({call}){suffix}")
        for index, result in enumerate(op.results):
            tail = f";  {node} = None" if index == len(op.results) - 1 else ""
            self.lines.append(f'{self.name(result)}: "{type_text(result.type)}" = {node}[{index}]{tail}')

    def emit_aten(self, op: AtenOp, suffix: str) -> None:
        schema = op.op_def.schema
        args = _call_args(op, self.names)
        target = f"torch.ops.{schema.namespace}.{schema.name}.{schema.overload}"
        results = list(op.results)
        single = len(results) == 1 and not schema.returns_tuple and not schema.returns[0].type.is_list
        if single:
            result = results[0]
            self.lines.append(f'{self.name(result)}: "{type_text(result.type)}" = {target}({args}){suffix}')
            return
        node = self.fresh(schema.name)
        self.lines.append(f"{node} = {target}({args}){suffix}")
        used = [(i, r) for i, r in enumerate(results) if r.uses]
        for position, (index, result) in enumerate(used):
            tail = f";  {node} = None" if position == len(used) - 1 else ""
            self.lines.append(f'{self.name(result)}: "{type_text(result.type)}" = {node}[{index}]{tail}')


def _call_args(op: AtenOp, names: dict[SSAValue, str]) -> str:
    parts = []
    values = op.arguments()
    plans = op.plan
    last_positional = max(
        (i for i, (p, v) in enumerate(zip(plans, values))
         if not p.arg.kwarg_only and not _matches_default(p, v)), default=-1)
    for index, (plan, value) in enumerate(zip(plans, values)):
        if plan.arg.kwarg_only:
            if not _matches_default(plan, value):
                parts.append(f"{plan.name} = {literal(value, names)}")
        elif index <= last_positional:
            parts.append(literal(value, names))
    return ", ".join(parts)


def _matches_default(plan: Any, value: Any) -> bool:
    arg = plan.arg
    return arg.has_default and not isinstance(value, SSAValue) and value == arg.default and (
        type(value) is type(arg.default) or value is None
    )


def _last_uses(block: Any) -> dict[SSAValue, Operation]:
    last: dict[SSAValue, Operation] = {}
    for op in block.ops:
        if isinstance(op, ReturnOp) or op.name == "control.yield":
            continue
        for value in op.operands:
            last[value] = op
    returned = set()
    for op in block.ops:
        if isinstance(op, ReturnOp) or op.name == "control.yield":
            returned = set(op.operands)
    return {v: op for v, op in last.items() if v not in returned}


def print_readable(func: FuncOp) -> str:
    return _Printer(func).run()
