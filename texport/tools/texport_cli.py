"""texport: export a model file to IR or an archive; show, run and lower saved programs.

    texport export MODEL.py [--factory NAME] [--dynamic NAME=[ARG.]AXIS[:MIN..MAX]]
                            [--level training|functional|core] [-o OUT.texport]
    texport export --torch MODEL.py [same options]   a real-torch model, exported by torch, imported
    texport import MODEL.pt2 [-o OUT.texport]        a torch.export.save archive, imported
    texport export | texport demo     the bundled ConvBN at every level, checked against eager
    texport show FILE                 IR, signature, range constraints and state of an archive
    texport run FILE [--inputs IN.npz | --random-inputs [--seed N] [--bind s0=8]] [--outputs OUT.npz]
    texport lower FILE --to functional|core [-o OUT.texport]
    texport compile FILE -o MODEL.vmfb [--route linalg|torch]   native code for this CPU (IREE)
    texport run --backend iree [--route linalg|torch] FILE [run's options]

MODEL.py defines the model and its example inputs: a ``make_*()`` factory
returning ``(model, args)`` or ``(model, args, kwargs)`` (``--factory`` picks
one when there are several), or ``MODEL`` and ``EXAMPLE_INPUTS`` (and
optionally ``EXAMPLE_KWARGS``) globals. Without ``-o`` the IR is printed.
With ``--torch`` the file is real-torch code: torch exports it (``--level``
lowers with torch's run_decompositions) and texport imports torch's program;
``import`` reads an archive with torch's own loader. Both need torch
(``pip install texport[torch]``); texport imports it only for them.
``compile`` lowers a saved program (or a core program's ``.mlir``) to core, then by the
route to upstream MLIR, and compiles it with IREE (``pip install texport[iree]``); the
module's ``@forward`` takes the parameters, buffers and constants, then the user
inputs, in the core signature's order. ``run --backend iree`` runs the program that
way (``ep.compile``) instead of on texport's interpreter.
Errors print as one paragraph and exit 1 (2 for a bad command line, 130 when
interrupted); an error in the model's own code is reported at the model's frame.
``--debug`` (or ``TEXPORT_DEBUG=1``) shows Python's traceback instead.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import inspect
import math
import os
import re
import sys
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import texport
from texport.backends import BACKENDS, BackendError
from texport.backends.routes import ROUTES
from texport.dialects.context import parse_module, verify_module
from texport.dialects.tx import TensorType
from texport.export.serialization import SerializationError, load, replace_atomically, save
from texport.interpreter.errors import ExecutionError, GuardError, RuntimeAssertError
from texport.interpreter.inputs import (
    InputError,
    describe_input,
    random_inputs,
    read_npz,
)
from texport.tools.diagnostics import (
    DEBUG_VARIABLE,
    EXIT_INTERRUPTED,
    ToolError,
    UsageError,
    add_debug_option,
    check_output_path,
    debug_wanted,
    non_negative_int,
    run_tool,
)
from texport.tools.texport_run import check_bindings
from texport.tools.texport_run import describe as describe_value
from texport.tracer import pytree
from texport.tracer.errors import (
    GuardOnDataDependentSymNode,
    TracingError,
    UnsupportedError,
    UserError,
)
from texport.tracer.export import split_arguments
from texport.tracer.signature import ConstantArgument, InputKind
from texport.tracer.tensor import Tensor

LEVELS = ("training", "functional", "core")
BUNDLED_MODELS = Path(texport.__file__).parent / "examples" / "models.py"
DEMO_FACTORY = "ConvBN"


class CliError(ToolError):
    """A problem with what was asked on the command line; printed without a traceback."""


class LevelUnavailable(CliError):
    """run_decompositions (texport.lowering) is not there yet."""


# Errors that already say what is wrong and where: printed as they are.
_CLEAR_ERRORS = (SerializationError, UserError, TracingError, UnsupportedError, GuardOnDataDependentSymNode,
                 GuardError, RuntimeAssertError, ExecutionError, InputError, pytree.TreeStructureError,
                 BackendError)


# --------------------------------------------------------------------------
# Model files
# --------------------------------------------------------------------------


def import_model_file(path: str) -> ModuleType:
    """Run a model file as a module registered in sys.modules (so its dataclasses and
    namedtuples have importable qualified names), with its folder on sys.path (so it
    imports its neighbours, as ``python MODEL.py`` would)."""
    file = Path(path)
    if not file.is_file():
        raise CliError(f"no model file {path}")
    name = file.stem if file.stem.isidentifier() and file.stem not in sys.modules else \
        f"texport_model_{re.sub(r'[^0-9a-zA-Z_]', '_', file.stem)}"
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(file.resolve().parent))
    try:
        with model_code(path, f"loading {path}"):
            spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _factories(module: ModuleType) -> dict[str, Callable[[], Any]]:
    return {name: value for name, value in vars(module).items()
            if name.startswith("make_") and callable(value)
            and getattr(value, "__module__", None) == module.__name__}


def pick_factory(module: ModuleType, path: str, factory: str | None) -> Callable[[], Any]:
    """``--factory NAME`` (``make_NAME`` also found), else MODEL/EXAMPLE_INPUTS, else the one make_*."""
    factories = _factories(module)
    known = ", ".join(factories) or "none"
    if factory is not None:
        found = factories.get(factory) or factories.get(f"make_{factory}")
        if found is None:
            raise CliError(f"{path} has no factory {factory!r} (its make_* factories: {known})")
        return found
    if hasattr(module, "MODEL"):
        if not hasattr(module, "EXAMPLE_INPUTS"):
            raise CliError(f"{path} defines MODEL but not EXAMPLE_INPUTS (a tuple of example arguments)")
        return lambda: (module.MODEL, module.EXAMPLE_INPUTS, getattr(module, "EXAMPLE_KWARGS", {}))
    if len(factories) == 1:
        return next(iter(factories.values()))
    if not factories:
        raise CliError(f"{path} defines no make_* factory and no MODEL/EXAMPLE_INPUTS globals")
    raise CliError(f"{path} has several factories ({known}): pick one with --factory NAME")


def make_model(path: str, factory: str | None) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    make = pick_factory(import_model_file(path), path, factory)
    with model_code(path, f"making the model and its example inputs with {make.__name__}()"):
        made = make()
    if not isinstance(made, tuple) or len(made) not in (2, 3):
        raise CliError(f"the factory in {path} must return (model, args) or (model, args, kwargs), "
                       f"got {type(made).__name__}")
    model, args, kwargs = made if len(made) == 3 else (*made, {})
    if isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple) or not isinstance(kwargs, dict):
        raise CliError(f"the example inputs in {path} must be a tuple of arguments (and a dict of "
                       f"keyword arguments), got {type(args).__name__}")
    return model, args, kwargs


# --------------------------------------------------------------------------
# The model's own code: its errors are the model's, reported at its own frame
# --------------------------------------------------------------------------

# texport's own errors for what a model does (their text is for the user) and the
# pytree's for what it is given: raised in the model's code, they keep their text.
_TEXPORT_MODEL_ERRORS = (UserError, TracingError, UnsupportedError, GuardOnDataDependentSymNode,
                         pytree.TreeStructureError)


class ModelError(CliError):
    """The user's model failed (raised, exited, recursed without end): not texport's crash."""


class ModelInterrupted(ModelError):
    exit_status = EXIT_INTERRUPTED


@contextmanager
def model_code(path: str, doing: str) -> Iterator[None]:
    """Run the model's code (its file, its factory, its forward while exported): whatever
    escapes it is reported as the model's, at the model's innermost frame, never as a
    texport traceback; sys.exit and KeyboardInterrupt in it are reported too, not obeyed
    silently. An exception with no frame of the user's is texport's and passes on."""
    try:
        yield
    except CliError:
        raise
    except BaseException as err:
        frame = user_frame(err, path)
        if isinstance(err, KeyboardInterrupt):
            raise ModelInterrupted(f"interrupted (KeyboardInterrupt) in the model while {doing}{frame}") from err
        if isinstance(err, SystemExit):
            raise ModelError(f"the model called sys.exit({err.code!r}) while {doing}: texport "
                             f"needs it to return{frame}") from err
        if isinstance(err, _TEXPORT_MODEL_ERRORS):  # the tracer's may name the frame already
            named = frame and frame.strip().splitlines()[0] in str(err)
            raise CliError(str(err) + ("" if named else frame)) from err
        if not frame or not isinstance(err, Exception):
            raise
        note = " (the model's code recursed without end)" if isinstance(err, RecursionError) else ""
        hidden = "" if isinstance(err, SyntaxError) else (
            f"\n(texport's own frames are left out: --debug or {DEBUG_VARIABLE}=1 shows them all)")
        raise ModelError(f"error in the model while {doing}: {type(err).__name__}: {err}{note}{frame}"
                         f"{hidden}") from err


def user_frame(err: BaseException, model: str) -> str:
    """``File "model.py", line 6, in forward`` and its source line, as Python prints a frame:
    the innermost frame of the user's code (the model file, or any file outside texport,
    Python and installed packages); a SyntaxError's own location. "" when there is none."""
    if isinstance(err, SyntaxError) and err.filename and err.lineno:
        return _syntax_error_frame(err)
    frames = [f for f in traceback.extract_tb(err.__traceback__) if _is_users(f.filename, model)]
    if not frames:
        return ""
    last = frames[-1]
    return f'\n  File "{last.filename}", line {last.lineno}, in {last.name}\n    {(last.line or "").strip()}'


def _syntax_error_frame(err: SyntaxError) -> str:
    line = (err.text or "").rstrip("\n")
    code = line.lstrip()
    where = f'\n  File "{err.filename}", line {err.lineno}'
    if not code:
        return where
    column = max((err.offset or 1) - 1 - (len(line) - len(code)), 0)
    return f"{where}\n    {code}\n    {' ' * column}^"


@functools.cache
def _is_users(filename: str, model: str) -> bool:
    if filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    if path == os.path.realpath(model):
        return True
    return not any(path.startswith(root + os.sep) for root in _NOT_USERS)


# texport's package and the places Python and installed packages live
_NOT_USERS = tuple(dict.fromkeys(
    os.path.realpath(folder) for folder in (
        str(Path(texport.__file__).parent),
        *(sysconfig.get_paths()[kind] for kind in ("stdlib", "platstdlib", "purelib", "platlib")))))


# --------------------------------------------------------------------------
# --dynamic NAME=[ARG.]AXIS[:MIN..MAX]
# --------------------------------------------------------------------------

_DYNAMIC = re.compile(r"(?P<name>[A-Za-z_]\w*)=(?:(?P<arg>[A-Za-z_]\w*)\.)?(?P<axis>\d+)"
                      r"(?::(?P<min>\d+)?\.\.(?P<max>\d+)?)?", re.ASCII)


@dataclass(frozen=True)
class DynamicSpec:
    """One ``--dynamic NAME=[ARG.]AXIS[:MIN..MAX]`` option, as written and as parsed."""

    text: str
    name: str
    arg: str | None
    axis: int
    min: int | None
    max: int | None

    @property
    def range(self) -> str:
        return f"{'' if self.min is None else self.min}..{'' if self.max is None else self.max}"


def parse_dynamic(text: str) -> DynamicSpec:
    """A spec whose range a dynamic dim can take; a bad one is a usage error that says
    why, in torch.export's words where it has some."""
    match = _DYNAMIC.fullmatch(text)
    if match is None:
        raise UsageError(f"--dynamic {text!r}: expected NAME=[ARG.]AXIS[:MIN..MAX], e.g. batch=0:1..64")
    low, high = (None if match[k] is None else int(match[k]) for k in ("min", "max"))
    spec = DynamicSpec(text, match["name"], match["arg"], int(match["axis"]), low, high)
    torch_says = f"torch.export's Dim refuses it: Cannot create Dim with inconsistent min={low}, max={high}"
    if low is not None and high is not None and low > high:
        raise UsageError(f"--dynamic {text!r}: the range {spec.range} is empty (min {low} > max {high}); "
                         f"{torch_says}")
    if low is not None and low == high:
        raise UsageError(f"--dynamic {text!r}: the range {spec.range} holds one size, a constant: leave "
                         f"the dim out of --dynamic to export it static ({torch_says})")
    if high is not None and high < 2:
        raise UsageError(f"--dynamic {text!r}: no dynamic size is in {spec.range}: torch.export "
                         "specializes sizes 0 and 1 to constants, so a dynamic dim's sizes start at 2 "
                         "(give a max of 2 or more)")
    return spec


def dynamic_shapes(specs: list[str], model: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                   framework: Any = None) -> dict[str, Any] | None:
    """``batch=0:1..64``: dim 0 of every tensor argument is Dim('batch', min=1, max=64);
    ``batch=x.0:1..64`` names the argument. A name given twice is one Dim (the same
    size) and its range is given once, or the same each time. ``framework``: real
    torch for a real-torch model (its Dim and Tensor), texport by default."""
    if not specs:
        return None
    parsed = [parse_dynamic(text) for text in specs]
    framework = framework or texport
    dim_class = getattr(framework.export, "Dim", None)
    if dim_class is None:
        raise CliError("--dynamic is not supported yet: this texport has no texport.export.Dim "
                       "(dynamic shapes are not in); export with the example input's static shapes")
    try:
        named = inspect.signature(getattr(model, "forward", model)).bind(*args, **kwargs).arguments
    except TypeError as err:
        raise CliError(f"the example inputs do not fit {type(model).__name__}.forward: {err}") from None
    ranges = _dim_ranges(parsed)
    dims = {name: dim_class(name, **bounds) for name, bounds in ranges.items()}
    shapes: dict[str, Any] = {name: None for name in named}
    marked: dict[tuple[str, int], DynamicSpec] = {}
    sized: dict[str, tuple[DynamicSpec, str]] = {}
    for spec in parsed:
        for arg in _dynamic_targets(spec.arg, named, spec.text, framework.Tensor):
            _check_target(spec, arg, named[arg], marked.setdefault((arg, spec.axis), spec), ranges[spec.name])
            _check_same_size(spec, arg, named, *sized.setdefault(spec.name, (spec, arg)))
            shapes[arg] = {**(shapes[arg] or {}), spec.axis: dims[spec.name]}
    return shapes


def _check_same_size(spec: DynamicSpec, arg: str, named: dict[str, Any], first: DynamicSpec,
                     first_arg: str) -> None:
    """One name is one size: the example inputs must agree on it."""
    size, first_size = named[arg].shape[spec.axis], named[first_arg].shape[first.axis]
    if size != first_size:
        specs = f"--dynamic {first.text!r} makes" if first is spec else \
            f"--dynamic {first.text!r} and --dynamic {spec.text!r} make"
        raise CliError(f"{specs} dim {first.axis} of {first_arg} and dim {spec.axis} of {arg} one size, "
                       f"{spec.name}, but the example inputs have {first_size} and {size} there")


def _dim_ranges(specs: list[DynamicSpec]) -> dict[str, dict[str, int]]:
    """Each name's bounds; two specs giving one name different bounds are refused (one
    of them would be dropped), in torch.export's words for two such Dims."""
    ranged: dict[str, DynamicSpec] = {}
    for spec in specs:
        first = ranged.setdefault(spec.name, spec)
        if (spec.min, spec.max) != (None, None) and first is not spec:
            if (first.min, first.max) == (None, None):
                ranged[spec.name] = spec
            elif (first.min, first.max) != (spec.min, spec.max):
                raise UsageError(
                    f"--dynamic {first.text!r} and --dynamic {spec.text!r} give {spec.name} two ranges, "
                    f"{first.range} and {spec.range}: give its range once, or the same in both (torch.export "
                    "refuses two different definitions of one Dim too)")
    return {name: {k: v for k, v in (("min", s.min), ("max", s.max)) if v is not None}
            for name, s in ranged.items()}


def _check_target(spec: DynamicSpec, arg: str, value: Any, first: DynamicSpec, bounds: dict[str, int]) -> None:
    """The dim exists, no other spec claims it, and the example size is one the range has."""
    if spec.axis >= value.dim():
        raise CliError(f"--dynamic {spec.text!r}: argument {arg} has {value.dim()} dims, no dim {spec.axis}")
    if first is not spec:
        raise UsageError(f"--dynamic {first.text!r} and --dynamic {spec.text!r} both make dim {spec.axis} "
                         f"of {arg} dynamic: keep one")
    size = value.shape[spec.axis]
    if size in (0, 1):
        raise CliError(f"--dynamic {spec.text!r}: dim {spec.axis} of {arg} is {size} in the example inputs, "
                       "and torch.export specializes sizes 0 and 1 to constants: give an example of size "
                       "2 or more there")
    low, high = max(bounds.get("min", 0), 2), bounds.get("max")
    if size < low or (high is not None and size > high):
        note = " (a dynamic dim's sizes start at 2 whatever its min)" if bounds.get("min", 0) < 2 else ""
        raise CliError(f"--dynamic {spec.text!r}: dim {spec.axis} of {arg} is {size} in the example inputs, "
                       f"outside {spec.name}'s range [{low}, {'inf' if high is None else high}]{note}")


def _dynamic_targets(arg: str | None, named: dict[str, Any], text: str, tensor_type: type) -> list[str]:
    tensors = [name for name, value in named.items() if isinstance(value, tensor_type)]
    if arg is None:
        return tensors
    if arg not in tensors:
        raise CliError(f"--dynamic {text!r}: {arg!r} is not a tensor argument of forward "
                       f"(tensor arguments: {', '.join(tensors) or 'none'})")
    return [arg]


# --------------------------------------------------------------------------
# Levels
# --------------------------------------------------------------------------


def lower(ep: Any, level: str) -> Any:
    """The program at ``level``: functional = functionalize only, core = the default table."""
    if level == "training":
        return ep
    try:
        return ep.run_decompositions(decomp_table={} if level == "functional" else None)
    except ModuleNotFoundError as err:
        if not (err.name or "").startswith("texport.lowering"):
            raise
        raise LevelUnavailable(f"the {level} level is not available yet: ep.run_decompositions "
                               f"needs {err.name}, which this texport does not have") from None


# --------------------------------------------------------------------------
# Inputs and outputs of `run`
# --------------------------------------------------------------------------


def _user_inputs(ep: Any) -> list[tuple[str, str, Any]]:
    """(user path, IR argument name, IR type) of each tensor or int the caller passes."""
    paths = iter(ep._traced.user_input_paths)
    args = iter(ep.graph.body.block.args)
    found = []
    for spec in ep.graph_signature.input_specs:
        if isinstance(spec.arg, ConstantArgument):
            continue
        arg = next(args)
        if spec.kind is InputKind.USER_INPUT:
            found.append((next(paths), arg.name_hint, arg.type))
    return found


def _user_value(value: Any, arg_type: Any) -> Any:
    if isinstance(arg_type, TensorType):
        return Tensor._make(np.asarray(value), arg_type.dtype)
    array = np.asarray(value)
    if array.ndim == 0 and array.dtype.kind in "iu":
        return array.item()  # a symbolic int input
    return value  # not an int: ep.module()'s guard names the input, expected and found


def call_from_leaves(ep: Any, given: list[Any], constants: dict[str, Any] | None = None,
                     ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Rebuild the call's (args, kwargs) from the user inputs. Specialised constants are
    the exported values unless ``constants`` gives others (ep.module() then refuses them)."""
    traced = ep._traced
    constants = traced.input_constants | (constants or {})
    in_spec = ep.call_spec[0]
    named = pytree.tree_unflatten(list(range(in_spec.num_leaves)), in_spec)
    values, leaves = iter(given), []
    for name, value in named.items():
        for path, _ in pytree.tree_flatten_with_path(value)[0]:
            key = name + pytree.keystr(path)
            leaves.append(constants[key] if key in constants else next(values))
    return split_call(traced.forward_signature, pytree.tree_unflatten(leaves, in_spec))


def split_call(signature: inspect.Signature | None, named: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if signature is None:
        return tuple(named.values()), {}
    return split_arguments(signature, named)


def npz_inputs(ep: Any, path: str, stored: dict[str, np.ndarray]) -> list[Any]:
    """One array per user input, keyed by its path (``x``, ``inp['a']``), IR name or argN."""
    values, used = [], set()
    for index, (user_path, name, arg_type) in enumerate(_user_inputs(ep)):
        keys = list(dict.fromkeys((user_path, name, f"arg{index}")))
        key = next((k for k in keys if k in stored), None)
        if key is None:
            raise CliError(f"{path} has no array for input {user_path} (key {' or '.join(map(repr, keys))}; "
                           f"found {', '.join(map(repr, sorted(stored))) or 'none'})")
        used.add(key)
        value = stored[key]
        if not isinstance(arg_type, TensorType) and (value.ndim != 0 or value.dtype.kind not in "iu"):
            raise CliError(f"{path}: array {key!r} for input {user_path} must be a 0-d integer array "
                           f"(the input is an int); found {describe_input(value)}")
        values.append(_user_value(value, arg_type))
    unused = sorted(set(stored) - used - set(ep._traced.input_constants))
    if unused:
        raise CliError(f"{path} has arrays for no input: {', '.join(unused)}")
    return values


def npz_constants(ep: Any, stored: dict[str, np.ndarray]) -> dict[str, Any]:
    """Values an .npz gives for inputs the export specialised (``n`` of ``forward(x, n)``)."""
    return {key: value.item() for key, value in stored.items()
            if key in ep._traced.input_constants and value.ndim == 0}


def random_user_inputs(ep: Any, bindings: list[str], seed: int) -> list[Any]:
    names = [arg.name_hint for arg in ep.graph.body.block.args]
    by_name = dict(zip(names, random_inputs(ep.graph, bindings, seed)))
    return [_user_value(by_name[name], arg_type) for _, name, arg_type in _user_inputs(ep)]


def describe(label: str, value: Any) -> str:
    value = value.numpy() if isinstance(value, Tensor) else value
    return describe_value(0, value).replace("output #0", label, 1)


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------


def _write_or_print(ep: Any, out: str | None) -> None:
    if out is None:
        print(ep.mlir(), end="")
        return
    save(ep, out)
    state = sum(t._value.nbytes for t in (*ep.state_dict.values(), *ep.constants.values()))
    print(f"wrote {out}: {ep.dialect} program, {len(ep.state_dict) + len(ep.constants)} "
          f"state tensors ({state:,} bytes), {Path(out).stat().st_size:,} bytes in all")


def cmd_export(args: argparse.Namespace) -> int:
    if args.torch:
        return cmd_export_torch(args)
    if args.model is None:
        return cmd_demo(args)
    for spec in args.dynamic:  # a mistyped option is found before the model runs
        parse_dynamic(spec)
    if args.output:
        check_output_path(args.output, "-o")
    model, call_args, kwargs = make_model(args.model, args.factory)
    shapes = dynamic_shapes(args.dynamic, model, call_args, kwargs)
    with model_code(args.model, "exporting it (running its forward)"):
        ep = texport.export.export(model, call_args, kwargs, dynamic_shapes=shapes)
    _write_or_print(lower(ep, args.level), args.output)
    return 0


def cmd_export_torch(args: argparse.Namespace) -> int:
    """``export --torch MODEL.py``: torch exports the real-torch model (at --level with
    torch's run_decompositions), texport imports torch's program."""
    if args.model is None:
        raise UsageError("--torch needs a model file: texport export --torch MODEL.py")
    for spec in args.dynamic:
        parse_dynamic(spec)
    if args.output:
        check_output_path(args.output, "-o")
    from texport.bridge import archives  # torch is optional: imported for this command only

    torch = _bridge_call(lambda: archives.import_torch("texport export --torch"))
    model, call_args, kwargs = make_model(args.model, args.factory)
    shapes = dynamic_shapes(args.dynamic, model, call_args, kwargs, framework=torch)
    try:
        with model_code(args.model, "exporting it with torch (running its forward)"):
            torch_ep = archives.export_with_torch(model, call_args, kwargs, shapes, args.level)
    except Exception as err:
        if not type(err).__module__.startswith("torch"):
            raise
        raise CliError(f"torch.export could not export {args.model}: {type(err).__name__}: {err}") from err
    _write_or_print(_import_program(torch_ep, args.model), args.output)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """``import MODEL.pt2``: a torch.export.save archive, read by torch, imported."""
    if args.output:
        check_output_path(args.output, "-o")
    from texport.bridge import archives  # torch is optional: imported for this command only

    torch_ep = _bridge_call(lambda: archives.load_torch_archive(args.archive))
    _write_or_print(_import_program(torch_ep, args.archive), args.output)
    return 0


def _import_program(torch_ep: Any, source: str) -> Any:
    from texport.bridge import from_torch

    return _bridge_call(lambda: from_torch(torch_ep), f"importing torch's program from {source}: ")


def _bridge_call(action: Callable[[], Any], context: str = "") -> Any:
    """The bridge's own errors (torch missing, an archive torch cannot read, an op
    texport lacks) already say what and where: reported as they are, no traceback."""
    try:
        return action()
    except Exception as err:
        if not type(err).__module__.startswith("texport.bridge"):
            raise
        raise CliError(f"{context}{err}") from err


def cmd_show(args: argparse.Namespace) -> int:
    ep = load(args.file)
    state = {**ep.state_dict, **ep.constants}
    size = sum(t._value.nbytes for t in state.values())
    print(f"{args.file}: {ep.dialect} program\n")
    print(ep.mlir())
    print(f"Graph signature: {ep.graph_signature}")
    print(f"Range constraints: {{{', '.join(f'{k}: {v}' for k, v in ep.range_constraints.items())}}}")
    print(f"State: {len(ep.state_dict)} in state_dict, {len(ep.constants)} constants ({size:,} bytes)")
    return 0


def check_route(route: str) -> None:
    """A route ROUTES has (read when the command runs: a test may add one)."""
    if route not in ROUTES:
        raise UsageError(f"--route {route}: no such route (routes: {', '.join(ROUTES)})")


def cmd_run(args: argparse.Namespace) -> int:
    if args.backend == "interpreter" and args.route is not None:
        raise UsageError(f"--route {args.route} picks how a native backend compiles: it goes with --backend iree")
    route = args.route or "linalg"
    if args.backend != "interpreter":
        check_route(route)
    check_bindings(args.bind, args.random_inputs, "it goes with --random-inputs")
    if args.outputs:
        check_output_path(args.outputs, "--outputs")
    ep = load(args.file)
    if args.inputs:
        stored = read_npz(args.inputs)
        call = call_from_leaves(ep, npz_inputs(ep, args.inputs, stored), npz_constants(ep, stored))
    elif args.random_inputs:
        call = call_from_leaves(ep, random_user_inputs(ep, args.bind, args.seed))
    elif ep.example_inputs is not None:
        call = ep.example_inputs
    else:
        raise CliError(f"{args.file} holds no example inputs: pass --inputs IN.npz or --random-inputs")
    module = ep.module() if args.backend == "interpreter" else ep.compile(backend=args.backend, route=route)
    outputs = pytree.tree_flatten_with_path(module(*call[0], **call[1]))[0]
    labelled = [("out" + pytree.keystr(path), value) for path, value in outputs]
    for label, value in labelled:
        print(describe(label, value))
    if args.outputs:
        with open(args.outputs, "wb") as handle:  # the name as given: np.savez would add .npz
            np.savez(handle, **{label: np.asarray(v.numpy() if isinstance(v, Tensor) else v)
                                for label, v in labelled})
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    """``compile FILE -o MODEL.vmfb``: the core program by the route, compiled by IREE."""
    check_route(args.route)
    check_output_path(args.output, "-o")
    from texport.backends import iree, routes  # IREE's packages load only for this command
    from texport.lowering.ir import clone_module

    if args.file.endswith(".mlir"):  # a core program's text: no state, every argument a runtime input
        with open(args.file, "rb") as handle:  # the parser locates a byte that is not UTF-8
            module = parse_module(handle.read(), name=args.file)
        verify_module(module)
    else:
        module = clone_module(iree.core_program(load(args.file)).graph_module.module)
    iree.iree_packages()  # a missing IREE is said before the lowering work
    lowered = routes.route_text(args.route, module)
    vmfb = iree.compile_vmfb(lowered.text, args.route, lowered.input_type)
    replace_atomically(Path(args.output), lambda out: out.write(vmfb))
    print(f"wrote {args.output}: {args.file} by the {args.route} route, {len(vmfb):,} bytes "
          f"(IREE {iree.iree_version()}, llvm-cpu for this CPU)")
    return 0


def cmd_lower(args: argparse.Namespace) -> int:
    if args.output:
        check_output_path(args.output, "-o")
    _write_or_print(lower(load(args.file), args.to), args.output)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The bundled ConvBN (train mode): its IR at every level that exists, and each
    level's ep.module() run against eager execution of the model."""
    model, call_args, kwargs = make_model(str(BUNDLED_MODELS), DEMO_FACTORY)
    programs, missing, broken = _demo_levels(texport.export.export(model, call_args, kwargs))
    print(f"texport demo: {DEMO_FACTORY} from {BUNDLED_MODELS} in train mode, example input "
          f"x: f32{list(call_args[0].shape)}")
    for level, program in programs.items():
        print(f"\n== {level} IR ==\n{program.mlir()}", end="")
    # Modules first: ep.state_dict holds the model's own tensors, which eager training mutates.
    modules = {level: program.module() for level, program in programs.items()}
    want = pytree.tree_leaves(model(*call_args, **kwargs))
    print("\n== ep.module() at each level vs eager, on the example input ==")
    failed = bool(broken)
    for level in LEVELS:
        if level in missing or level in broken:
            print(f"{level:<10}  {broken.get(level) or 'missing: ' + missing[level]}")
            continue
        agree, text = _compare(modules[level], call_args, kwargs, want, model)
        failed |= not agree
        print(f"{level:<10}  {text}")
    print(_demo_summary(programs, missing, failed))
    return 1 if failed else 0


def _demo_levels(ep: Any) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """(program per level, why a level is missing, why a level failed to lower)."""
    programs, missing, broken = {"training": ep}, {}, {}
    for level in LEVELS[1:]:
        try:
            programs[level] = lower(ep, level)
        except LevelUnavailable as err:
            missing[level] = str(err)
        except Exception as err:  # noqa: BLE001 - the demo reports every level, broken ones too
            broken[level] = f"lowering FAILED: {type(err).__name__}: {err}"
    return programs, missing, broken


def _compare(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any], want: list[Any],
             model: Any) -> tuple[bool, str]:
    got = pytree.tree_leaves(module(*args, **kwargs))
    buffers = dict(module.named_buffers())
    pairs = list(zip(want, got)) + [(b, buffers.get(n)) for n, b in model.named_buffers()]
    if len(got) != len(want) or any(b is None for _, b in pairs):
        return False, f"DIFFERS from eager: {len(got)} outputs for {len(want)}, or a buffer is missing"
    diffs = [_difference(a, b) for a, b in pairs]
    worst = max(diffs, default=0.0)
    counts = f"{len(want)} output(s) and {len(pairs) - len(want)} updated buffer(s)"
    if worst <= 1e-5:
        return True, f"{counts} agree with eager (max |difference| {worst:.3g})"
    return False, f"DIFFERS from eager: {counts}, max |difference| {worst:.3g}"


def _difference(a: Any, b: Any) -> float:
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        return 0.0 if a == b else math.inf
    x, y = a.numpy(), b.numpy()
    if x.shape != y.shape or x.dtype != y.dtype:
        return math.inf
    if x.size == 0:
        return 0.0
    return float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64))))


def _demo_summary(programs: dict[str, Any], missing: dict[str, str], failed: bool) -> str:
    verdict = "FAILED: see above" if failed else f"{', '.join(programs)}: all agree with eager"
    if missing:
        verdict += f"; not checked (not implemented yet): {', '.join(missing)}"
    return f"\n{verdict}"


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="texport", description=__doc__.splitlines()[0])
    add_debug_option(parser)
    parser.add_argument("--traceback", action="store_true", dest="debug", help=argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="export a model file (no file: the demo)")
    export.add_argument("model", nargs="?", help="a .py file defining a make_* factory or MODEL")
    export.add_argument("--factory", help="which make_* factory (make_ may be left out)")
    export.add_argument("--dynamic", action="append", default=[], metavar="NAME=[ARG.]AXIS[:MIN..MAX]")
    export.add_argument("--level", choices=LEVELS, default="training")
    export.add_argument("-o", "--output", help="write an archive instead of printing the IR")
    export.add_argument("--torch", action="store_true",
                        help="the file is real-torch code: export it with torch, import torch's program")
    import_ = commands.add_parser("import", help="import a torch.export.save archive (.pt2), read by torch")
    import_.add_argument("archive", help="a .pt2 file written by torch.export.save")
    import_.add_argument("-o", "--output", help="write texport's archive instead of printing the IR")
    commands.add_parser("demo", help="export the bundled ConvBN, run every level against eager")
    show = commands.add_parser("show", help="print a saved program: IR, signature, state")
    show.add_argument("file")
    run = commands.add_parser("run", help="run a saved program (on its example inputs by default)")
    run.add_argument("file")
    source = run.add_mutually_exclusive_group()
    source.add_argument("--inputs", help=".npz with one array per user input")
    source.add_argument("--random-inputs", action="store_true")
    run.add_argument("--seed", type=non_negative_int, default=0)
    run.add_argument("--bind", action="append", default=[], metavar="SYM=N")
    run.add_argument("--outputs", help="write the outputs to this .npz")
    run.add_argument("--backend", choices=("interpreter", *BACKENDS), default="interpreter",
                     help="what runs it: texport's interpreter (default) or native code (iree)")
    run.add_argument("--route", metavar="|".join(ROUTES),
                     help="with --backend iree: how the core program becomes upstream MLIR (default: linalg)")
    compile_ = commands.add_parser("compile", help="compile a saved program to native code (IREE)")
    compile_.add_argument("file", help="a saved program, or a core program's .mlir")
    compile_.add_argument("-o", "--output", required=True, help="the IREE module to write (.vmfb)")
    compile_.add_argument("--route", default="linalg", metavar="|".join(ROUTES),
                          help="how the core program becomes upstream MLIR (default: linalg)")
    lower_ = commands.add_parser("lower", help="lower a saved program")
    lower_.add_argument("file")
    lower_.add_argument("--to", choices=LEVELS[1:], required=True)
    lower_.add_argument("-o", "--output")
    for command in commands.choices.values():  # --debug after the command too; the main one's default stays
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


_COMMANDS = {"export": cmd_export, "import": cmd_import, "demo": cmd_demo, "show": cmd_show, "run": cmd_run, "lower": cmd_lower,
             "compile": cmd_compile}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return run_tool("texport", lambda: _COMMANDS[args.command](args), debug=debug_wanted(args.debug),
                    clear=_CLEAR_ERRORS)


if __name__ == "__main__":
    sys.exit(main())
