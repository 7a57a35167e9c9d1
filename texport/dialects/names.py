"""SSA names exactly as torch names nodes (``add_1``, ``inp_others_0``).

xDSL strips a trailing ``_<digits>`` from name hints and renumbers values when
printing; torch's names keep their suffixes (``getitem_3``, ``inp_others_0``).
texport sets names whole, and its parser keeps them whole, so that a module
prints → parses → prints identically and the IR's names are the signature's.
(Uses xDSL internals: tested on the xdsl versions pyproject.toml admits.)"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.parser import Parser, ParserState
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from .ir_text import TexportLexer, check_nesting, decode_ir_bytes
from .schema import OpSchema

# What torch's size reads and runtime asserts return: their nodes are made by
# export itself, not traced through the dispatcher.
_INSERTED_RETURNS = frozenset({"SymInt", "SymBool", "SymFloat"})


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_1``, ``base_2``... the first not in ``taken`` (as fx
    names a repeated node), added to ``taken``."""
    name, count = base, 0
    while name in taken:
        count += 1
        name = f"{base}_{count}"
    taken.add(name)
    return name


def node_name(schema: OpSchema) -> str:
    """The base name torch gives an op's node: a traced op is named after its
    packet (``softmax.int`` -> ``softmax``); an op export inserts itself (one
    returning a symbolic scalar or nothing: ``sym_size.int``, ``_assert_scalar``)
    after its overload, the dot an underscore (``sym_size_int``)."""
    returns = schema.returns
    if not returns or returns[0].type.base in _INSERTED_RETURNS:
        return f"{schema.name}_{schema.overload}"
    if schema.name.startswith("__") and schema.name.endswith("__"):
        return schema.name[2:-2]  # fx names a magic method's node without its underscores (lshift)
    return schema.name


def set_name(value: SSAValue, name: str) -> None:
    """Name ``value`` exactly ``name`` (validated like any xDSL name hint)."""
    if not SSAValue.is_valid_name(name):
        raise ValueError(f"invalid SSA name '{name}'")
    value._name = name  # noqa: SLF001 - keep torch's `_N` suffix


def copy_name(source: SSAValue, target: SSAValue) -> None:
    """Give ``target`` the name of ``source`` whole (already a valid name)."""
    target._name = source._name  # noqa: SLF001 - keep torch's `_N` suffix


# Where each parsed op starts in its text (its first token): a verifier's complaint about
# the op is reported there (context.verify_module), as mlir-opt reports it at the op's
# location. Weak: the table forgets an op with the op.
OP_SPANS: weakref.WeakKeyDictionary[Operation, Span] = weakref.WeakKeyDictionary()


class TexportParser(Parser):
    """xDSL's parser, keeping SSA names whole, guarded against hostile text
    (see ir_text): every malformed input ends in a located ParseError."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:  # noqa: A002
        text = decode_ir_bytes(input, name) if isinstance(input, bytes) else input
        check_nesting(text, name)
        super().__init__(ctx, "", name)  # xDSL's lexer must not see the text: it hangs on some
        self._parser_state = ParserState(TexportLexer(Input(text, name)))

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """xDSL's parse_module; an exception other than ParseError (a case the
        checks above do not know yet) becomes one at the current token."""
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError:
            raise
        except VerifyException as err:  # an attribute or op refused while being built
            raise ParseError(self._current_token.span, str(err)) from err
        except Exception as err:  # noqa: BLE001 - last resort: keep the cause, add the place
            raise ParseError(
                self._current_token.span, f"cannot parse this input ({type(err).__name__}: {err})"
            ) from err

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        op = super().parse_operation()
        OP_SPANS[op] = start
        return op

    def _parse_block(self) -> Block:
        self._check_block_label()
        return super()._parse_block()

    def parse_optional_successor(self) -> Block | None:
        self._check_block_label()
        return super().parse_optional_successor()

    def _check_block_label(self) -> None:
        """xDSL refuses (with a ValueError) a block name that starts with a digit."""
        token = self._current_token
        if token.kind is MLIRTokenKind.CARET_IDENT:
            name = token.text[1:]
            if not Block.is_valid_name(name) and not Block.is_default_block_name(name):
                self.raise_error(
                    f"invalid block label '^{name}': expected a letter, '_', '$', '.' or '-' "
                    "then letters, digits or those (e.g. ^bb0)",
                    token.span,
                )

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        super()._register_ssa_definition(name, values, span)
        if len(values) == 1 and SSAValue.is_valid_name(name):
            values[0]._name = name  # noqa: SLF001
