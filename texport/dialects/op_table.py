"""The op table: every op texport knows, as torch's exact schema strings, each
row with its facts (see op_table.txt for the format and tags.py for the tags).

The start-up (dialects/bootstrap.py) registers every row in registry.OPS.
core_aten_ops.txt is the reference list of torch's Core ATen overloads: the
rows tagged ``core`` are exactly its rows (a test holds them to it).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from .registry import register_op
from .tags import Facts, TagError, check_family, parse_tags

_FAMILY = "family:"
_TAGS = "  ["  # a row's tags follow its schema after two spaces, in brackets


@dataclass(frozen=True)
class Row:
    schema: str
    facts: Facts
    family: str


def core_schemas() -> list[tuple[str, str]]:
    """(key, schema) for each line of core_aten_ops.txt, the reference list."""
    rows = []
    for line in _read("core_aten_ops.txt").splitlines():
        if line and not line.startswith("#"):
            key, schema = line.split("\t")
            rows.append((key, schema))
    return rows


def table_rows() -> list[Row]:
    """The rows of op_table.txt, with their validated facts and family."""
    return parse_table(_read("op_table.txt"))


def parse_table(text: str) -> list[Row]:
    """Rows from text in op_table.txt's format; an unknown tag or family is an error."""
    rows, family = [], None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if line.startswith(_FAMILY):
                family = check_family(line[len(_FAMILY):].strip())
                continue
            if family is None:
                raise TagError("a row before the first 'family:' line")
            schema, _, tags = line.partition(_TAGS)
            rows.append(Row(schema.rstrip(), parse_tags(tags.removesuffix("]")), family))
        except TagError as error:
            raise TagError(f"op_table.txt:{number}: {error}") from None
    return rows


def _read(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text()


def register_all() -> None:
    """Start-up stage "op table" (dialects/bootstrap.py): register every row."""
    for row in table_rows():
        register_op(row.schema, facts=row.facts, family=row.family)
