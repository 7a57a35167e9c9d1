"""The export/library surface against real torch (issue 16, items 4 and 5): the
same programs under torch and texport give the same sym_* expressions and
ranges, check errors, associative_scan numbers and core ops, module call graph,
unflattened hierarchy and numbers, opcheck results and draft_export reports."""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the parity suite compares with real torch: pip install -e '.[parity]'")

import texport  # noqa: E402

FRAMEWORKS = {"torch": torch, "texport": texport}
_names = itertools.count()


def both(build: Callable[[Any], Any]) -> dict[str, Any]:
    return {name: build(m) for name, m in FRAMEWORKS.items()}


def _numpy(value: Any) -> np.ndarray:
    return value.detach().numpy() if hasattr(value, "detach") else value.numpy()


def _same_weights(source: Any, target: Any) -> None:
    """Load torch module ``source``'s state into texport module ``target``."""
    target.load_state_dict({k: texport.from_numpy(_numpy(v).copy()) for k, v in source.state_dict().items()})


def _ranges(ep: Any) -> dict[str, tuple[int, Any]]:
    """Ranges by symbol; an unbounded end is "oo" (torch prints int_oo, texport inf)."""
    def end(value: Any) -> str:
        return "oo" if str(value) in ("inf", "int_oo", "oo") else str(value)

    return {str(k): (int(v.lower), end(v.upper)) for k, v in ep.range_constraints.items()}


def _error(fn: Callable[[], Any]) -> tuple[str, str]:
    try:
        fn()
    except Exception as err:  # noqa: BLE001 - the error is what is compared
        return type(err).__name__, str(err)
    return "none", ""


# --------------------------------------------------------------------------
# sym_* helpers, range helpers, checks
# --------------------------------------------------------------------------


def _sym_program(m: Any) -> tuple[Any, dict[str, str]]:
    seen: dict[str, str] = {}

    class M(m.nn.Module):
        def forward(self, x):
            n = x.shape[0]
            seen.update(max=str(m.sym_max(n, 3)), min=str(m.sym_min(n, 3)), sum=str(m.sym_sum([n, n, 1])),
                        ite=str(m.sym_ite(n > 2, n, n + 1)), not_=str(m.sym_not(n > 2)))
            return x * m.sym_max(n, 3) + m.sym_sum([n, n, 1]) - m.sym_min(n, 3)

    ep = m.export.export(M(), (m.ones(5),), dynamic_shapes=({0: m.export.Dim("n")},))
    return ep, seen


def test_sym_helpers_build_the_same_expressions() -> None:
    results = both(_sym_program)
    (torch_ep, torch_seen), (tx_ep, tx_seen) = results["torch"], results["texport"]
    assert tx_seen == torch_seen
    assert _ranges(tx_ep) == _ranges(torch_ep)
    for n in (2, 4):
        np.testing.assert_allclose(_numpy(tx_ep.module()(texport.ones(n))), _numpy(torch_ep.module()(torch.ones(n))))


def test_sym_float_arithmetic_matches() -> None:
    def program(m: Any) -> Any:
        class M(m.nn.Module):
            def forward(self, x):
                n = x.shape[0]
                return x * m.sym_int(m.sym_float(n) * 2) + m.sym_float(n) / 2

        return m.export.export(M(), (m.ones(5),), dynamic_shapes=({0: m.export.Dim("n")},))

    programs = both(program)
    for n in (2, 7):
        assert _numpy(programs["texport"].module()(texport.ones(n))).tolist() == \
            _numpy(programs["torch"].module()(torch.ones(n))).tolist()


def _constrained(m: Any) -> Any:
    class M(m.nn.Module):
        def forward(self, x):
            n = x.item()
            m.sym_constrain_range(n, min=2, max=10)
            k = x.sum().item()
            m.sym_constrain_range_for_size(k, max=7)
            j = (x + 1).item()
            m._check_is_size(j, max=5)
            return m.zeros(n), m.zeros(k), m.zeros(j)

    return m.export.export(M(), (m.tensor(4),))


def test_range_helpers_give_the_same_ranges() -> None:
    programs = both(_constrained)
    assert _ranges(programs["texport"]) == _ranges(programs["torch"])
    assert [t.shape[0] for t in programs["texport"].module()(texport.tensor(4))] == \
        [t.shape[0] for t in programs["torch"].module()(torch.tensor(4))]


@pytest.mark.parametrize("call", [
    lambda m: m.sym_max(2, 3.0), lambda m: m.sym_int(-3.7), lambda m: m.sym_float(3), lambda m: m.sym_not(1),
    lambda m: m.sym_ite(True, 1, 2), lambda m: m.sym_ite(True, 1, 2.0), lambda m: m.sym_sqrt(4),
    lambda m: m.sym_sum([1, 2]), lambda m: m.sym_constrain_range(5, min=0, max=3),
    lambda m: m.sym_constrain_range_for_size(-1), lambda m: m._check(False),
    lambda m: m._check_with(ValueError, False, lambda: "boom"), lambda m: m._check_with(ValueError, 1, lambda: "x"),
    lambda m: m._check_index(False, lambda: "i"), lambda m: m._check_value(False),
    lambda m: m._check_type(False, lambda: "t"), lambda m: m._check_not_implemented(False, lambda: "n"),
    lambda m: m._check_tensor_all(m.tensor([True, False])), lambda m: m._check(False, "not callable"),
    lambda m: m._check_is_size(-1),
], ids=lambda f: str(next(_names)))
def test_python_value_helpers_match(call: Callable[[Any], Any]) -> None:
    def outcome(m: Any) -> Any:
        try:
            return ("value", call(m))
        except Exception as err:  # noqa: BLE001
            return (type(err).__name__, str(err))

    assert outcome(texport) == outcome(torch)


def test_compiler_flags_under_export() -> None:
    def flags(m: Any) -> list[tuple[bool, bool, bool]]:
        seen = []

        class M(m.nn.Module):
            def forward(self, x):
                seen.append((m.compiler.is_exporting(), m.compiler.is_compiling(), m.compiler.is_dynamo_compiling()))
                return x + 1

        M()(m.ones(1))
        m.export.export(M(), (m.ones(1),))
        return seen

    assert flags(texport) == flags(torch)


# --------------------------------------------------------------------------
# associative_scan
# --------------------------------------------------------------------------


def _scan_program(m: Any) -> Any:
    from importlib import import_module

    scan = import_module(f"{m.__name__}._higher_order_ops").associative_scan

    class M(m.nn.Module):
        def forward(self, x):
            return scan(lambda a, b: a * b + b, x, dim=1, reverse=True, combine_mode="generic")

    return M()


def _core_ops(m: Any, ep: Any) -> collections.Counter:
    core = ep.run_decompositions()
    if m is torch:
        return collections.Counter(str(n.target) for n in core.graph.nodes if n.op == "call_function")
    names = collections.Counter()
    for op in core.graph.body.block.ops:
        if op.name.startswith("core."):
            name, _, overload = op.name[len("core."):].partition(".")
            names[f"aten.{name}.{overload or 'default'}"] += 1
    return names


def test_associative_scan_numbers_and_core_ops() -> None:
    data = np.linspace(-1, 1, 14, dtype=np.float32).reshape(2, 7)
    inputs = {"torch": torch.from_numpy(data.copy()), "texport": texport.from_numpy(data.copy())}
    programs = {name: m.export.export(_scan_program(m), (inputs[name],)) for name, m in FRAMEWORKS.items()}
    expected = _numpy(_scan_program(torch)(inputs["torch"]))
    np.testing.assert_allclose(_numpy(_scan_program(texport)(inputs["texport"])), expected, rtol=1e-6)
    for name, ep in programs.items():
        np.testing.assert_allclose(_numpy(ep.module()(inputs[name])), expected, rtol=1e-6)
    assert _core_ops(texport, programs["texport"]) == _core_ops(torch, programs["torch"])


# --------------------------------------------------------------------------
# module_call_graph, unflatten
# --------------------------------------------------------------------------


def _outer(m: Any) -> Any:
    class Sub(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = m.nn.Linear(2, 2)
            self.register_buffer("count", m.zeros(1))

        def forward(self, x, y):
            self.count.add_(1)
            return self.lin(x) * y, x.sum()

    class Outer(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sub = Sub()
            self.act = m.nn.ReLU()

        def forward(self, x):
            a, b = self.sub(x, x + 1)
            return self.act(a) + b

    return Outer()


def test_module_call_graph_matches() -> None:
    def graph(m: Any) -> list[tuple[str, Any]]:
        ep = m.export.export(_outer(m), (m.ones(3, 2),), preserve_module_call_signature=("sub",))
        return [(e.fqn, None if e.signature is None or not e.fqn else
                 ([a.name for a in e.signature.inputs], [a.name for a in e.signature.outputs]))
                for e in ep.module_call_graph]

    assert graph(texport) == graph(torch)
    wrong = {name: _error(lambda m=m: m.export.export(_outer(m), (m.ones(3, 2),),
                                                        preserve_module_call_signature=("nope",)))
             for name, m in FRAMEWORKS.items()}
    assert wrong["texport"] == wrong["torch"]


def test_unflatten_matches() -> None:
    torch.manual_seed(0)
    modules = both(_outer)
    _same_weights(modules["torch"], modules["texport"])
    data = np.random.default_rng(0).standard_normal((3, 2)).astype(np.float32)
    x = {"torch": torch.from_numpy(data.copy()), "texport": texport.from_numpy(data.copy())}
    flat = {name: m.export.unflatten(m.export.export(modules[name], (x[name],),
                                                       preserve_module_call_signature=("sub",)))
            for name, m in FRAMEWORKS.items()}
    for listing in ("named_modules", "named_parameters", "named_buffers"):
        assert [n for n, _ in getattr(flat["texport"], listing)()] == [n for n, _ in getattr(flat["torch"], listing)()]
    np.testing.assert_allclose(_numpy(flat["texport"](x["texport"])), _numpy(flat["torch"](x["torch"])), rtol=1e-6)
    mine, theirs = flat["texport"].sub(x["texport"], x["texport"]), flat["torch"].sub(x["torch"], x["torch"])
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-6)
    assert _numpy(flat["texport"].sub.count).tolist() == _numpy(flat["torch"].sub.count).tolist()


def test_unflatten_submodules_without_preserved_signatures_match() -> None:
    torch.manual_seed(0)
    modules = both(_outer)
    _same_weights(modules["torch"], modules["texport"])
    data = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)
    x = {"torch": torch.from_numpy(data.copy()), "texport": texport.from_numpy(data.copy())}
    flat = {name: m.export.unflatten(m.export.export(modules[name], (x[name],))) for name, m in FRAMEWORKS.items()}
    for call in (lambda f, v: f.sub(v, v), lambda f, v: f.sub.lin(v), lambda f, v: f(v)):
        mine, theirs = call(flat["texport"], x["texport"]), call(flat["torch"], x["torch"])
        assert isinstance(mine, list) == isinstance(theirs, list)  # torch's is an fx immutable_list
        for a, b in zip(mine if isinstance(mine, list) else [mine], theirs if isinstance(theirs, list) else [theirs]):
            np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=1e-6)


def test_signature_members_match() -> None:
    def members(m: Any) -> dict[str, Any]:
        signature = m.export.export(_outer(m), (m.ones(3, 2),)).graph_signature
        return {name: getattr(signature, name) for name in (
            "parameters_to_mutate", "input_tokens", "output_tokens", "assertion_dep_token", "backward_signature",
            "lifted_custom_objs", "inputs_to_lifted_custom_objs", "buffers_to_mutate")}

    assert {k: dict(v) if hasattr(v, "keys") else v for k, v in members(texport).items()} == \
        {k: dict(v) if hasattr(v, "keys") else v for k, v in members(torch).items()}


# --------------------------------------------------------------------------
# opcheck
# --------------------------------------------------------------------------


def _opcheck_outcome(m: Any, kind: str) -> dict[str, str]:
    ns = f"surfpar{next(_names)}"
    bodies = {"good": lambda x: x.sin(), "wrong_fake": lambda x: x.sin(), "mutates": lambda x: x.add_(1).clone(),
              "view": lambda x: x.view(-1)}
    fakes = {"good": lambda x: m.empty_like(x), "wrong_fake": lambda x: m.empty(3),
             "mutates": lambda x: m.empty_like(x), "view": lambda x: m.empty_like(x)}

    @m.library.custom_op(f"{ns}::op", mutates_args=(), schema="(Tensor x) -> Tensor")
    def op(x):
        return bodies[kind](x)

    op.register_fake(fakes[kind])
    result = m.library.opcheck(op, (m.ones(2),), raise_exception=False)
    return {test: "SUCCESS" if value == "SUCCESS" else "FAIL" for test, value in result.items()}


@pytest.mark.parametrize("kind", ["good", "wrong_fake", "mutates"])
def test_opcheck_results_match(kind: str, restore_texport_registries: None) -> None:
    assert _opcheck_outcome(texport, kind) == _opcheck_outcome(torch, kind)


def test_opcheck_of_builtin_mutating_and_tuple_ops_match(restore_texport_registries: None) -> None:
    def outcomes(m: Any) -> list[dict[str, str]]:
        ns = f"surfpar{next(_names)}"

        @m.library.custom_op(f"{ns}::bump_", mutates_args=("x",), schema="(Tensor(a!) x) -> ()")
        def bump_(x):
            x.add_(1)

        bump_.register_fake(lambda x: None)

        @m.library.custom_op(f"{ns}::pair", mutates_args=(), schema="(Tensor x, int n) -> (Tensor, Tensor)")
        def pair(x, n):
            return x * n, x + n

        pair.register_fake(lambda x, n: (m.empty_like(x), m.empty_like(x)))
        calls = [(m.ops.aten.sin.default, (m.ones(2),)), (bump_, (m.ones(2),)), (pair, (m.ones(2), 3))]
        return [{t: "SUCCESS" if v == "SUCCESS" else "FAIL"
                 for t, v in m.library.opcheck(op, args, raise_exception=False).items()} for op, args in calls]

    assert outcomes(texport) == outcomes(torch)


@pytest.fixture
def restore_texport_registries() -> Any:
    from texport.dialects import bootstrap
    from texport.dialects.registry import Registry

    bootstrap.start_all()
    with Registry.restored():
        yield


def test_library_composite_impl_levels_match(restore_texport_registries: None) -> None:
    """An op defined through Library with a CompositeImplicitAutograd kernel: kept in
    the training and ``{}`` programs, decomposed at core level."""
    def levels(m: Any) -> list[bool]:
        ns = f"surfcia{next(_names)}"
        lib = m.library.Library(ns, "DEF")
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
        op = getattr(m.ops, ns).twice.default

        class M(m.nn.Module):
            def forward(self, x):
                return op(x)

        ep = m.export.export(M(), (m.ones(2),))
        programs = [ep, ep.run_decompositions({}), ep.run_decompositions()]
        found = [f"{ns}.twice" in (str(p.graph_module.code) if m is torch else p.mlir()) for p in programs]
        lib._destroy()
        return found + [_numpy(programs[2].module()(m.ones(2))).tolist()]

    assert levels(texport) == levels(torch) == [True, True, False, [2.0, 2.0]]


# --------------------------------------------------------------------------
# draft_export
# --------------------------------------------------------------------------


def _failures(ep: Any) -> list[tuple[str, Any]]:
    return [(f.failure_type.name, f.data.get("expr", f.data.get("op"))) for f in ep._report.failures]


def test_draft_export_data_dependent_matches() -> None:
    def program(m: Any) -> Any:
        class M(m.nn.Module):
            def forward(self, x, y):
                n = y.item()
                if n > 2:
                    x = x * 2
                return x[:n]

        return m.export.draft_export(M(), (m.ones(5, 2), m.tensor(3)),
                                     dynamic_shapes=({0: m.export.Dim("a", min=4)}, None))

    programs = both(program)
    assert _failures(programs["texport"]) == _failures(programs["torch"])
    assert programs["texport"]._report.successful() == programs["torch"]._report.successful()
    assert _ranges(programs["texport"]) == _ranges(programs["torch"])
    assert _numpy(programs["texport"].module()(texport.ones(5, 2), texport.tensor(3))).tolist() == \
        _numpy(programs["torch"].module()(torch.ones(5, 2), torch.tensor(3))).tolist()


def test_draft_export_branch_on_a_tensor_matches() -> None:
    def program(m: Any) -> Any:
        class M(m.nn.Module):
            def forward(self, x):
                return x + 1 if x.sum() > 0 else x - 1

        return m.export.draft_export(M(), (m.ones(3),))

    programs = both(program)
    assert _failures(programs["texport"]) == _failures(programs["torch"])
    assert _error(lambda: programs["texport"].module()(-texport.ones(3)))[0] != "none"
    assert _error(lambda: programs["torch"].module()(-torch.ones(3)))[0] != "none"


def test_draft_export_guard_added_and_clean_match() -> None:
    def program(m: Any) -> Any:
        class M(m.nn.Module):
            def forward(self, x):
                return x.reshape(2, -1) if x.shape[0] == 4 else x

        return m.export.draft_export(M(), (m.ones(4),), dynamic_shapes=({0: m.export.Dim("n")},))

    programs = both(program)
    assert _failures(programs["texport"]) == _failures(programs["torch"])
    clean = both(lambda m: m.export.draft_export(m.nn.Linear(2, 2), (m.ones(1, 2),)))
    assert clean["texport"]._report.successful() and clean["torch"]._report.successful()


def test_draft_export_missing_fake_kernel_matches(restore_texport_registries: None) -> None:
    def program(m: Any) -> Any:
        ns = f"surfdraft{next(_names)}"

        @m.library.custom_op(f"{ns}::head2", mutates_args=(), schema="(Tensor x) -> Tensor")
        def head2(x):
            return x[:2].clone()

        class M(m.nn.Module):
            def forward(self, x):
                return head2(x) + 1

        return m.export.draft_export(M(), (m.ones(4),))

    programs = both(program)
    kinds = {name: [f.failure_type.name for f in ep._report.failures] for name, ep in programs.items()}
    assert kinds["texport"] == kinds["torch"] == ["MISSING_FAKE_KERNEL"]
    assert _numpy(programs["texport"].module()(texport.ones(4))).tolist() == \
        _numpy(programs["torch"].module()(torch.ones(4))).tolist()
