"""``texport.from_torch(torch_ep)``: a real ``torch.export.ExportedProgram`` as a
texport ExportedProgram at the same level.

The function is built straight from torch's FX graph: each placeholder becomes
an argument (with its signature attributes), each ``call_function`` the op of
the same ATen overload in texport's table, typed from ``node.meta["val"]`` so
that torch's symbols (``s77``, ``u0``) and their relations (``2*s77``) stay;
SymInt arithmetic becomes ``tx`` ops, ``_assert_scalar`` ``tx.assert``, the
control-flow HOPs ``control`` ops with their ``get_attr`` subgraphs as regions.
texport's verifier then checks every op against its shape rule: a disagreement
is an error naming the node.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    i32,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue

from texport.dialects import tx
from texport.dialects.aten import op_class
from texport.dialects.context import verify_module
from texport.dialects.control import CondOp, MapOp, ScanOp, WhileLoopOp, YieldOp
from texport.dialects.names import fresh_name, set_name
from texport.dialects.registry import LEVELS, OPS
from texport.dialects.symbolic import dim_str
from texport.export.program import ExportedProgram
from texport.tracer.export import TracedProgram
from texport.tracer.module_calls import ModuleCallEntry, ModuleCallSignature
from texport.tracer.signature import ConstantArgument, InputKind

from .signature import (
    CallingConvention,
    argument_of,
    calling_convention,
    input_attrs,
    output_attrs,
    signature_of,
    token_names,
    tree_spec,
)
from .values import (
    TorchImportError,
    dim_of,
    literal,
    location_of,
    range_of,
    result_types,
    source_line,
    tensor_of,
    type_of,
)

DIALECTS = {"training": "TRAINING", "functional": "INFERENCE", "core": "ATEN"}


def from_torch(torch_ep: Any, *, level: str | None = None) -> ExportedProgram:
    """``torch_ep`` at ``level`` (training, functional or core; read off the program
    when not given: torch's TRAINING dialect is training, an ATEN program core
    when texport's core lowering would leave every op alone, else functional)."""
    if not isinstance(torch_ep, torch.export.ExportedProgram):
        raise TypeError(f"from_torch() expects a torch.export.ExportedProgram, got {type(torch_ep).__name__}")
    level = level or level_of(torch_ep)
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    signature = signature_of(torch_ep.graph_signature)
    tokens = dict.fromkeys(token_names(torch_ep.graph_signature), _TOKEN)
    builder = GraphBuilder(torch_ep.graph_module, level, _constant_inputs(signature) | tokens)
    placeholders = {n.name: n.meta.get("val") for n in torch_ep.graph.nodes if n.op == "placeholder"}
    convention = calling_convention(torch_ep, signature, placeholders)
    module = _module(builder, torch_ep, signature, convention)
    traced = TracedProgram(
        module=module, signature=signature, state_dict=_state_dict(torch_ep), constants=_constants(torch_ep),
        in_spec=convention.in_spec, out_spec=convention.out_spec,
        example_inputs=_example_inputs(torch_ep), user_input_paths=convention.user_input_paths,
        range_constraints=_ranges(torch_ep), input_constants=convention.input_constants,
        forward_signature=convention.forward_signature, int_input_paths=convention.int_input_paths,
        module_call_graph=_module_call_graph(torch_ep, convention),
    )
    return ExportedProgram(traced, dialect=DIALECTS[level])


# --------------------------------------------------------------------------
# The level
# --------------------------------------------------------------------------


def level_of(torch_ep: Any) -> str:
    if torch_ep.verifiers[0].dialect == "TRAINING":
        return "training"
    from texport.lowering.default_table import default_decompositions
    from texport.lowering.table import as_key_table

    decomposed = set(as_key_table(default_decompositions()))
    keys = {_key(node.target) for node in _all_nodes(torch_ep.graph_module)
            if isinstance(node.target, torch._ops.OpOverload)}
    return "functional" if keys & decomposed else "core"


def _all_nodes(graph_module: Any) -> Any:
    for module in graph_module.modules():
        if isinstance(module, torch.fx.GraphModule):
            yield from module.graph.nodes


def _key(target: torch._ops.OpOverload) -> str:
    namespace, name = target._schema.name.split("::")
    return f"{namespace}.{name}.{target._overloadname}"


# --------------------------------------------------------------------------
# The function
# --------------------------------------------------------------------------


def _module(builder: GraphBuilder, torch_ep: Any, signature: Any, convention: CallingConvention) -> ModuleOp:
    block, returned = builder.body(torch_ep.graph)
    block.add_op(ReturnOp(*returned))
    paths = iter(convention.user_input_paths)
    args = [spec for spec in signature.input_specs if not isinstance(spec.arg, ConstantArgument)]
    arg_attrs = [input_attrs(spec, next(paths) if spec.kind is InputKind.USER_INPUT else None) for spec in args]
    outputs = [spec for spec in signature.output_specs if not isinstance(spec.arg, ConstantArgument)]
    if len(outputs) != len(returned) or len(arg_attrs) != len(block.args):
        raise TorchImportError(f"the graph signature lists {len(arg_attrs)} inputs and {len(outputs)} outputs, "
                               f"the graph takes {len(block.args)} and returns {len(returned)}")
    func = FuncOp("forward", FunctionType.from_lists([a.type for a in block.args], [v.type for v in returned]),
                  Region(block))
    func.arg_attrs = ArrayAttr(arg_attrs)
    func.res_attrs = ArrayAttr([output_attrs(spec) for spec in outputs])
    ranges = _ranges(torch_ep)
    if ranges:
        func.attributes["tx.range_constraints"] = DictionaryAttr(
            {dim_str(k): StringAttr(repr(v)) for k, v in ranges.items()})
    module = ModuleOp([func])
    builder.verify(module)
    return module


class GraphBuilder:
    """FX graphs (the program's and its subgraphs') as blocks of texport ops."""

    def __init__(self, graph_module: Any, level: str, constant_inputs: dict[str, Any] | None = None) -> None:
        self.root = graph_module
        self.level = level
        self.constant_inputs = constant_inputs or {}  # a specialised input: torch's placeholder, no argument
        self.values: dict[Any, Any] = {}  # fx node -> SSA value, or a list of them (a multi-result op)
        self.nodes: dict[Operation, Any] = {}  # IR op -> the fx node it came from (for errors)
        self.taken = {n.name for n in graph_module.graph.nodes}  # the names fresh() avoids
        self.inlining = 0  # depth of subgraphs being inlined into the current block
        self.block: Block = Block()

    # ---- names ----------------------------------------------------------

    def fresh(self, base: str) -> str:
        return fresh_name(base, self.taken)

    def name_of(self, node: Any) -> str:
        """torch's node name; a fresh one inside an inlined subgraph (its names repeat the parent's)."""
        return self.fresh(node.name) if self.inlining else node.name

    def name_results(self, node: Any, results: Any) -> None:
        """The results of a multi-result node, named after the getitem nodes that read them."""
        readers = {user.args[1]: user for user in node.users if user.target is operator.getitem}
        for index, result in enumerate(results):
            if result is not None and result is not _TOKEN:
                reader = readers.get(index)
                set_name(result, self.name_of(reader) if reader is not None else self.fresh("getitem"))

    # ---- blocks ---------------------------------------------------------

    def body(self, graph: Any, arg_types: list[Any] | None = None) -> tuple[Block, list[SSAValue]]:
        """A block for ``graph``: its placeholders as arguments, its nodes as ops;
        returns the block and the values its output node gives (not yet returned)."""
        outer = self.block
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        if arg_types is None:  # the program's own graph: specialised inputs are no arguments
            for node in placeholders:
                if node.name in self.constant_inputs:
                    self.values[node] = self.constant_inputs[node.name]
            placeholders = [n for n in placeholders if n.name not in self.constant_inputs]
        types = arg_types if arg_types is not None else [self._node_type(n) for n in placeholders]
        self.block = Block(arg_types=types)
        for node, arg in zip(placeholders, self.block.args):
            set_name(arg, node.name)
            self.values[node] = arg
        returned: list[SSAValue] = []
        for node in graph.nodes:
            if node.op == "call_function":
                self._call(node)
            elif node.op == "output":
                returned = self._outputs(node)
            elif node.op not in ("placeholder", "get_attr"):
                raise self.error(node, f"texport cannot import a '{node.op}' node")
        block, self.block = self.block, outer
        return block, returned

    def _node_type(self, node: Any) -> Any:
        try:
            return type_of(node.meta["val"])
        except (KeyError, TorchImportError) as err:
            raise self.error(node, f"its value has no IR type ({err})") from None

    def _outputs(self, node: Any) -> list[SSAValue]:
        leaves = torch.utils._pytree.tree_leaves(node.args[0])
        values = [self.value(leaf, node) for leaf in leaves if isinstance(leaf, torch.fx.Node)]
        return [value for value in values if value is not _TOKEN]

    # ---- values ---------------------------------------------------------

    def value(self, arg: Any, user: Any) -> Any:
        """An argument of ``user`` as an op takes it: SSA values for nodes (a
        Python number in a symbolic op is a ``tx.constant``), literals otherwise."""
        if isinstance(arg, torch.fx.Node):
            if arg not in self.values:
                raise self.error(user, f"its argument {arg.name} has no value (a {arg.op} node texport did not import)")
            found = self.values[arg]
            if isinstance(found, list):
                raise self.error(user, f"its argument {arg.name} has several results: read one with getitem")
            return found
        if isinstance(arg, (list, tuple)):
            return [self.value(a, user) for a in arg]
        return literal(arg)

    def add(self, op: Operation, node: Any) -> Operation:
        location = location_of(node)
        if location is not None:
            op.location = location
        self.block.add_op(op)
        self.nodes[op] = node
        return op

    def constant(self, number: int | float, node: Any) -> SSAValue:
        op = self.add(tx.ConstantOp(number), node)
        set_name(op.results[0], self.fresh(f"c{number}".replace("-", "m").replace(".", "_")))
        return op.results[0]

    def sym_operand(self, arg: Any, node: Any) -> SSAValue:
        if isinstance(arg, torch.fx.Node):
            return self.value(arg, node)
        if isinstance(arg, bool) or not isinstance(arg, (int, float)):
            raise self.error(node, f"a symbolic op takes numbers, found {arg!r}")
        return self.constant(arg, node)

    # ---- nodes ----------------------------------------------------------

    def _call(self, node: Any) -> None:
        target = node.target
        if target is operator.getitem:
            self._getitem(node)
        elif target is operator.truediv:
            self._truediv(node)
        elif target is operator.neg:
            self._symbolic(node, [0, *node.args], tx.SubOp)  # -s as 0 - s
        elif target is torch.sym_not:
            self._not(node)
        elif target in _SYMBOLIC_OPS or target in _COMPARISONS:
            self._symbolic(node)
        elif target in _DROPPED:
            return  # texport keeps no tensor-metadata asserts (its export records none)
        elif target is torch.ops.aten._assert_scalar.default:
            self._assert(node)
        elif isinstance(target, torch._ops.HigherOrderOperator):
            self._higher_order(node)
        elif isinstance(target, torch._ops.OpOverload):
            self._aten(node)
        else:
            raise self.error(node, f"texport has no form for the call of {target}")

    def _getitem(self, node: Any) -> None:
        source, index = node.args
        results = self.values.get(source)
        if not isinstance(results, list):
            raise self.error(node, f"getitem reads {source.name}, which is not a multi-result op")
        self.values[node] = results[index]

    def _aten(self, node: Any, call: tuple[Any, Any, Any, Any] | None = None) -> Operation:
        """The node's op; ``call`` (target, args, kwargs, value) when the node wraps the call."""
        target, args, kwargs, val = call or (node.target, node.args, node.kwargs, node.meta.get("val"))
        op_def = OPS.get(_key(target))
        if op_def is None and _key(target) in _RECORDED_AS:  # an alias texport's tracer records as another op
            key, rewrite = _RECORDED_AS[_key(target)]
            op_def, (args, kwargs) = OPS.get(key), rewrite(args, kwargs)
        if op_def is None:
            raise self.error(node, f"texport's op table has no {_key(target)} ({target._schema}); a custom "
                             "op of that name can be registered with texport.library")
        values = self._bound(node, op_def, args, kwargs)
        if not op_def.schema.returns:
            types = []
        elif val is not None:
            types = result_types(val)
        else:
            raise self.error(node, "torch recorded no value for it (node.meta['val']): its result types are unknown")
        cls = op_class(op_def, _level_for(op_def, self.level))
        try:
            op = cls.build(values, types)
        except (TypeError, ValueError) as err:
            raise self.error(node, f"its arguments do not fit texport's {op_def.key} ({err})") from None
        self.add(op, node)
        if call is None:
            self._bind_results(node, op)
        return op

    def _with_effects(self, node: Any) -> None:
        """with_effects(token, op, *args): the op itself, ordered by the block as texport's
        export orders it; its results follow torch's token (result 0, no value here)."""
        target, args = node.args[1], node.args[2:]
        val = node.meta.get("val")
        own = val[1:] if isinstance(val, (tuple, list)) else ()
        op = self._aten(node, (target, args, node.kwargs, own[0] if len(own) == 1 else own or None))
        results: list[Any] = [_TOKEN, *op.results]
        self.name_results(node, results)
        self.values[node] = results

    def _bound(self, node: Any, op_def: Any, args: Any, kwargs: Any) -> list[Any]:
        """The node's arguments in schema order, defaults filled in from texport's schema."""
        names = [arg.name for arg in op_def.schema.arguments]
        unknown = [name for name in kwargs if name not in names[len(args):]]
        if len(args) > len(names) or unknown:
            raise self.error(node, f"its arguments do not fit texport's schema {op_def.schema_text} "
                             f"({len(args)} positional, keywords {list(kwargs)})")
        values = []
        for index, arg in enumerate(op_def.schema.arguments):
            if index < len(args):
                value = args[index]
            elif arg.name in kwargs:
                value = kwargs[arg.name]
            elif arg.has_default:
                value = arg.default
                values.append(list(value) if isinstance(value, list) else value)
                continue
            else:
                raise self.error(node, f"its required argument '{arg.name}' of {op_def.key} is missing")
            if isinstance(value, (torch.device, torch.layout)) and not arg.type.optional:
                value = str(value).removeprefix("torch.")  # to.device's device: texport holds it as text
            values.append(self.value(value, node))
        return values

    def _bind_results(self, node: Any, op: Operation) -> None:
        val = node.meta.get("val")
        if isinstance(val, (tuple, list)):
            self.name_results(node, op.results)
            self.values[node] = list(op.results)
        elif op.results:
            set_name(op.results[0], self.name_of(node))
            self.values[node] = op.results[0]
        else:
            self.values[node] = None

    def _symbolic(self, node: Any, args: list[Any] | None = None, op_type: Any = None) -> None:
        target = node.target
        operands = [self.sym_operand(arg, node) for arg in (node.args if args is None else args)]
        result_type = self._node_type(node)
        if op_type is not None:
            op = op_type.create(operands=operands, result_types=[result_type])
        elif target in _COMPARISONS:
            op = tx.CmpOp.create(operands=operands, result_types=[result_type],
                                 properties={"predicate": StringAttr(_COMPARISONS[target])})
        elif target is torch.sym_float:
            op = tx.ToFloatOp.create(operands=operands, result_types=[result_type])
        else:
            op = _SYMBOLIC_OPS[target].create(operands=operands, result_types=[result_type])
        self.add(op, node)
        set_name(op.results[0], self.name_of(node))
        self.values[node] = op.results[0]

    def _not(self, node: Any) -> None:
        """``sym_not(a == b)`` (torch's spelling of ``a != b``) as the negated comparison."""
        compared = self.value(node.args[0], node)
        owner = compared.owner
        if not isinstance(owner, tx.CmpOp):
            raise self.error(node, "texport negates a comparison only (tx has no boolean not)")
        op = tx.CmpOp.create(operands=list(owner.operands), result_types=[self._node_type(node)],
                             properties={"predicate": StringAttr(_NEGATED[owner.predicate.data])})
        self.add(op, node)
        set_name(op.results[0], self.name_of(node))
        self.values[node] = op.results[0]

    def _truediv(self, node: Any) -> None:
        """``s / c`` as texport's tracer records it: ``tx.to_float`` of ``s``, times the
        constant ``1/c`` (tx has no division of floats; a symbolic divisor has no form)."""
        dividend, divisor = node.args
        if isinstance(divisor, torch.fx.Node) or isinstance(divisor, bool) or not divisor:
            raise self.error(node, "texport divides a symbolic number by a non-zero constant only")
        value = self.sym_operand(dividend, node)
        if isinstance(value.type, tx.SymIntType):
            to_float = self.add(tx.ToFloatOp.create(operands=[value], result_types=[
                tx.SymFloatType(tx.SymExprAttr(value.type.value))]), node)
            set_name(to_float.results[0], self.fresh("sym_float"))
            value = to_float.results[0]
        op = self.add(tx.MulOp.create(operands=[value, self.constant(1 / divisor, node)],
                                      result_types=[self._node_type(node)]), node)
        set_name(op.results[0], self.name_of(node))
        self.values[node] = op.results[0]

    def _assert(self, node: Any) -> None:
        condition, message = node.args[0], node.args[1] if len(node.args) > 1 else node.kwargs.get("assert_msg", "")
        if not isinstance(condition, torch.fx.Node):
            if condition:
                return  # a condition torch already knew true
            raise self.error(node, f"the program asserts a false condition: {message}")
        op = tx.AssertOp.create(operands=[self.value(condition, node)], properties={"message": StringAttr(message)})
        self.add(op, node)
        self.values[node] = None

    # ---- control flow ---------------------------------------------------

    def _higher_order(self, node: Any) -> None:
        if node.target.__name__ == "with_effects":
            self._with_effects(node)
            return
        if node.target.__name__ in ("auto_functionalized", "auto_functionalized_v2"):
            self._auto_functionalized(node)
            return
        if node.target.__name__ in _INLINED:
            self._inline(node, *_INLINED[node.target.__name__](node))
            return
        build = _HIGHER_ORDER.get(node.target.__name__)
        if build is None:
            raise self.error(node, f"texport has no form for the higher-order op {node.target.__name__}")
        op = build(self, node)
        self.add(op, node)
        self.name_results(node, op.results)
        self.values[node] = list(op.results)

    def _inline(self, node: Any, graph_node: Any, operands: Any) -> None:
        """A subgraph torch keeps only to scope a mode (grad, disabled autocast) that
        changes no number here: its ops go into the current block, as texport's tracer
        records them; its results are named after the getitem nodes that read them."""
        owner = graph_node.graph.owning_module or self.root
        graph = getattr(owner, graph_node.target).graph
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        for placeholder, operand in zip(placeholders, operands, strict=True):
            self.values[placeholder] = self.value(operand, node)
        first_new = len(self.block.ops)
        self.inlining += 1
        try:
            returned = [self._returned(n) for n in graph.nodes if n.op != "placeholder"]
        finally:
            self.inlining -= 1
        results = next(r for r in returned if r is not None)
        made = {result for op in list(self.block.ops)[first_new:] for result in op.results}
        readers = {user.args[1]: user for user in node.users if user.target is operator.getitem}
        for index, result in enumerate(results):
            if result in made and index in readers:
                set_name(result, readers[index].name)
        self.values[node] = results

    def _returned(self, node: Any) -> list[SSAValue] | None:
        if node.op == "call_function":
            self._call(node)
        elif node.op == "output":
            return self._outputs(node)
        return None

    def _auto_functionalized(self, node: Any) -> None:
        """torch's functional form of a custom op that writes its arguments, as texport's:
        the op's ``.auto_functionalized`` variant, which takes the written arguments'
        values and returns their new values first, then the op's own results (torch
        gives the results first, then the new bases)."""
        target, kwargs = node.args[0], node.kwargs
        namespace, name = target._schema.name.split("::")
        variant = OPS.get(f"{namespace}.{name}.auto_functionalized")
        if variant is None:
            raise self.error(node, f"texport knows no custom op {target._schema.name} (register it with "
                             f"texport.library, so that it has a functional form): {target._schema}")
        bases = kwargs.get("_all_bases")
        values, written = [], []  # written: the index in torch's results of each new value
        own_results = len(target._schema.returns)
        for arg in target._schema.arguments:
            if not (arg.alias_info is not None and arg.alias_info.is_write):
                values.append(self.value(kwargs.get(arg.name, arg.default_value), node))
            elif bases is None:  # auto_functionalized (v1): the written tensor by name
                values.append(self.value(kwargs[arg.name], node))
                written.append(own_results + len(written))
            elif any(f"_{arg.name}_{part}" in kwargs for part in ("size", "stride", "storage_offset")):
                raise self.error(node, f"the op writes a view of an input ({arg.name}); texport's "
                                 "functional form writes whole tensors only")
            else:
                index = kwargs[f"_{arg.name}_base_index"]
                values.append(self.value(bases[index], node))
                written.append(own_results + index)
        types = result_types(node.meta.get("val"))
        order = written + list(range(own_results))  # texport's result i is torch's result order[i]
        op = self.add(op_class(variant, _level_for(variant, self.level)).build(values, [types[i] for i in order]),
                      node)
        results: list[Any] = [None] * len(types)
        for index, result in zip(order, op.results):
            results[index] = result
        self.name_results(node, results)
        self.values[node] = results

    def region(self, graph_node: Any, node: Any, arg_types: list[Any]) -> Region:
        """The subgraph a ``get_attr`` node names, as a region ending in control.yield."""
        if not (isinstance(graph_node, torch.fx.Node) and graph_node.op == "get_attr"):
            raise self.error(node, f"expected a get_attr subgraph, found {graph_node}")
        owner = graph_node.graph.owning_module or self.root  # a nested subgraph lives in its parent's
        submodule = getattr(owner, graph_node.target)
        placeholders = [n for n in submodule.graph.nodes if n.op == "placeholder"]
        types = [self._node_type(p) for p in placeholders]
        if len(types) != len(arg_types):
            raise self.error(node, f"its subgraph {graph_node.target} takes {len(types)} values, "
                             f"the op passes {len(arg_types)}")
        block, returned = self.body(submodule.graph, types)
        block.add_op(YieldOp.create(operands=returned))
        return Region(block)

    def results(self, node: Any) -> list[Any]:
        return result_types(node.meta.get("val"))

    def operands(self, values: Any, node: Any) -> list[SSAValue]:
        return [self.sym_operand(v, node) if not isinstance(v, torch.fx.Node) else self.value(v, node)
                for v in values]

    # ---- verification ---------------------------------------------------

    def verify(self, module: ModuleOp) -> None:
        """texport's verifier on the module; a failing op is reported with the
        torch node it came from (its name, target and source line)."""
        try:
            verify_module(module)
        except Exception as err:  # noqa: BLE001 - xDSL raises several exception types
            for op in module.walk():
                try:
                    op.verify(verify_nested_ops=False)
                except Exception as inner:  # noqa: BLE001
                    node = self.nodes.get(op)
                    if node is not None:
                        raise self.error(node, f"texport's verifier disagrees with torch: {inner}") from None
            raise TorchImportError(f"the imported program does not verify: {err}") from err

    def error(self, node: Any, problem: str) -> TorchImportError:
        return TorchImportError(f"cannot import node {node.name} ({node.target}): {problem}{source_line(node)}")


def _level_for(op_def: Any, level: str) -> str:
    """The op's dialect in a program of ``level``: the deepest of its own levels not past it."""
    levels = op_def.levels
    return level if level in levels else next(lv for lv in reversed(LEVELS[:LEVELS.index(level) + 1])
                                              if lv in levels)


def _segments(*sizes: int) -> Any:
    return DenseArrayBase.from_list(i32, sizes)


def _cond(builder: GraphBuilder, node: Any) -> Operation:
    predicate, true_graph, false_graph, operands = node.args[:4]
    pred = builder.sym_operand(predicate, node)
    inputs = builder.operands(operands, node)
    types = [v.type for v in inputs]
    return CondOp.create(operands=[pred, *inputs], result_types=builder.results(node),
                         regions=[builder.region(true_graph, node, types), builder.region(false_graph, node, types)],
                         properties={"operandSegmentSizes": _segments(1, len(inputs))})


def _map(builder: GraphBuilder, node: Any) -> Operation:
    body, xs, args = node.args[:3]
    xs_values, extra = builder.operands(xs, node), builder.operands(args, node)
    slices = [tx.TensorType.get(v.type.shape[1:], v.type.dtype) for v in xs_values]
    return MapOp.create(operands=[*xs_values, *extra], result_types=builder.results(node),
                        regions=[builder.region(body, node, [*slices, *(v.type for v in extra)])],
                        properties={"operandSegmentSizes": _segments(len(xs_values), len(extra))})


def _scan(builder: GraphBuilder, node: Any) -> Operation:
    combine, init, xs, additional = node.args[:4]
    carries, xs_values, extra = (builder.operands(v, node) for v in (init, xs, additional))
    slices = [tx.TensorType.get(v.type.shape[1:], v.type.dtype) for v in xs_values]
    types = [*(v.type for v in carries), *slices, *(v.type for v in extra)]
    return ScanOp.create(operands=[*carries, *xs_values, *extra], result_types=builder.results(node),
                         regions=[builder.region(combine, node, types)],
                         properties={"operandSegmentSizes": _segments(len(carries), len(xs_values), len(extra))})


def _while_loop(builder: GraphBuilder, node: Any) -> Operation:
    cond_graph, body_graph, carried, additional = node.args[:4]
    carries, extra = builder.operands(carried, node), builder.operands(additional, node)
    types = [v.type for v in [*carries, *extra]]
    return WhileLoopOp.create(operands=[*carries, *extra], result_types=builder.results(node),
                              regions=[builder.region(cond_graph, node, types), builder.region(body_graph, node, types)],
                              properties={"operandSegmentSizes": _segments(len(carries), len(extra))})


_HIGHER_ORDER = {"cond": _cond, "map_impl": _map, "scan": _scan, "while_loop": _while_loop}


def _grad_scope(node: Any) -> tuple[Any, Any]:
    """wrap_with_set_grad_enabled(enabled, subgraph, *operands): texport has no autograd."""
    return node.args[1], node.args[2:]


def _autocast_scope(node: Any) -> tuple[Any, Any]:
    """wrap_with_autocast(device, dtype, enabled, cache_enabled, subgraph, *operands): only a
    disabled autocast changes no number (texport has no autocast)."""
    if node.args[2]:
        raise TorchImportError(f"cannot import node {node.name} ({node.target}): texport has no autocast; "
                               f"export the model without torch.autocast{_scope_source(node, node.args[4])}")
    return node.args[4], node.args[5:]


def _scope_source(node: Any, graph_node: Any) -> str:
    """The user's line of a scope: torch records none for the HOP, so its first op's."""
    if node.meta.get("stack_trace"):
        return source_line(node)
    graph = getattr(graph_node.graph.owning_module, graph_node.target).graph
    return next((source_line(n) for n in graph.nodes if n.meta.get("stack_trace")), "")


_INLINED = {"wrap_with_set_grad_enabled": _grad_scope, "wrap_with_autocast": _autocast_scope}

_SYMBOLIC_OPS = {
    operator.add: tx.AddOp, operator.sub: tx.SubOp, operator.mul: tx.MulOp, operator.floordiv: tx.FloorDivOp,
    operator.mod: tx.ModOp, torch.sym_max: tx.MaxOp, torch.sym_min: tx.MinOp, torch.sym_float: tx.ToFloatOp,
}
_COMPARISONS = {operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le",
                operator.gt: "gt", operator.ge: "ge"}
_TOKEN = object()  # torch's effect token: texport orders effects by the block, it has no value
_NEGATED = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le", "le": "gt"}
_DROPPED = {torch.ops.aten._assert_tensor_metadata.default}


def _same_arguments(args: Any, kwargs: Any) -> tuple[Any, Any]:
    return args, kwargs


# Ops torch records that texport's tracer records as another op with the same numbers
# (``a & b`` is bitwise_and there, ``x.mT`` transpose(-2, -1), functionalized ``zero_``
# fill(x, 0)): the op texport's table has, and the arguments it takes.
_RECORDED_AS: dict[str, tuple[str, Any]] = {
    **{f"aten.__{name}__.{overload}": (f"aten.bitwise_{name}.{overload}", _same_arguments)
       for name in ("and", "or", "xor") for overload in ("Tensor", "Scalar")},
    "aten.mT.default": ("aten.transpose.int", lambda args, kwargs: ((args[0], -2, -1), {})),
    "aten.zero.default": ("aten.fill.Scalar", lambda args, kwargs: ((args[0], 0), {})),
    "prims.scalar_tensor.default": ("aten.scalar_tensor.default", _same_arguments),
}


# --------------------------------------------------------------------------
# State, ranges, calls
# --------------------------------------------------------------------------


def _constant_inputs(signature: Any) -> dict[str, Any]:
    return {spec.arg.name: spec.arg.value for spec in signature.input_specs
            if spec.kind is InputKind.USER_INPUT and isinstance(spec.arg, ConstantArgument)}


def _state_dict(torch_ep: Any) -> dict[str, Any]:
    parameters = set(torch_ep.graph_signature.parameters)
    return {name: tensor_of(value, parameter=name in parameters) for name, value in torch_ep.state_dict.items()}


def _constants(torch_ep: Any) -> dict[str, Any]:
    constants = {}
    for name, value in torch_ep.constants.items():
        if not isinstance(value, torch.Tensor):
            raise TorchImportError(f"constant {name} is a {type(value).__name__}: texport holds tensor constants only")
        constants[name] = tensor_of(value)
    return constants


def _ranges(torch_ep: Any) -> dict[Any, Any]:
    return {dim_of(symbol): range_of(bounds) for symbol, bounds in torch_ep.range_constraints.items()}


def _example_inputs(torch_ep: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    example = torch_ep.example_inputs
    if example is None:
        return (), {}

    def convert(value: Any) -> Any:
        return tensor_of(value) if isinstance(value, torch.Tensor) else value

    args, kwargs = example
    return (tuple(torch.utils._pytree.tree_map(convert, list(args))),
            torch.utils._pytree.tree_map(convert, dict(kwargs)))


def _module_call_graph(torch_ep: Any, convention: CallingConvention) -> list[ModuleCallEntry]:
    """The root's call signature (texport's specs), then the submodules torch lists."""
    entries = [ModuleCallEntry("", ModuleCallSignature([], [], convention.in_spec, convention.out_spec,
                                                       list(convention.forward_signature.parameters)))]
    for entry in torch_ep.module_call_graph[1:]:
        signature = entry.signature
        if signature is not None:
            where = f"module_call_graph entry {entry.fqn}"
            signature = ModuleCallSignature([argument_of(a, where) for a in signature.inputs],
                                            [argument_of(a, where) for a in signature.outputs],
                                            tree_spec(signature.in_spec), tree_spec(signature.out_spec),
                                            signature.forward_arg_names)
        entries.append(ModuleCallEntry(entry.fqn, signature))
    return entries
