"""Core IR as torch-mlir's ``torch`` dialect text, the form torch-mlir's fx importer
prints (IREE compiles it with ``--iree-input-type=torch``):

    func.func @forward(%arg0: !torch.vtensor<[4,4],f32>, %arg1: !torch.vtensor<[?,4],f32>) -> ... {
      %int1 = torch.constant.int 1
      %int0 = torch.constant.int 0
      %0 = torch.prim.ListConstruct %int1, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
      %1 = torch.aten.permute %arg0, %0 : !torch.vtensor<[4,4],f32>, !torch.list<int> -> !torch.vtensor<[4,4],f32>

A translation, not a dialect: every ATen op maps one to one, driven by its schema
(each argument becomes a torch value of the schema's type: constants, lists, the SSA
values of tensors and symbolic ints); the few ops whose torch-mlir form differs (ops
torch-mlir only knows decomposed, symbolic-int ops, a scalar in a Tensor position)
are in ``_RENAMED`` and ``_SPECIAL_FORMS``. ``control.cond`` becomes ``torch.prim.If``;
``control.scan``, ``control.map`` and ``control.while_loop`` become ``torch.prim.Loop``.
An op torch-mlir lacks is an error naming the op, its schema and where it is.

IREE notes (iree-base-compiler 3.13): compile with ``--iree-input-demote-f64-to-f32=false``
when a program returns f64 (the default demotion breaks the output's buffer size).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from texport.dialects.aten import AtenOp, format_float
from texport.dialects.dtypes import DType
from texport.dialects.registry import OpDef
from texport.dialects.schema import ArgType, OpSchema
from texport.dialects.tx import SymBoolType, SymFloatType, SymIntType, TensorType
from texport.lowering.legality import where


class TorchDialectError(ValueError):
    """A core program the torch dialect cannot express; the message names the op and where."""


# torch-mlir's vtensor element types (signed integers, i1 for bool), as the fx importer spells them
ELEMENT_TYPES = {
    DType.float32: "f32", DType.float64: "f64", DType.float16: "f16", DType.bfloat16: "bf16",
    DType.int64: "si64", DType.int32: "si32", DType.int16: "si16", DType.int8: "si8",
    DType.uint8: "ui8", DType.bool: "i1", DType.complex64: "complex<f32>", DType.complex128: "complex<f64>",
}
# torch's enums as the integers torch-mlir takes (c10::MemoryFormat, c10::Layout)
MEMORY_FORMATS = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3}
LAYOUTS = {"strided": 0, "sparse_coo": 1, "sparse_csr": 2, "sparse_csc": 3, "sparse_bsr": 4, "sparse_bsc": 5}
# A scalar in an op's Tensor ``other``: torch-mlir's Scalar overload, as the fx importer picks it
SCALAR_OVERLOADS = {
    "torch.aten.mul.Tensor": "torch.aten.mul.Scalar", "torch.aten.div.Tensor": "torch.aten.div.Scalar",
    "torch.aten.add.Tensor": "torch.aten.add.Scalar", "torch.aten.sub.Tensor": "torch.aten.sub.Scalar",
}
# ops torch-mlir spells differently, with the same arguments
_RENAMED = {
    "aten.sym_size.int": "torch.aten.size.int",
    "aten.sym_numel.default": "torch.aten.numel",
    "aten.squeeze.dims": "torch.prims.squeeze",
    "aten.grid_sampler_2d.default": "torch.aten.grid_sampler",
}
# symbolic-int arithmetic: tx op -> torch-mlir op on !torch.int, on !torch.float
_SYMBOLIC_OPS = {
    "tx.add": ("torch.aten.add.int", "torch.aten.add.float"),
    "tx.sub": ("torch.aten.sub.int", "torch.aten.sub.float"),
    "tx.mul": ("torch.aten.mul.int", "torch.aten.mul.float"),
    "tx.floordiv": ("torch.aten.floordiv.int", None),
    "tx.mod": ("torch.aten.remainder.int", None),
    "tx.max": ("torch.prim.max.int", None),
    "tx.min": ("torch.prim.min.int", None),
}

_TENSOR = ArgType("Tensor")
_OPTIONAL_TENSOR = ArgType("Tensor", optional=True)
_INT, _FLOAT, _BOOL = ArgType("int"), ArgType("float"), ArgType("bool")
_INTS = ArgType("int", is_list=True)


@functools.cache
def torch_mlir_ops() -> frozenset[str]:
    """The op names torch-mlir's dialect defines (``torch.aten.add.Tensor``)."""
    text = resources.files("texport.lowering").joinpath("torch_mlir_ops.txt").read_text()
    return frozenset("torch." + line.strip() for line in text.splitlines() if line.strip() and line[0] != "#")


def torch_op_name(schema: OpSchema) -> str:
    """``torch.aten.add.Tensor``; the ``.default`` overload is left out, as torch-mlir does."""
    return f"torch.{schema.namespace}.{schema.qualified_name}"


def has_torch_mlir_form(op_def: OpDef) -> bool:
    """Whether the emitter can write ``op_def``: a special form, or torch-mlir has its op."""
    if op_def.key in _SPECIAL_FORMS:
        return True
    return (_RENAMED.get(op_def.key) or torch_op_name(op_def.schema)) in torch_mlir_ops()


def torch_type(attr: Attribute) -> str:
    if isinstance(attr, TensorType):
        dims = ",".join(str(d) if type(d) is int else "?" for d in attr.shape)
        return f"!torch.vtensor<[{dims}],{ELEMENT_TYPES[attr.dtype]}>"
    if isinstance(attr, SymIntType):
        return "!torch.int"
    if isinstance(attr, SymFloatType):
        return "!torch.float"
    if isinstance(attr, SymBoolType):
        return "!torch.bool"
    raise TorchDialectError(f"no torch-mlir type for {attr}")


def float_literal(value: float) -> str:
    """An f64 as MLIR reads it: texport's float literal, the bits in hex when not finite
    (MLIR has no ``nan``/``inf`` literal)."""
    if math.isnan(value):
        return "0x7FF8000000000000"
    if math.isinf(value):
        return "0x7FF0000000000000" if value > 0 else "0xFFF0000000000000"
    return format_float(value)


def describe(op: Operation) -> str:
    """``'core.view' (%view) at file:line``: the op and where it is."""
    hint = next((r.name_hint for r in op.results if r.name_hint), None)
    return f"'{op.name}'" + (f" (%{hint})" if hint else "") + where(op)


def emit_torch_dialect(module: ModuleOp) -> str:
    """The module's ``func.func @forward`` (core level) as torch-mlir ``torch`` dialect text."""
    funcs = [op for op in module.ops if op.name == "func.func"]
    if len(funcs) != 1:
        raise TorchDialectError(f"expected one func.func in the module, found {len(funcs)}")
    return _Emitter().module(funcs[0])


Typed = tuple[str, str]  # (SSA name, torch type)


class _Emitter:
    """Writes one function: SSA names of the core values, the text lines, fresh names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 4
        self.names: dict[SSAValue, str] = {}
        self.counter = 0
        self.taken: dict[str, int] = {}

    # ---- text ----------------------------------------------------------------

    def module(self, func: Operation) -> str:
        body = func.regions[0].block
        arguments = []
        for index, arg in enumerate(body.args):
            self.names[arg] = f"%arg{index}"
            arguments.append(f"%arg{index}: {torch_type(arg.type)}")
        results = [torch_type(t) for t in func.function_type.outputs.data]
        arrow = "" if not results else " -> " + (results[0] if len(results) == 1 else f"({', '.join(results)})")
        name = func.sym_name.data
        self.emit_block(body.ops)
        head = ["module {", f"  func.func @{name}({', '.join(arguments)}){arrow} {{"]
        return "\n".join([*head, *self.lines, "  }", "}", ""])

    def line(self, text: str) -> None:
        self.lines.append(" " * self.depth + text)

    def fresh(self, base: str | None = None) -> str:
        """A new SSA name: ``%7``, or ``%int1``, ``%int1_0``, ... as MLIR's printer names constants."""
        if base is None:
            self.counter += 1
            return f"%{self.counter - 1}"
        seen = self.taken.get(base)
        self.taken[base] = 0 if seen is None else seen + 1
        return f"%{base}" if seen is None else f"%{base}_{seen}"

    def value(self, value: SSAValue, op: Operation) -> Typed:
        try:
            return self.names[value], torch_type(value.type)
        except KeyError:
            raise TorchDialectError(f"{describe(op)} uses a value defined by no emitted op") from None

    def bind(self, head: str, values: Sequence[SSAValue]) -> str:
        """Name ``values`` after one result head: ``%3``, or ``%3#0``, ``%3#1``; the head to print
        (``%3``, ``%3:2``)."""
        if len(values) == 1:
            self.names[values[0]] = head
            return head
        for index, value in enumerate(values):
            self.names[value] = f"{head}#{index}"
        return f"{head}:{len(values)}"

    def call(self, name: str, operands: Sequence[Typed], results: Sequence[SSAValue],
             result_types: Sequence[str] | None = None) -> str:
        """``%r = name %a, %b : ta, tb -> tr`` (torch-mlir's default op syntax), naming ``results``
        (``%r``, or ``%r#0``, ``%r#1``); the result's name ``%r``. Without ``results`` the op
        makes values of ``result_types`` that no core value stands for."""
        types = list(result_types) if result_types is not None else [torch_type(r.type) for r in results]
        head = self.fresh() if types else ""
        if results:
            self.bind(head, results)
        shown = f"{head}:{len(types)}" if len(types) > 1 else head
        text = f"{shown} = {name}" if shown else name
        if operands:
            text += " " + ", ".join(n for n, _ in operands)
        text += " : " + ", ".join(t for _, t in operands)
        if operands and types:
            text += " -> "
        self.line(text + ", ".join(types))
        return head

    def emit_block(self, ops: Any) -> None:
        for op in ops:
            self.emit_op(op)

    def emit_op(self, op: Operation) -> None:
        if isinstance(op, AtenOp):
            special = _SPECIAL_FORMS.get(op.op_def.key)
            if special is None and op.op_def.schema.is_mutable:
                raise TorchDialectError(f"{describe(op)} writes its argument, which torch-mlir's value tensors "
                                        "cannot; emit a core program (ep.run_decompositions())")
            (special or _emit_aten)(self, op)
        elif op.name in _OTHER_OPS:
            _OTHER_OPS[op.name](self, op)
        else:
            raise TorchDialectError(f"{describe(op)} has no torch-mlir form")

    # ---- constants and arguments ---------------------------------------------------

    def constant(self, value: Any, arg_type: ArgType = _INT) -> Typed:
        """A literal as a torch constant of the schema type ``arg_type``."""
        base = arg_type.base
        if value is None:
            return self._constant("none", "torch.constant.none", "!torch.none")
        if isinstance(value, DType):
            return self.constant(value.scalar_type)
        if base in ("MemoryFormat", "Layout") and isinstance(value, str):
            codes = MEMORY_FORMATS if base == "MemoryFormat" else LAYOUTS
            return self.constant(codes[value])
        if base == "Device":
            return self._constant("cpu", f"torch.constant.device {_string(str(value))}", "!torch.Device")
        if isinstance(value, bool) and base == "Scalar":
            return self.constant(int(value))  # torch-mlir's Scalar is a number (the importer's Int.bool)
        if isinstance(value, bool):
            word = "true" if value else "false"
            return self._constant(word, f"torch.constant.bool {word}", "!torch.bool")
        if isinstance(value, int) and base not in ("float", "SymFloat"):
            return self._constant(f"int{value}", f"torch.constant.int {value}", "!torch.int")
        if isinstance(value, (int, float)):
            return self._constant("float", f"torch.constant.float {float_literal(float(value))}", "!torch.float")
        if isinstance(value, str):
            return self._constant("str", f"torch.constant.str {_string(value)}", "!torch.str")
        raise TorchDialectError(f"no torch-mlir constant for {type(value).__name__} {value!r}")

    def _constant(self, base: str, text: str, type_text: str) -> Typed:
        name = self.fresh(base)
        self.line(f"{name} = {text}")
        return name, type_text

    def argument(self, value: Any, arg_type: ArgType, op: Operation) -> Typed:
        """One schema argument as a torch value: an SSA value, a constant or a list."""
        if isinstance(value, SSAValue):
            if arg_type.base == "Tensor" and not isinstance(value.type, TensorType):
                return self.number_tensor(self.value(value, op), value.type)
            return self.value(value, op)
        if arg_type.is_list and isinstance(value, (list, tuple)):
            return self.list_value(value, arg_type, op)
        if arg_type.base == "Tensor" and value is not None:
            return self.number_tensor(value)
        return self.constant(value, arg_type)

    def list_value(self, items: Sequence[Any], arg_type: ArgType, op: Operation) -> Typed:
        element = ArgType(arg_type.base)
        kind = {"Tensor": "vtensor", "SymInt": "int", "SymFloat": "float", "SymBool": "bool"}.get(
            arg_type.base, arg_type.base)
        list_type = f"!torch.list<optional<{kind}>>" if arg_type.element_optional else f"!torch.list<{kind}>"
        elements = [self.argument(item, element, op) if item is not None else self.constant(None)
                    for item in items]
        return self.construct_list(elements, list_type), list_type

    def construct_list(self, elements: Sequence[Typed], list_type: str) -> str:
        """``torch.prim.ListConstruct`` (its syntax: a functional type); the list's name."""
        name = self.fresh()
        names = ", ".join(n for n, _ in elements)
        self.line(f"{name} = torch.prim.ListConstruct {names}{' ' if names else ''}: "
                  f"({', '.join(t for _, t in elements)}) -> {list_type}")
        return name

    def number_tensor(self, value: Any, symbolic_type: Attribute | None = None) -> Typed:
        """A scalar where the schema wants a Tensor: a 0-d tensor of it (``torch.prim.NumToTensor.Scalar``,
        as the fx importer makes it); ``value`` a Python scalar, or a symbolic one's (name, type)."""
        if symbolic_type is not None:
            scalar = value
            dtype = DType.float64 if isinstance(symbolic_type, SymFloatType) else DType.bool \
                if isinstance(symbolic_type, SymBoolType) else DType.int64
        else:
            scalar = self.constant(value, _FLOAT if isinstance(value, float) else _INT)
            dtype = DType.bool if isinstance(value, bool) else DType.int64 if isinstance(value, int) \
                else DType.float64
        type_text = f"!torch.vtensor<[],{ELEMENT_TYPES[dtype]}>"
        return self.call("torch.prim.NumToTensor.Scalar", [scalar], [], [type_text]), type_text

    def scalar(self, value: Any, op: Operation) -> Typed:
        """A Scalar argument: the SSA value of a symbolic scalar, else a constant."""
        if isinstance(value, SSAValue):
            return self.value(value, op)
        return self.constant(value, _FLOAT if isinstance(value, float) else _INT)


# ---- ATen ops ----------------------------------------------------------------------


def _require(name: str, op: AtenOp) -> None:
    """An op torch-mlir lacks would import as an opaque torch.operator no backend lowers: refuse it."""
    if name not in torch_mlir_ops():
        raise TorchDialectError(
            f"{describe(op)}: torch-mlir has no op {name} for the schema '{op.op_def.schema_text}'")


def _emit_aten(emitter: _Emitter, op: AtenOp) -> None:
    """The one-to-one form: the op under its torch-mlir name, every schema argument in order."""
    schema = op.op_def.schema
    name = _RENAMED.get(op.op_def.key) or torch_op_name(schema)
    operands: list[Typed] = []
    for index, (arg, value) in enumerate(zip(schema.arguments, op.arguments())):
        scalar_other = index == 1 and arg.type == _TENSOR and (
            isinstance(value, (int, float)) or isinstance(value, SSAValue) and not isinstance(value.type, TensorType))
        if scalar_other and name in SCALAR_OVERLOADS:
            name = SCALAR_OVERLOADS[name]
            operands.append(emitter.scalar(value, op))
        else:
            operands.append(emitter.argument(value, arg.type, op))
    _require(name, op)
    returns_list = len(schema.returns) == 1 and schema.returns[0].type.is_list
    if not returns_list:
        emitter.call(name, operands, op.results)
        return
    # a Tensor[] result: the list, then torch.prim.ListUnpack into the core op's results
    listed = emitter.call(name, operands, [], ["!torch.list<vtensor>"])
    emitter.call("torch.prim.ListUnpack", [(listed, "!torch.list<vtensor>")], op.results)


# ---- ops torch-mlir only knows in another form -----------------------------------------


def _native_batch_norm(emitter: _Emitter, op: AtenOp, args: dict[str, Any], results: Sequence[SSAValue]) -> None:
    """``torch.aten.native_batch_norm`` (torch-mlir has none of the ``_native_batch_norm_legit``
    family: torch-mlir's importer decomposes them first); ``results`` are out, save_mean, save_rstd."""
    operands = [
        emitter.argument(args["input"], _TENSOR, op),
        *(emitter.argument(args.get(name), _OPTIONAL_TENSOR, op)
          for name in ("weight", "bias", "running_mean", "running_var")),
        emitter.constant(args["training"], _BOOL),
        emitter.constant(args["momentum"], _FLOAT),
        emitter.constant(args["eps"], _FLOAT),
    ]
    # torch returns empty statistics ([0]) in eval mode, torch-mlir's op per-channel ones ([C])
    channels = TensorType.get((args["input"].type.shape[1],), results[1].type.dtype)
    empty = [index for index in (1, 2) if results[index].type.shape == (0,)]
    types = [torch_type(channels if index in empty else r.type) for index, r in enumerate(results)]
    head = emitter.call("torch.aten.native_batch_norm", operands, [], types)
    for index, result in enumerate(results):
        if index not in empty:
            emitter.names[result] = f"{head}#{index}"
        elif result.uses:
            emitter.names[result] = _zeros(emitter, result, op)


def _batch_norm_arguments(op: AtenOp) -> dict[str, Any]:
    return {arg.name: value for arg, value in zip(op.op_def.schema.arguments, op.arguments())}


def _batch_norm_no_training(emitter: _Emitter, op: AtenOp) -> None:
    _native_batch_norm(emitter, op, {**_batch_norm_arguments(op), "training": False}, op.results)


def _batch_norm_legit(emitter: _Emitter, op: AtenOp) -> None:
    """``_native_batch_norm_legit`` (the ``no_stats`` overload has no running statistics: None)."""
    _native_batch_norm(emitter, op, _batch_norm_arguments(op), op.results)


def _batch_norm_functional(emitter: _Emitter, op: AtenOp) -> None:
    """``_native_batch_norm_legit_functional``: native_batch_norm, then the new running
    statistics as torch computes them (momentum-weighted mean, unbiased variance)."""
    args = _batch_norm_arguments(op)
    out, save_mean, save_rstd, new_mean, new_var = op.results
    _native_batch_norm(emitter, op, args, (out, save_mean, save_rstd))
    running_mean, running_var = args["running_mean"], args["running_var"]
    if not args["training"]:
        emitter.names[new_mean], emitter.names[new_var] = emitter.names[running_mean], emitter.names[running_var]
        return
    rank = len(args["input"].type.shape)
    dims = emitter.list_value([0, *range(2, rank)], _INTS, op)
    variance = emitter.call("torch.aten.var.correction", [
        emitter.value(args["input"], op), dims, emitter.constant(1), emitter.constant(False)],
        [], [torch_type(running_var.type)])
    momentum = args["momentum"]
    for new, running, batch in ((new_mean, running_mean, emitter.names[save_mean]), (new_var, running_var, variance)):
        kept = emitter.call("torch.aten.mul.Scalar", [
            emitter.value(running, op), emitter.constant(1.0 - momentum, _FLOAT)], [], [torch_type(running.type)])
        emitter.call("torch.aten.add.Tensor", [
            (kept, torch_type(running.type)), (batch, torch_type(running.type)),
            emitter.constant(momentum, _FLOAT)], [new])


def _local_scalar_dense(emitter: _Emitter, op: AtenOp) -> None:
    """``.item()``: torch.aten.Float/Int/Bool.Tensor by the tensor's dtype, as torch-mlir's importer."""
    (tensor,) = op.operands
    dtype = tensor.type.dtype
    kind = "Bool" if dtype == DType.bool else "Float" if dtype.is_floating_point else "Int"
    emitter.call(f"torch.aten.{kind}.Tensor", [emitter.value(tensor, op)], op.results)


def _upsample_bilinear(emitter: _Emitter, op: AtenOp) -> None:
    """``upsample_bilinear2d.vec`` → ``torch.aten.__interpolate.size_list_scale_list`` (what torch-mlir
    lowers; its own upsample_bilinear2d.vec stops at IREE's legalization)."""
    image, output_size, align_corners, scale_factors = op.arguments()
    optional_ints = ArgType("int", optional=True, is_list=True)
    optional_floats = ArgType("float", optional=True, is_list=True)
    emitter.call("torch.aten.__interpolate.size_list_scale_list", [
        emitter.argument(image, _TENSOR, op), emitter.argument(output_size, optional_ints, op),
        emitter.argument(scale_factors, optional_floats, op), emitter.constant("bilinear", ArgType("str")),
        emitter.constant(align_corners, _BOOL), emitter.constant(None), emitter.constant(False)], op.results)


def _assert_scalar(emitter: _Emitter, op: AtenOp) -> None:
    """``_assert_scalar``: ``torch.runtime.assert`` on a symbolic bool; a literal true checks nothing."""
    condition, message = op.arguments()
    if isinstance(condition, SSAValue):
        _runtime_assert(emitter, emitter.value(condition, op)[0], message)
    elif not condition:
        raise TorchDialectError(f"{describe(op)} asserts false: {message}")


def _scalar_other_as_tensor(emitter: _Emitter, op: AtenOp) -> None:
    """``bitwise_or.Scalar``, ``bitwise_xor.Scalar``: torch-mlir has only the Tensor overloads,
    so the scalar becomes a 0-d tensor."""
    schema = op.op_def.schema
    name = f"torch.{schema.namespace}.{schema.name}.Tensor"
    self_value, other = op.arguments()
    operands = [emitter.argument(self_value, _TENSOR, op), emitter.argument(other, _TENSOR, op)]
    _require(name, op)
    emitter.call(name, operands, op.results)


def _checks_nothing(emitter: _Emitter, op: AtenOp) -> None:
    """Tensor asserts and range hints: torch-mlir's importer drops them (nothing computes on them)."""


def _view(emitter: _Emitter, op: AtenOp) -> None:
    """``view`` between shapes with several symbolic dims goes through the flat tensor: torch-mlir
    lowers a reshape of several dynamic dims by pairing them up, and a wrong pairing is silently
    wrong ([s0, 4*s1, 4] -> [s0*s1, 16] came out as s1 = 1)."""
    source = op.operands[0]
    before, after = source.type.shape, op.results[0].type.shape
    if _symbolic_dims(before) < 2 and _symbolic_dims(after) < 2 or before == after:
        _emit_aten(emitter, op)
        return
    flat_type = f"!torch.vtensor<[?],{ELEMENT_TYPES[source.type.dtype]}>"
    flat = emitter.call("torch.aten.view", [emitter.value(source, op), emitter.list_value([-1], _INTS, op)], [],
                        [flat_type])
    size = op.arguments()[1]
    emitter.call("torch.aten.view", [(flat, flat_type), emitter.list_value(size, _INTS, op)], op.results)


def _symbolic_dims(shape: Sequence[Any]) -> int:
    return sum(type(dim) is not int for dim in shape)


_SPECIAL_FORMS: dict[str, Callable[[_Emitter, AtenOp], None]] = {
    "aten.view.default": _view,
    "aten.bitwise_or.Scalar": _scalar_other_as_tensor,
    "aten.bitwise_xor.Scalar": _scalar_other_as_tensor,
    "aten.upsample_bilinear2d.vec": _upsample_bilinear,
    "aten._assert_scalar.default": _assert_scalar,
    "aten._assert_async.default": _checks_nothing,
    "aten._assert_async.msg": _checks_nothing,
    "aten.sym_constrain_range.default": _checks_nothing,
    "aten.sym_constrain_range_for_size.default": _checks_nothing,
    "aten._native_batch_norm_legit_no_training.default": _batch_norm_no_training,
    "aten._native_batch_norm_legit.default": _batch_norm_legit,
    "aten._native_batch_norm_legit.no_stats": _batch_norm_legit,
    "aten._native_batch_norm_legit_functional.default": _batch_norm_functional,
    "aten._local_scalar_dense.default": _local_scalar_dense,
}


# ---- symbolic scalars, return, control flow ------------------------------------------------


def _tx_constant(emitter: _Emitter, op: Operation) -> None:
    value = op.value.value.data
    emitter.names[op.result] = emitter.constant(value, _FLOAT if isinstance(value, float) else _INT)[0]


def _tx_arithmetic(emitter: _Emitter, op: Operation) -> None:
    on_ints, on_floats = _SYMBOLIC_OPS[op.name]
    is_float = isinstance(op.result.type, SymFloatType)
    name = on_floats if is_float else on_ints
    if name is None:
        raise TorchDialectError(f"{describe(op)}: torch-mlir has no form of it on floats")
    operands = [_as_float(emitter, value, op) if is_float else emitter.value(value, op) for value in op.operands]
    emitter.call(name, operands, op.results)


def _as_float(emitter: _Emitter, value: SSAValue, op: Operation) -> Typed:
    name, type_text = emitter.value(value, op)
    if type_text == "!torch.float":
        return name, type_text
    return emitter.call("torch.aten.Float.Scalar", [(name, type_text)], [], ["!torch.float"]), "!torch.float"


def _tx_to_float(emitter: _Emitter, op: Operation) -> None:
    emitter.call("torch.aten.Float.Scalar", [emitter.value(op.input, op)], op.results)


def _tx_cmp(emitter: _Emitter, op: Operation) -> None:
    emitter.call(f"torch.aten.{op.predicate.data}.int", [emitter.value(v, op) for v in op.operands], op.results)


def _tx_assert(emitter: _Emitter, op: Operation) -> None:
    _runtime_assert(emitter, emitter.value(op.condition, op)[0], op.message.data)


def _runtime_assert(emitter: _Emitter, condition: str, message: str) -> None:
    emitter.line(f"torch.runtime.assert {condition}, {_string(message)}")


def _string(text: str) -> str:
    """An MLIR string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _return(emitter: _Emitter, op: Operation) -> None:
    values = [emitter.value(v, op) for v in op.operands]
    if not values:
        emitter.line("return")
        return
    emitter.line(f"return {', '.join(n for n, _ in values)} : {', '.join(t for _, t in values)}")


def _as_bool(emitter: _Emitter, value: Typed) -> str:
    """A predicate as a !torch.bool: a symbolic bool, or a one-element bool tensor."""
    if value[1] == "!torch.bool":
        return value[0]
    return emitter.call("torch.aten.Bool.Tensor", [value], [], ["!torch.bool"])


def _cond(emitter: _Emitter, op: Operation) -> None:
    """``control.cond`` → ``torch.prim.If``; the branches read the op's operands where the
    core regions read their block arguments (torch.prim.If regions take none)."""
    predicate = _as_bool(emitter, emitter.value(op.pred, op))
    inputs = list(op.inputs)
    types = [torch_type(r.type) for r in op.res]
    head = emitter.bind(emitter.fresh(), list(op.res)) if op.res else ""
    prefix = f"{head} = " if head else ""
    emitter.line(f"{prefix}torch.prim.If {predicate} -> ({', '.join(types)}) {{")
    for index, region in enumerate((op.true_region, op.false_region)):
        if index:
            emitter.line("} else {")
        block = region.block
        for arg, value in zip(block.args, inputs):
            emitter.names[arg] = emitter.names[value]
        _region_body(emitter, block, lambda values: _if_yield(emitter, values, op))
    emitter.line("}")


def _if_yield(emitter: _Emitter, values: Sequence[SSAValue], op: Operation) -> None:
    typed = [emitter.value(v, op) for v in values]
    if not typed:
        emitter.line("torch.prim.If.yield")
        return
    emitter.line(f"torch.prim.If.yield {', '.join(n for n, _ in typed)} : {', '.join(t for _, t in typed)}")


def _region_body(emitter: _Emitter, block: Any, terminate: Callable[[Sequence[SSAValue]], None]) -> None:
    """A core region's ops one level deeper, its control.yield handed to ``terminate``."""
    emitter.depth += 2
    terminate(_inline(emitter, block))
    emitter.depth -= 2


def _inline(emitter: _Emitter, block: Any, arguments: Sequence[str] = ()) -> list[SSAValue]:
    """Emit a core region's ops where the emitter is (its block arguments named ``arguments``
    when given); the values its control.yield gives."""
    for arg, name in zip(block.args, arguments):
        emitter.names[arg] = name
    for inner in block.ops:
        if inner.name == "control.yield":
            return list(inner.operands)
        emitter.emit_op(inner)
    return []


def _scan(emitter: _Emitter, op: Operation) -> None:
    """``control.scan`` → ``torch.prim.Loop`` over dim 0 of ``xs``."""
    reverse = op.reverse is not None and bool(op.reverse.value.data)
    _slice_loop(emitter, op, list(op.init), list(op.xs), list(op.additional_inputs), op.body.block, reverse)


def _map(emitter: _Emitter, op: Operation) -> None:
    """``control.map`` → ``torch.prim.Loop``: a scan without carries."""
    _slice_loop(emitter, op, [], list(op.xs), list(op.args), op.body.block)


def _slice_loop(emitter: _Emitter, op: Operation, carries: list[SSAValue], xs: list[SSAValue],
                extras: list[SSAValue], block: Any, reverse: bool = False) -> None:
    """A loop over dim 0 of ``xs`` as ``torch.prim.Loop``: the carries are the loop's iteration
    values, and so is each stacked output (zeros, filled one slice per step by slice_scatter);
    the body reads slice ``step`` of each of ``xs`` (``length - 1 - step`` when ``reverse``: the
    outputs still line up with xs) and ``extras`` from outside."""
    if not xs:
        raise TorchDialectError(f"{describe(op)}: a loop without xs has no trip count")
    n_carries = len(carries)
    stacked_results = list(op.res)[n_carries:]
    trip_count = emitter.call("torch.aten.size.int", [emitter.value(xs[0], op), emitter.constant(0)], [],
                              ["!torch.int"])
    go_on = emitter.constant(True)[0]
    initial = [emitter.value(v, op) for v in carries]
    initial += [(_zeros(emitter, result, op, trip_count), torch_type(result.type)) for result in stacked_results]
    step, iterated = _loop_head(emitter, op, trip_count, go_on, initial)
    for arg, value in zip(block.args[n_carries + len(xs):], extras):
        emitter.names[arg] = emitter.names[value]
    emitter.depth += 2
    index = step
    if reverse:
        last = emitter.call("torch.aten.sub.int", [(trip_count, "!torch.int"), emitter.constant(1)], [], ["!torch.int"])
        index = emitter.call("torch.aten.sub.int", [(last, "!torch.int"), (step, "!torch.int")], [], ["!torch.int"])
    slices = [emitter.call("torch.aten.select.int", [emitter.value(x, op), emitter.constant(0), (index, "!torch.int")],
                           [], [torch_type(arg.type)]) for x, arg in zip(xs, block.args[n_carries:])]
    values = _inline(emitter, block, [*iterated[:n_carries], *slices])
    nexts = [emitter.value(v, op) for v in values[:n_carries]]
    following = emitter.call("torch.aten.add.int", [(index, "!torch.int"), emitter.constant(1)], [], ["!torch.int"])
    for value, buffer, result in zip(values[n_carries:], iterated[n_carries:], stacked_results):
        row_type = torch_type(TensorType.get((1, *value.type.shape), value.type.dtype))
        row = emitter.call("torch.aten.unsqueeze", [emitter.value(value, op), emitter.constant(0)], [], [row_type])
        stacked = emitter.call("torch.aten.slice_scatter", [
            (buffer, torch_type(result.type)), (row, row_type), emitter.constant(0), (index, "!torch.int"),
            (following, "!torch.int"), emitter.constant(1)], [], [torch_type(result.type)])
        nexts.append((stacked, torch_type(result.type)))
    _loop_end(emitter, go_on, nexts, initial)


def _while_loop(emitter: _Emitter, op: Operation) -> None:
    """``control.while_loop`` → a while-like ``torch.prim.Loop``: the cond region runs once on
    the initial values (the loop's initial condition) and again after each body."""
    extras = [emitter.names[v] for v in op.additional_inputs]
    initial = [emitter.value(v, op) for v in op.carried]
    first = _condition(emitter, op, [n for n, _ in initial])
    step, iterated = _loop_head(emitter, op, emitter.constant(2**63 - 1)[0], first, initial)
    emitter.depth += 2
    values = _inline(emitter, op.body.block, [*iterated, *extras])
    nexts = [emitter.value(v, op) for v in values]
    go_on = _condition(emitter, op, [n for n, _ in nexts])
    _loop_end(emitter, go_on, nexts, initial)


def _condition(emitter: _Emitter, op: Operation, carried: list[str]) -> str:
    """A while loop's cond region on ``carried`` (and its additional inputs), as a !torch.bool."""
    extras = [emitter.names[v] for v in op.additional_inputs]
    (value,) = _inline(emitter, op.cond_region.block, [*carried, *extras])
    return _as_bool(emitter, emitter.value(value, op))


def _loop_head(emitter: _Emitter, op: Operation, trip_count: str, condition: str,
               initial: list[Typed]) -> tuple[str, list[str]]:
    """``%r:n = torch.prim.Loop trip, cond, init(...) {`` and its block's arguments; the names of
    the step and of the iteration values."""
    head = emitter.bind(emitter.fresh(), list(op.res))
    emitter.line(f"{head} = torch.prim.Loop {trip_count}, {condition}, init({', '.join(n for n, _ in initial)}) {{")
    step = emitter.fresh("arg")
    iterated = [emitter.fresh("arg") for _ in initial]
    types = ["!torch.int", *(t for _, t in initial)]
    emitter.line(f"^bb0({', '.join(f'{n}: {t}' for n, t in zip([step, *iterated], types))}):")
    return step, iterated


def _loop_end(emitter: _Emitter, condition: str, nexts: list[Typed], initial: list[Typed]) -> None:
    """The loop's ``torch.prim.Loop.condition`` and the closing line (entered one level deeper)."""
    emitter.line(f"torch.prim.Loop.condition {condition}, iter({', '.join(n for n, _ in nexts)} : "
                 f"{', '.join(t for _, t in nexts)})")
    emitter.depth -= 2
    types = [t for _, t in initial]
    emitter.line(f"}} : ({', '.join(['!torch.int', '!torch.bool', *types])}) -> ({', '.join(types)})")


def _zeros(emitter: _Emitter, result: SSAValue, op: Operation, leading: str | None = None) -> str:
    """A zero tensor of ``result``'s type: its dims static, or its leading one ``leading``
    (the trip count of a loop stacking per-step outputs)."""
    shape = result.type.shape
    dims: list[Typed] = []
    for index, dim in enumerate(shape):
        if type(dim) is int:
            dims.append(emitter.constant(dim))
        elif index == 0 and leading is not None:
            dims.append((leading, "!torch.int"))
        else:
            raise TorchDialectError(f"{describe(op)}: a stacked output of symbolic shape {shape} is not supported")
    sizes = (emitter.construct_list(dims, "!torch.list<int>"), "!torch.list<int>")
    return emitter.call("torch.aten.zeros", [
        sizes, emitter.constant(result.type.dtype), emitter.constant(None), emitter.constant(None),
        emitter.constant(None)], [], [torch_type(result.type)])


_OTHER_OPS: dict[str, Callable[[_Emitter, Operation], None]] = {
    "tx.constant": _tx_constant,
    **dict.fromkeys(_SYMBOLIC_OPS, _tx_arithmetic),
    "tx.to_float": _tx_to_float,
    "tx.cmp": _tx_cmp,
    "tx.assert": _tx_assert,
    "func.return": _return,
    "control.cond": _cond,
    "control.scan": _scan,
    "control.map": _map,
    "control.while_loop": _while_loop,
}
