"""Compile a ``func.func`` once into a flat plan, then run it on numpy arrays.

A plan is the function's ops in order, each a step (kernel, input slots,
output slots). It is realised as generated straight-line Python — one line
per step, ``v7 = k3(v5, 2, [v6, 4])`` — so running a step costs one Python
call, with no IR walk and no dictionary of values. Regions (cond, map, scan,
while_loop bodies) compile to sub-plans called by small runtime helpers.

On entry every input is checked against its declared type: rank, dtype, each
dim (symbols bind at their first occurrence, expressions are evaluated), and
the range constraints, with torch-like messages naming the input and dim.

Every identifier in the generated source is one texport made (``v3``, ``k7``,
``d0``): names from the IR (SSA names, size symbols, the function's name) can
be anything the IR grammar allows — ``lambda``, ``v1``, ``GuardError`` — so they
appear only inside string literals (messages) and in the side tables.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue

from texport.dialects import tx
from texport.dialects._lazy import sympy  # loaded on first use
from texport.dialects.aten import AtenOp
from texport.dialects.control import CondOp, MapOp, ScanOp, WhileLoopOp, YieldOp
from texport.dialects.symbolic import dim_str, relation_name
from texport.dialects.tx import TensorType

from .dtypes import to_numpy
from .errors import ExecutionError, GuardError, RuntimeAssertError
from .kernels import KERNELS
from .plan_folding import folded_values
from .plan_patterns import Group, OpFailed, match_block
from .prepacked import note_written
from .runtime import RUNTIME_HELPERS

# the namespace entry mapping each generated function's code to {line: the op it runs}
_SITES = "_texport_sites"


@dataclass
class Step:
    """One op of the plan: what runs, which slots it reads and writes."""

    op: Operation
    kernel: str
    inputs: list[str]
    outputs: list[str]
    fused: list[Operation] = field(default_factory=list)  # the ops a fused step runs (op among them)


@dataclass
class Plan:
    """A compiled function; call it with one value per function argument."""

    name: str
    steps: list[Step]
    source: str
    run: Callable[..., tuple[Any, ...]]
    arg_names: list[str] = field(default_factory=list)

    def __call__(self, *inputs: Any) -> tuple[Any, ...]:
        try:
            return self.run(*inputs)
        except (GuardError, RuntimeAssertError):
            raise
        except OpFailed as failure:  # inside a fused step's fallback: the op it ran
            cause = failure.cause
            raise ExecutionError(f"{_where(failure.op)} failed: {type(cause).__name__}: {cause}") from cause
        except Exception as err:
            # the steps call their kernels bare (no wrapper per call); a failure is
            # mapped to its op here, once, from the line of the plan it came from
            where = _failed_step(err.__traceback__)
            if where is None:
                raise
            raise ExecutionError(f"{where} failed: {type(err).__name__}: {err}") from err


def _failed_step(tb: Any) -> str | None:
    """The op whose step raised: the innermost frame of generated plan code in the
    traceback, if its line runs a kernel (a region's failure was mapped by its own
    plan already, at a line that calls the region: not a kernel's)."""
    where = None
    while tb is not None:
        sites = tb.tb_frame.f_globals.get(_SITES)
        if sites is not None:
            lines = sites.get(tb.tb_frame.f_code)
            if lines is not None:
                where = lines.get(tb.tb_lineno)
        tb = tb.tb_next
    return where


class _Codegen:
    """Writes the Python of one function body (and its regions' sub-plans)."""

    def __init__(self, namespace: dict[str, Any], prefix: str = "") -> None:
        self.namespace = namespace
        self.prefix = prefix
        self.names: dict[SSAValue, str] = {}
        self.lines: list[str] = []
        self.steps: list[Step] = []
        self.sites: dict[int, str] = {}  # index in lines -> the op its kernel call runs

    # ---- names and constants ---------------------------------------------

    def name(self, value: SSAValue) -> str:
        existing = self.names.get(value)
        if existing is None:
            existing = self.names[value] = f"{self.prefix}v{len(self.names)}"
        return existing

    def constant(self, value: Any) -> str:
        if value is None or isinstance(value, bool) or (isinstance(value, int) and abs(value) < 2**62):
            return repr(value)
        key = f"c{len(self.namespace)}"
        self.namespace[key] = value
        return key

    def literal(self, value: Any) -> str:
        """Python for an argument value: SSA names, constants, list displays."""
        if isinstance(value, SSAValue):
            return self.name(value)
        if isinstance(value, list):
            return "[" + ", ".join(self.literal(v) for v in value) + "]"
        return self.constant(value)

    def bind(self, key: str, value: Any) -> str:
        name = f"{key}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    # ---- ops --------------------------------------------------------------

    def emit_block(self, block: Block) -> list[str]:
        groups = match_block(block)
        units = _units(block, groups)
        folded = folded_values(block, groups)
        last_use = _last_uses(units)
        for index, unit in enumerate(units):
            if isinstance(unit, Group):
                self.emit_group(unit)
                self.release([*unit.operands(), *unit.results], last_use, index)
                continue
            if isinstance(unit, (ReturnOp, YieldOp)):
                return [self.name(v) for v in unit.operands]
            if unit in folded:  # computed once, now (plan_folding.py)
                self.assign(unit, [self.name(unit.results[0])], self.bind("folded", folded[unit]), "folded")
            else:
                self.emit(unit)
            self.release([*unit.operands, *unit.results], last_use, index)
        return []

    def emit_group(self, group: Group) -> None:
        """One step for a matched group of ops (plan_patterns.py), at its last op's place."""
        outputs = [self.name(r) for r in group.results]
        kname = self.bind("k", group.kernel)
        args = ", ".join(self.literal(v) for v in group.arguments)
        self.sites[len(self.lines)] = _where(group.principal)
        self.lines.append(f"{', '.join(outputs)}{',' if len(outputs) == 1 and len(group.results) > 1 else ''}"
                          f" = {kname}({args})")
        inputs = [self.name(v) for v in group.operands()]
        self.steps.append(Step(group.principal, group.name, inputs, outputs, list(group.ops)))

    def release(self, values: Sequence[SSAValue], last_use: dict[SSAValue, int], index: int) -> None:
        """``del`` the values whose last use is step ``index`` (and results nobody uses):
        an intermediate array is freed as soon as the plan is done with it, as torch
        frees a tensor whose last reference goes, instead of living until the return."""
        dead = dict.fromkeys(self.name(v) for v in values if last_use.get(v, index) == index)
        if dead:
            self.lines.append(f"del {', '.join(dead)}")

    def emit(self, op: Operation) -> None:
        outputs = [self.name(r) for r in op.results]
        if isinstance(op, AtenOp):
            self.emit_aten(op, outputs)
        elif isinstance(op, tx.ConstantOp):
            self.assign(op, outputs, self.constant(op.value.value.data), "constant")
        elif op.name in tx.PYTHON_OPERATORS:
            lhs, rhs = (self.name(v) for v in op.operands)
            self.assign(op, outputs, f"{lhs} {tx.PYTHON_OPERATORS[op.name]} {rhs}", op.name)
        elif op.name in tx.PYTHON_FUNCTIONS:
            lhs, rhs = (self.name(v) for v in op.operands)
            self.assign(op, outputs, f"{tx.PYTHON_FUNCTIONS[op.name][0]}({lhs}, {rhs})", op.name)
        elif isinstance(op, tx.ToFloatOp):
            self.assign(op, outputs, f"float({self.name(op.input)})", op.name)
        elif isinstance(op, tx.CmpOp):
            lhs, rhs = (self.name(v) for v in op.operands)
            self.assign(op, outputs, f"{lhs} {tx.PREDICATES[op.predicate.data]} {rhs}", op.name)
        elif isinstance(op, tx.AssertOp):
            message = self.bind("msg", op.message.data)
            self.lines.append(f"if not {self.name(op.condition)}: raise RuntimeAssertError({message})")
            self.steps.append(Step(op, "assert", [self.name(op.condition)], []))
        elif isinstance(op, (CondOp, MapOp, ScanOp, WhileLoopOp)):
            self.emit_control(op, outputs)
        else:
            raise ExecutionError(f"the interpreter cannot run '{op.name}'")

    def assign(self, op: Operation, outputs: list[str], expr: str, kernel: str) -> None:
        target = ", ".join(outputs) + ("," if len(outputs) == 1 and isinstance(op, AtenOp) and _tuple_result(op) else "")
        self.lines.append(f"{target} = {expr}" if outputs else expr)
        self.steps.append(Step(op, kernel, [self.name(v) for v in op.operands], outputs))

    def emit_aten(self, op: AtenOp, outputs: list[str]) -> None:
        kernel = KERNELS.get(op.op_def.key)
        if kernel is None:
            raise ExecutionError(f"'{op.name}' has no kernel")
        kname = self.bind("k", kernel)
        args = ", ".join(self.literal(v) for v in op.arguments())
        self.sites[len(self.lines)] = _where(op)
        self.assign(op, outputs, f"{kname}({args})", op.op_def.key)
        schema = op.op_def.schema
        if schema.is_mutable:  # packed weights over the written memory are forgotten (prepacked.py)
            written = [self.literal(v) for v, arg in zip(op.arguments(), schema.arguments) if arg.is_write]
            self.lines.append(f"{self.bind('note_written', note_written)}([{', '.join(written)}])")

    def emit_control(self, op: Operation, outputs: list[str]) -> None:
        regions = [self.sub_plan(region.block) for region in op.regions]
        fns = [self.bind("region", r) for r in regions]
        operands = [self.name(v) for v in op.operands]
        if isinstance(op, CondOp):
            pred, *rest = operands
            expr = f"run_cond({pred}, {fns[0]}, {fns[1]}, ({', '.join(rest)}{',' if rest else ''}))"
        elif isinstance(op, MapOp):
            n = len(op.xs)
            expr = f"run_map({fns[0]}, [{', '.join(operands[:n])}], [{', '.join(operands[n:])}])"
        elif isinstance(op, ScanOp):
            n_init, n_xs = len(op.init), len(op.xs)
            groups = [operands[:n_init], operands[n_init:n_init + n_xs], operands[n_init + n_xs:]]
            lists = ", ".join("[" + ", ".join(g) + "]" for g in groups)
            expr = f"run_scan({fns[0]}, {lists}, {bool(op.reverse and op.reverse.value.data)})"
        else:
            n = len(op.carried)
            expr = f"run_while({fns[0]}, {fns[1]}, [{', '.join(operands[:n])}], [{', '.join(operands[n:])}])"
        target = ", ".join(outputs) + ("," if len(outputs) == 1 else "")
        self.lines.append(f"{target} = {expr}" if outputs else expr)
        self.steps.append(Step(op, op.name, operands, outputs))

    def sub_plan(self, block: Block) -> Plan:
        inner = _Codegen(self.namespace, prefix=f"{self.prefix}r{len(self.namespace)}_")
        return inner.finish(block, f"region_{len(self.namespace)}", checks=None)

    # ---- whole function ---------------------------------------------------

    def finish(self, block: Block, name: str, checks: list[str] | None, label: str | None = None) -> Plan:
        params = [self.name(arg) for arg in block.args]
        results = self.emit_block(block)
        body = (checks or []) + self.lines + [f"return ({', '.join(results)}{',' if len(results) == 1 else ''})"]
        source = f"def {name}({', '.join(params)}):\n" + "\n".join("    " + line for line in body) + "\n"
        filename = f"<texport plan {label if label is not None else name}>"  # tracebacks name the IR function
        exec(compile(source, filename, "exec"), self.namespace)  # noqa: S102 - our own codegen
        first = 2 + len(checks or [])  # the line of lines[0]: after the def and the checks
        self.namespace.setdefault(_SITES, {})[self.namespace[name].__code__] = {
            first + index: where for index, where in self.sites.items()}
        return Plan(label if label is not None else name, self.steps, source, self.namespace[name], params)

    def finish_function(self, func: FuncOp, checks: list[str]) -> Plan:
        """The entry plan: defined under a generated name, reported under the IR's."""
        return self.finish(func.body.block, self.bind("plan", None), checks, label=func.sym_name.data)


def _units(block: Block, groups: dict[Operation, Group]) -> list[Operation | Group]:
    """The block's ops in order, each matched group (``groups``: plan_patterns.py's
    match_block) in place of its ops, at the place of its last op."""
    return [groups.get(op, op) for op in block.ops
            if op not in groups or op is groups[op].anchor]


def _last_uses(units: Sequence[Operation | Group]) -> dict[SSAValue, int]:
    """The index of the last unit that uses each value (block arguments and results of
    its ops); the terminator counts, so returned values are never freed."""
    last: dict[SSAValue, int] = {}
    for index, unit in enumerate(units):
        for value in (unit.operands() if isinstance(unit, Group) else unit.operands):
            last[value] = index
    return last


def _tuple_result(op: AtenOp) -> bool:
    schema = op.op_def.schema
    return schema.returns_tuple or any(r.type.is_list for r in schema.returns)


def _where(op: Operation) -> str:
    """How a failure names the op: its name and, when known, its source location."""
    where = f"'{op.name}'"
    location = getattr(op, "location", None)
    if location is not None and type(location).__name__ == "FileLineColLoc":
        where += f" at {location.filename.data}:{location.line.data}"
    return where


# --------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------

# the only names a dim's Python may use besides the generated size locals
_DIM_FUNCTIONS = frozenset({"Max", "Min"})


class _InputChecks:
    """The Python lines that check a plan's inputs.

    A size symbol binds, at its first occurrence, to a generated local (``d0``,
    ``d1``, ...); dims print with those locals in place of the IR's symbol
    names. ``labels`` keeps, per IR symbol name, the user's text for it
    (``x.size()[0]``) for the messages."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace
        self.locals: dict[str, Any] = {}  # IR symbol name -> generated sympy Symbol
        self.labels: dict[str, str] = {}  # IR symbol name -> where it was bound
        self.binds: list[str] = []
        self.checks: list[str] = []
        self.sized: list[tuple[str, str, Any]] = []  # (value, label, dim) checked once all symbols bind

    def lines(self) -> list[str]:
        return self.binds + self.checks

    def check_sizes(self) -> None:
        """Each dim against its expected value; after binding, so that a dim may
        use a symbol a later input binds (``[2*s1]`` before ``!tx.symint<s1>``)."""
        for value, label, dim in self.sized:
            expr = self.py(dim)
            if expr is not None:
                message = _q(f"Guard failed: {label} == {self.user_text(dim)}")
                self.checks.append(f"if {value} != {expr}: raise GuardError({message} + f' (got {{{value}}})')")

    def argument(self, param: str, label: str, arg_type: Any) -> None:
        if isinstance(arg_type, TensorType):
            self.tensor(param, label, arg_type)
        elif isinstance(arg_type, tx.SymIntType):
            message = _q(f"Guard failed: {label} must be an int")  # bool, float, a 0-d array: not an int
            self.binds.append(f"if type({param}) is not int: raise GuardError({message} + _got({param}))")
            if arg_type.value is not None:
                self.dim(param, label, arg_type.value)

    def tensor(self, param: str, label: str, arg_type: TensorType) -> None:
        rank = len(arg_type.shape)
        dtype = self.bind_value("dt", to_numpy(arg_type.dtype))
        is_array = _q(f"Guard failed: {label} must be a tensor")
        rank_text = _q(f"Guard failed: {label}.dim() == {rank}")
        dtype_text = _q(f"Guard failed: {label}.dtype == {arg_type.dtype}")
        self.binds += [
            f"if not isinstance({param}, ndarray): raise GuardError({is_array} + _got({param}))",
            f"if {param}.ndim != {rank}: raise GuardError({rank_text} + f' (got {{{param}.ndim}})')",
            # numpy dtypes compare exactly (bfloat16 is ml_dtypes' own dtype, not a 2-byte 'V')
            f"if {param}.dtype != {dtype}: raise GuardError({dtype_text} + f' (got {{{param}.dtype}})')",
        ]
        for axis, dim in enumerate(arg_type.shape):
            self.dim(f"{param}.shape[{axis}]", f"{label}.size()[{axis}]", dim)

    def dim(self, value: str, label: str, dim: Any) -> None:
        if isinstance(dim, sympy.Symbol) and dim.name not in self.locals:
            local = self.locals[dim.name] = sympy.Symbol(f"d{len(self.locals)}", **dim.assumptions0)
            self.labels[dim.name] = label
            self.binds.append(f"{local.name} = {value}")
        else:
            self.sized.append((value, label, dim))

    def range(self, symbol: Any, low: Any, high: Any) -> None:
        expr = self.py(symbol)
        if expr is None:
            return
        text = self.user_text(symbol)
        if low is not None and low != -sympy.oo:
            message = _q(f"Guard failed: {text} >= {low}")
            self.checks.append(f"if not ({expr}) >= {int(low)}: raise GuardError({message})")
        if high is not None and high != sympy.oo:
            message = _q(f"Guard failed: {text} <= {high}")
            self.checks.append(f"if not ({expr}) <= {int(high)}: raise GuardError({message})")

    def guard(self, condition: Any) -> None:
        """A guard export recorded (divisibility, relations) checked on every call."""
        name = relation_name(condition)
        if name is None:
            return
        op = tx.PREDICATES[name]
        lhs, rhs = (self.py(side) for side in condition.args)
        if lhs is None or rhs is None:
            return
        text = _q(f"Guard failed: {self.user_text(condition.lhs)} {op} {self.user_text(condition.rhs)}")
        self.checks.append(f"if not (({lhs}) {op} ({rhs})): raise GuardError({text})")

    def bind_value(self, key: str, value: Any) -> str:
        name = f"{key}{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def py(self, dim: Any) -> str | None:
        """Python for ``dim`` over the generated locals; None while a symbol is
        unbound (an unbacked size: checked by the program's own asserts)."""
        if type(dim) is int or getattr(dim, "is_Integer", False):
            return str(int(dim))
        if not all(s.name in self.locals for s in dim.free_symbols):
            return None
        code = dim_str(dim.xreplace({s: self.locals[s.name] for s in dim.free_symbols}))
        allowed = _DIM_FUNCTIONS | {local.name for local in self.locals.values()}
        stray = sorted({n.id for n in ast.walk(ast.parse(code, mode="eval"))
                        if isinstance(n, ast.Name)} - allowed)
        if stray:  # a sympy function the plan has no definition for
            raise ExecutionError(f"cannot check the dim {dim_str(dim)}: {', '.join(stray)} is not supported")
        return code

    def user_text(self, dim: Any) -> str:
        """``dim`` as the user sees it: bound symbols as the input dims they came from."""
        if type(dim) is int:
            return str(dim)
        labels = {s: sympy.Symbol(self.labels[s.name]) for s in dim.free_symbols if s.name in self.labels}
        return dim_str(dim.xreplace(labels))


def _got(value: Any) -> str:
    return f" (got {type(value).__name__} {value!r})"


def _input_checks(
    func: FuncOp, params: list[str], names: Sequence[str], ranges: dict[Any, tuple[Any, Any]],
    namespace: dict[str, Any], guards: Sequence[Any] = (),
) -> list[str]:
    """Python lines that bind size symbols from the inputs and check every dim."""
    checks = _InputChecks(namespace)
    for param, label, arg_type in zip(params, names, func.function_type.inputs.data):
        checks.argument(param, label, arg_type)
    checks.check_sizes()
    for symbol, (low, high) in ranges.items():
        checks.range(symbol, low, high)
    for condition in guards:  # after the ranges: a size out of range is the clearer error
        checks.guard(condition)
    return checks.lines()


def _q(text: str) -> str:
    return repr(text)


# --------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------


def compile_function(
    func: FuncOp, *, input_names: Sequence[str] | None = None,
    ranges: dict[Any, tuple[Any, Any]] | None = None, guards: Sequence[Any] = (),
) -> Plan:
    """Compile ``func`` into a Plan that checks its inputs and runs its ops."""
    gen = _Codegen(_plan_namespace())
    params = [gen.name(arg) for arg in func.body.block.args]
    names = _input_labels(func, input_names)
    checks = _input_checks(func, params, names, ranges or {}, gen.namespace, guards)
    plan = gen.finish_function(func, checks)
    plan.arg_names = names
    return plan


def compile_input_checks(
    func: FuncOp, *, input_names: Sequence[str] | None = None,
    ranges: dict[Any, tuple[Any, Any]] | None = None, guards: Sequence[Any] = (),
) -> Callable[..., None]:
    """The checks a Plan of ``func`` makes on entry (types, dims, ranges, guards: the same
    lines, the same GuardErrors), alone: for a runner that runs the ops elsewhere (a
    native backend). Call it with one value per function argument."""
    namespace = _plan_namespace()
    gen = _Codegen(namespace)
    params = [gen.name(arg) for arg in func.body.block.args]
    checks = _input_checks(func, params, _input_labels(func, input_names), ranges or {}, namespace, guards)
    name = gen.bind("check", None)
    source = f"def {name}({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in checks) + "    return None\n"
    exec(compile(source, f"<texport input checks {func.sym_name.data}>", "exec"), namespace)  # noqa: S102 - our own codegen
    return namespace[name]


def _plan_namespace() -> dict[str, Any]:
    """The names generated plan code may use besides the ones it binds itself."""
    return {
        **RUNTIME_HELPERS, "GuardError": GuardError, "RuntimeAssertError": RuntimeAssertError,
        "Max": max, "Min": min, "ndarray": np.ndarray, "_got": _got,
    }


def _input_labels(func: FuncOp, input_names: Sequence[str] | None) -> list[str]:
    """How messages name each argument: as given, else its IR name, else argN."""
    if input_names is not None:
        return list(input_names)
    return [arg.name_hint or f"arg{i}" for i, arg in enumerate(func.body.block.args)]


def find_function(module: Operation, entry: str | None = None) -> FuncOp:
    """The function named ``entry``, or the only/first public one."""
    funcs = [op for op in module.walk() if isinstance(op, FuncOp)]
    if entry is not None:
        for func in funcs:
            if func.sym_name.data == entry:
                return func
        names = ", ".join(f.sym_name.data for f in funcs) or "none"
        raise ExecutionError(f"no function @{entry} in the program (functions: {names})")
    if not funcs:
        raise ExecutionError("the program has no func.func to run")
    return funcs[0]


def run_function(func: FuncOp, *inputs: Any) -> tuple[Any, ...]:
    return compile_function(func)(*[np.asarray(x) if not isinstance(x, (int, float)) else x for x in inputs])
