"""Real third-party models through the bridge: torchvision (ResNet18,
MobileNetV3-small, a small VisionTransformer), timm (resnet10t) and Hugging Face
transformers (BERT, GPT-2, Llama, T5 from tiny configs), random seeded weights in
eval mode, exported by torch with a dynamic batch (and sequence length for the
text models). At each level (training, functional, core) torch's program is
imported with ``from_torch`` keeping its signature and ranges, runs on texport's
interpreter with torch's numbers on the example input and on a second input of
other sizes, prints and parses back, goes through texport's archive; the imported
training program lowers to torch's core ops with texport; and
``to_torch(from_torch(ep))`` runs in torch with torch's numbers.

Tolerances are float32's (rtol 1e-4, atol 1e-5) unless a model says otherwise.
Skipped without torch, and per model without its package (``pip install -e
".[parity,models]"``)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the bridge's tests compare with real torch: pip install -e '.[parity]'")

import third_party_models as third_party  # noqa: E402
from differential import (  # noqa: E402
    LEVELS,
    assert_prints_and_parses,
    assert_same_numbers,
    fresh_torch,
    run_texport_program,
    saved_and_loaded,
    signature_lines,
    torch_at_level,
)
from harness import core_op_difference, texport_core_ops, torch_core_ops  # noqa: E402

from texport.bridge import from_torch, to_torch  # noqa: E402

NAMES = sorted(third_party.MODELS)
DIALECTS = {"training": "TRAINING", "functional": "INFERENCE", "core": "ATEN"}  # texport's names, as its lowering sets
INPUTS = ("example", "second")


# texport's matmul decomposition folds T5's 3-D @ 2-D products of transposed views differently
MATMUL_FOLD = ("texport's lowering of T5's imported matmuls gives bmm+expand+view where torch's gives "
               "clone+mm (folding a non-contiguous 3-D operand): same numbers, other core ops")
# MobileNetV3's classifier has nn.Dropout(inplace=True): in eval mode torch's training program
# calls aten.dropout_ (train=False), which torch's core drops and texport's lowering makes a clone
EXTRA_CLONE = ("texport lowers MobileNetV3's eval-mode aten.dropout_ (train=False) to a clone; torch's core "
               "has no op for it")

# torch's own T5 program after run_decompositions({}) fails in torch ("view size is not compatible
# with input tensor's size and stride"): to_torch gives torch that program back, which fails alike
TORCH_T5_FUNCTIONAL = ("torch's own functional T5 program fails in torch (a view of a non-contiguous tensor); "
                       "the round trip hands torch the same program")

KNOWN_FAILURES: dict[str, str] = {
    "test_texport_lowering_gives_torchs_core_ops[t5]": MATMUL_FOLD,
    "test_texport_lowering_gives_torchs_core_ops[mobilenet_v3_small]": EXTRA_CLONE,
    "test_round_trip_runs_in_torch_with_torchs_numbers[t5-functional]": TORCH_T5_FUNCTIONAL,
}


class Subject:
    """One model: torch's programs at each level and their imports, made once; a
    step that failed is remembered as its error, which every test needing it re-raises."""

    def __init__(self, name: str) -> None:
        self.model = third_party.MODELS[name]
        try:
            third_party.import_package(self.model.package)
        except ModuleNotFoundError as error:
            pytest.skip(f"{self.model.package} is not installed ({error}): pip install -e '.[models]'")
        self.module = third_party.build(self.model)
        self.inputs = {"example": third_party.example_inputs(self.model),
                       "second": third_party.example_inputs(self.model, second=True)}
        self._made: dict[tuple[str, str], Any] = {}

    def _once(self, key: tuple[str, str], make: Any) -> Any:
        if key not in self._made:
            try:
                self._made[key] = make()
            except Exception as error:  # remembered: every test of the step reports it
                self._made[key] = error
        made = self._made[key]
        if isinstance(made, Exception):
            raise made
        return made

    def torch_program(self, level: str) -> Any:
        if level == "training":
            return self._once(("torch", level), lambda: third_party.export(self.model, self.module))
        return self._once(("torch", level), lambda: torch_at_level(self.torch_program("training"), level))

    def imported(self, level: str) -> Any:
        return self._once(("imported", level), lambda: from_torch(self.torch_program(level)))

    def lowered_by_texport(self) -> Any:
        return self._once(("texport core", "training"), lambda: self.imported("training").run_decompositions())

    def torch_numbers(self, which: str) -> Any:
        """torch's eager model's outputs (eval mode: no state changes). Not its programs':
        torch's own functional T5 program fails in torch (a view of a non-contiguous
        tensor, after run_decompositions({}))."""
        return self._once(("torch numbers", which), lambda: self.module(*fresh_torch(self.inputs[which])))

    def check(self, got: Any, level: str, which: str, doing: str) -> None:
        where = f"{self.model.name} [{level}, {which} input] {doing}"
        assert_same_numbers(self.torch_numbers(which), got, self.model.rtol, self.model.atol, where)


@functools.cache
def subject(name: str) -> Subject:
    return Subject(name)


def _models(slow_needs_core: bool = False) -> list[Any]:
    """Every model; with ``slow_needs_core`` (the test needs torch's core program) a
    slow model is marked ``slow`` (see _models_and_levels)."""
    return [pytest.param(name, id=name, marks=[pytest.mark.slow] if slow_needs_core and third_party.MODELS[name].slow
                         else []) for name in NAMES]


def _models_and_levels() -> list[Any]:
    """(name, level) for every model and level; a slow model's lowered levels
    (torch's run_decompositions alone costs it 5-10 s each) are marked ``slow``:
    ``-m 'not slow'`` still checks every model at the training level."""
    return [pytest.param(name, level, id=f"{name}-{level}",
                         marks=[pytest.mark.slow] if third_party.MODELS[name].slow and level != "training" else [])
            for name in NAMES for level in LEVELS]


@pytest.mark.parametrize(("name", "level"), _models_and_levels())
def test_import_keeps_torchs_signature_and_ranges(name: str, level: str) -> None:
    model = subject(name)
    torch_ep, ep = model.torch_program(level), model.imported(level)
    assert signature_lines(ep.graph_signature) == signature_lines(torch_ep.graph_signature)
    assert _ranges(ep.range_constraints) == _ranges(torch_ep.range_constraints)
    assert ep.dialect == DIALECTS[level]


@pytest.mark.parametrize("which", INPUTS)
@pytest.mark.parametrize(("name", "level"), _models_and_levels())
def test_import_runs_with_torchs_numbers(name: str, level: str, which: str) -> None:
    model = subject(name)
    model.check(run_texport_program(model.imported(level), model.inputs[which]), level, which,
                "on texport's interpreter")


@pytest.mark.parametrize(("name", "level"), _models_and_levels())
def test_import_prints_parses_and_saves(name: str, level: str) -> None:
    model = subject(name)
    ep = model.imported(level)
    assert_prints_and_parses(ep, f"{name}-{level}")
    model.check(run_texport_program(saved_and_loaded(ep), model.inputs["second"]), level, "second",
                "saved and loaded by texport")


@pytest.mark.parametrize("name", _models())
def test_texport_lowers_imported_training_program_to_core(name: str) -> None:
    model = subject(name)
    lowered = model.lowered_by_texport()
    assert lowered.dialect == DIALECTS["core"]
    for which in INPUTS:
        model.check(run_texport_program(lowered, model.inputs[which]), "core", which,
                    "lowered to core by texport")


@pytest.mark.parametrize("name", _models(slow_needs_core=True))
def test_texport_lowering_gives_torchs_core_ops(name: str) -> None:
    model = subject(name)
    want, got = torch_core_ops(model.torch_program("core")), texport_core_ops(model.lowered_by_texport())
    difference = core_op_difference(want, got, {})
    assert not difference, f"core op counts (torch, texport) that differ: {difference}"


@pytest.mark.parametrize(("name", "level"), _models_and_levels())
def test_round_trip_runs_in_torch_with_torchs_numbers(name: str, level: str) -> None:
    model = subject(name)
    ep = model.imported(level)
    back = to_torch(ep)
    assert signature_lines(back.graph_signature) == signature_lines(model.torch_program(level).graph_signature)
    module = back.module()  # eval mode: the calls change no state, one module serves both
    for which in INPUTS:
        model.check(module(*fresh_torch(model.inputs[which])), level, which, "to_torch(from_torch(ep)) in torch")


def _ranges(ranges: dict[Any, Any]) -> dict[str, tuple[str, str]]:
    """Range constraints by symbol name, bounds as text (an unbounded end as inf)."""
    return {str(symbol): (_bound(bounds.lower), _bound(bounds.upper)) for symbol, bounds in ranges.items()}


def _bound(value: Any) -> str:
    text = str(value)
    return "inf" if text in ("oo", "int_oo", "inf") else ("-inf" if text in ("-oo", "-int_oo", "-inf") else text)
