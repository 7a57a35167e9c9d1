"""Pytrees, as ``torch.utils._pytree``: flatten nested containers into leaves and a TreeSpec.

export() flattens the model's inputs and outputs with these functions, names graph
inputs from the key paths (``inp["others"][0]`` -> ``inp_others_0``) and checks a
call's inputs against the exported structure.

    >>> leaves, spec = tree_flatten((1, {"x": 2, "y": [3, None]}))
    >>> leaves
    [1, 2, 3, None]
    >>> tree_unflatten([10, 20, 30, None], spec)
    (10, {'x': 20, 'y': [30, None]})

A node is an instance of a registered type (tuple, list, dict, namedtuple,
OrderedDict, defaultdict, deque, and whatever ``register_pytree_node`` /
``register_dataclass`` add); everything else, ``None`` included, is a leaf, as in
torch. Types match exactly: a subclass of a registered type is a leaf unless it is
registered itself (namedtuples are the exception, as in torch).
"""

from __future__ import annotations

import dataclasses
import re
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, NamedTuple

__all__ = [
    "Context",
    "FlattenFunc",
    "FlattenWithKeysFunc",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "LeafSpec",
    "MappingKey",
    "PyTree",
    "SUPPORTED_NODES",
    "SequenceKey",
    "TreeSpec",
    "TreeStructureError",
    "UnflattenFunc",
    "check_structure",
    "describe_spec",
    "describe_tree",
    "is_namedtuple",
    "is_namedtuple_class",
    "key_get",
    "keystr",
    "placeholder_name",
    "register_dataclass",
    "register_pytree_node",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_is_leaf",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_only",
    "tree_map_with_path",
    "tree_structure",
    "tree_unflatten",
    "treespec_dict",
    "treespec_leaf",
    "treespec_tuple",
]

PyTree = Any
Context = Any
FlattenFunc = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFunc = Callable[[Iterable[Any], Context], PyTree]
ToDumpableContextFn = Callable[[Context], Any]
FromDumpableContextFn = Callable[[Any], Context]
IsLeafFn = Callable[[PyTree], bool] | None


# ---------------------------------------------------------------------------
# Key paths: how to reach a leaf from the root, as torch spells them.


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    """A position in a tuple or list: ``[0]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"

    def get(self, sequence: Sequence[Any]) -> Any:
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    """A key of a dict: ``['x']``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"

    def get(self, mapping: Any) -> Any:
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    """An attribute (namedtuple or dataclass field): ``.i``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"

    def get(self, obj: Any) -> Any:
        return getattr(obj, self.name)


KeyEntry = Any  # SequenceKey | MappingKey | GetAttrKey, or a custom node's own key type
KeyPath = tuple[KeyEntry, ...]
FlattenWithKeysFunc = Callable[[PyTree], tuple[list[tuple[KeyEntry, Any]], Context]]


def keystr(kp: Iterable[KeyEntry]) -> str:
    """``(MappingKey('inp'), SequenceKey(0))`` -> ``"['inp'][0]"``."""
    return "".join(str(k) for k in kp)


def key_get(obj: Any, kp: Iterable[KeyEntry]) -> Any:
    """The subtree of ``obj`` at key path ``kp``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ---------------------------------------------------------------------------
# The node registry: one entry per container type.


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: FlattenFunc
    unflatten_fn: UnflattenFunc
    flatten_with_keys_fn: FlattenWithKeysFunc | None
    serialized_type_name: str | None
    to_dumpable_context: ToDumpableContextFn | None
    from_dumpable_context: FromDumpableContextFn | None


SUPPORTED_NODES: dict[Any, NodeDef] = {}
_SERIALIZED_NAMES: dict[str, Any] = {}
_DATACLASSES: set[type] = set()


def register_pytree_node(
    cls: type,
    flatten_fn: FlattenFunc,
    unflatten_fn: UnflattenFunc,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: ToDumpableContextFn | None = None,
    from_dumpable_context: FromDumpableContextFn | None = None,
    flatten_with_keys_fn: FlattenWithKeysFunc | None = None,
) -> None:
    """Make ``cls`` a pytree node.

    ``flatten_fn(obj) -> (children, context)``; ``unflatten_fn(children, context) -> obj``;
    ``flatten_with_keys_fn(obj) -> ([(key, child)], context)`` is needed by the
    ``*_with_path`` functions (and so by export's input naming). Registering a type,
    or a serialized type name, twice raises ValueError.
    """
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    if serialized_type_name is not None and serialized_type_name in _SERIALIZED_NAMES:
        raise ValueError(
            f"serialized_type_name {serialized_type_name!r} is already used by "
            f"{_SERIALIZED_NAMES[serialized_type_name]}."
        )
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(
            f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or "
            "registered."
        )
    SUPPORTED_NODES[cls] = NodeDef(
        cls, flatten_fn, unflatten_fn, flatten_with_keys_fn,
        serialized_type_name, to_dumpable_context, from_dumpable_context,
    )
    if serialized_type_name is not None:
        _SERIALIZED_NAMES[serialized_type_name] = cls


def _deregister_pytree_node(cls: type) -> None:
    """Undo a registration (for tests, as torch's private helper of the same name)."""
    node = SUPPORTED_NODES.pop(cls)
    _SERIALIZED_NAMES.pop(node.serialized_type_name, None)
    _DATACLASSES.discard(cls)


def register_dataclass(
    cls: type,
    *,
    field_names: list[str] | None = None,
    drop_field_names: list[str] | None = None,
    serialized_type_name: str | None = None,
) -> None:
    """Make a dataclass a pytree node whose children are its init fields, in field order.

    As torch, fields whose value is None are not children: their names go to the
    context (``[non_none_names, none_names]``), so they stay None on unflatten.
    """
    field_names = _dataclass_field_names(cls, field_names, drop_field_names or [])

    def flatten(obj: Any) -> tuple[list[Any], Context]:
        values = [getattr(obj, name) for name in field_names]
        present = [n for n, v in zip(field_names, values) if v is not None]
        absent = [n for n, v in zip(field_names, values) if v is None]
        return [v for v in values if v is not None], [present, absent]

    def unflatten(values: Iterable[Any], context: Context) -> Any:
        present, absent = context
        return cls(**dict(zip(present, values, strict=True)), **dict.fromkeys(absent))

    def flatten_with_keys(obj: Any) -> tuple[list[tuple[KeyEntry, Any]], Context]:
        values, context = flatten(obj)
        return [(GetAttrKey(n), v) for n, v in zip(context[0], values)], context

    register_pytree_node(
        cls, flatten, unflatten,
        serialized_type_name=serialized_type_name, flatten_with_keys_fn=flatten_with_keys,
    )
    _DATACLASSES.add(cls)


def _dataclass_field_names(
    cls: type, field_names: list[str] | None, drop_field_names: list[str]
) -> list[str]:
    if not dataclasses.is_dataclass(cls):
        if field_names is None:
            raise ValueError(
                "field_names must be specified with a list of all fields used to "
                f"initialize {cls}, as it is not a dataclass."
            )
        return list(field_names)
    init_fields = [f.name for f in dataclasses.fields(cls) if f.init]
    if field_names is None:
        return [name for name in init_fields if name not in drop_field_names]
    expected = set(init_fields) - set(drop_field_names)
    if set(field_names) != expected:
        raise ValueError(
            f"field_names {sorted(field_names)} of {cls.__name__} must list exactly its init "
            f"fields not in drop_field_names: {sorted(expected)}."
        )
    return list(field_names)


# Built-in containers. torch gives every namedtuple class the node type `namedtuple`
# (the factory function) and keeps the class itself as the context.


def _seq_flatten(seq: Sequence[Any]) -> tuple[list[Any], Context]:
    return list(seq), None


def _seq_flatten_with_keys(seq: Sequence[Any]) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return [(SequenceKey(i), v) for i, v in enumerate(seq)], None


def _dict_flatten(d: dict) -> tuple[list[Any], Context]:
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d: dict) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _defaultdict_flatten(d: defaultdict) -> tuple[list[Any], Context]:
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_flatten_with_keys(d: defaultdict) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return _dict_flatten_with_keys(d)[0], [d.default_factory, list(d.keys())]


def _namedtuple_flatten(t: tuple) -> tuple[list[Any], Context]:
    return list(t), type(t)


def _namedtuple_flatten_with_keys(t: tuple) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return [(GetAttrKey(f), v) for f, v in zip(type(t)._fields, t)], type(t)


def _deque_flatten(d: deque) -> tuple[list[Any], Context]:
    return list(d), d.maxlen


def _deque_flatten_with_keys(d: deque) -> tuple[list[tuple[KeyEntry, Any]], Context]:
    return _seq_flatten_with_keys(d)[0], d.maxlen


_BUILTIN_NODES = [
    (tuple, _seq_flatten, lambda v, c: tuple(v), _seq_flatten_with_keys, "builtins.tuple"),
    (list, _seq_flatten, lambda v, c: list(v), _seq_flatten_with_keys, "builtins.list"),
    (dict, _dict_flatten, lambda v, c: dict(zip(c, v, strict=True)),
     _dict_flatten_with_keys, "builtins.dict"),
    (namedtuple, _namedtuple_flatten, lambda v, c: c(*v),
     _namedtuple_flatten_with_keys, "collections.namedtuple"),
    (OrderedDict, _dict_flatten, lambda v, c: OrderedDict(zip(c, v, strict=True)),
     _dict_flatten_with_keys, "collections.OrderedDict"),
    (defaultdict, _defaultdict_flatten, lambda v, c: defaultdict(c[0], zip(c[1], v, strict=True)),
     _defaultdict_flatten_with_keys, "collections.defaultdict"),
    (deque, _deque_flatten, lambda v, c: deque(v, maxlen=c),
     _deque_flatten_with_keys, "collections.deque"),
]
for _cls, _flatten, _unflatten, _with_keys, _name in _BUILTIN_NODES:
    register_pytree_node(
        _cls, _flatten, _unflatten, flatten_with_keys_fn=_with_keys, serialized_type_name=_name
    )

_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
_SEQUENCE_TYPES = frozenset({tuple, list, deque})


def is_namedtuple_class(cls: Any) -> bool:
    """Whether ``cls`` is a class made by ``collections.namedtuple`` / ``typing.NamedTuple``."""
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(type(f) is str for f in cls._fields)
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple(obj: Any) -> bool:
    """Whether ``obj`` is a namedtuple instance or class."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree: Any) -> Any:
    cls = type(tree)
    if cls is not tuple and issubclass(cls, tuple) and is_namedtuple_class(cls):
        return namedtuple
    return cls


def tree_is_leaf(tree: PyTree, is_leaf: IsLeafFn = None) -> bool:
    """Whether ``tree`` is a leaf: not a registered node, or picked by ``is_leaf``."""
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


# ---------------------------------------------------------------------------
# TreeSpec


class TreeSpec:
    """The structure of a pytree: a node type, its context and one spec per child.

    A leaf is ``TreeSpec(None, None, [])`` (``LeafSpec()``) and prints as ``*``.
    """

    __slots__ = ("type", "_context", "_children", "num_leaves", "num_nodes", "num_children")

    def __init__(
        self, type: Any, context: Context, children_specs: list[TreeSpec]  # noqa: A002
    ) -> None:
        self.type = type
        self._context = context
        self._children = list(children_specs)
        self.num_children = len(self._children)
        if type is None:
            self.num_leaves, self.num_nodes = 1, 1
        else:
            self.num_leaves = sum(c.num_leaves for c in self._children)
            self.num_nodes = 1 + sum(c.num_nodes for c in self._children)

    @property
    def context(self) -> Context:
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        return self._children

    def children(self) -> list[TreeSpec]:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (
            self.type is other.type
            and self._context == other._context
            and self._children == other._children
        )

    def __hash__(self) -> int:
        return hash((self.type, _hashable(self._context), tuple(self._children)))

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        indent += 2
        children = (",\n" + " " * indent).join(c.__repr__(indent) for c in self._children)
        return f"TreeSpec({self.type.__name__}, {self._context}, [{children}])"

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """Rebuild a pytree of this structure from ``leaves``."""
        leaves = leaves if isinstance(leaves, (list, tuple)) else list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self})."
            )
        return self._unflatten(iter(leaves))

    def _unflatten(self, leaves: Iterable[Any]) -> PyTree:
        if self.type is None:
            return next(leaves)
        children = [c._unflatten(leaves) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` may be deeper there).

        As torch, dict, OrderedDict and defaultdict match each other and key order does
        not matter (subtrees come in this spec's key order). A mismatch raises
        TreeStructureError naming the first differing path.
        """
        matcher = _Matcher(False, None, "", "Tree structure differs from the TreeSpec")
        return matcher.run(self, tree)


class LeafSpec(TreeSpec):
    """The spec of a leaf, ``*`` (torch's spelling; equal to ``TreeSpec(None, None, [])``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, None, [])


_LEAF = LeafSpec()


def _hashable(context: Context) -> Hashable:
    if isinstance(context, list):
        return tuple(_hashable(c) for c in context)
    try:
        hash(context)
    except TypeError:
        return None  # equal specs still hash equal; only the collision rate changes
    return context


def treespec_leaf() -> TreeSpec:
    return _LEAF


def treespec_tuple(children: Iterable[TreeSpec] = ()) -> TreeSpec:
    return TreeSpec(tuple, None, list(children))


def treespec_dict(mapping: dict[Any, TreeSpec] | None = None, **kwargs: TreeSpec) -> TreeSpec:
    d = dict(mapping or {}, **kwargs)
    return TreeSpec(dict, list(d.keys()), list(d.values()))


# ---------------------------------------------------------------------------
# Flatten, unflatten, map


def tree_flatten(tree: PyTree, is_leaf: IsLeafFn = None) -> tuple[list[Any], TreeSpec]:
    """``(1, {"x": 2})`` -> ``([1, 2], TreeSpec(tuple, None, [*, TreeSpec(dict, ['x'], [*])]))``."""
    leaves: list[Any] = []
    return leaves, _flatten_into(tree, leaves, is_leaf)


def _flatten_into(tree: PyTree, leaves: list[Any], is_leaf: IsLeafFn) -> TreeSpec:
    node = None if is_leaf is not None and is_leaf(tree) else SUPPORTED_NODES.get(_node_type(tree))
    if node is None:
        leaves.append(tree)
        return _LEAF
    children, context = node.flatten_fn(tree)
    return TreeSpec(node.type, context, [_flatten_into(c, leaves, is_leaf) for c in children])


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The inverse of tree_flatten."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            "tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec "
            f"but got item of type {type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: IsLeafFn = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: IsLeafFn = None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeafFn = None
) -> PyTree:
    """Apply ``func`` to the leaves of ``tree`` (and the matching subtrees of ``rests``)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat_rests = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(*xs) for xs in zip(leaves, *flat_rests)])


def tree_map_only(
    types: type | tuple[type, ...],
    func: Callable[[Any], Any],
    tree: PyTree,
    is_leaf: IsLeafFn = None,
) -> PyTree:
    """tree_map on the leaves that are instances of ``types``; other leaves stay as they are."""
    return tree_map(lambda x: func(x) if isinstance(x, types) else x, tree, is_leaf=is_leaf)


def tree_flatten_with_path(
    tree: PyTree, is_leaf: IsLeafFn = None
) -> tuple[list[tuple[KeyPath, Any]], TreeSpec]:
    """The leaves with their key paths, and the spec.

    ``{"x": 1, "others": [2]}`` -> ``[((MappingKey('x'),), 1),
    ((MappingKey('others'), SequenceKey(0)), 2)]`` and the spec of tree_flatten.
    """
    _, spec = tree_flatten(tree, is_leaf)
    with_path: list[tuple[KeyPath, Any]] = []
    _paths_into((), tree, with_path, is_leaf)
    return with_path, spec


def _paths_into(
    path: KeyPath, tree: PyTree, out: list[tuple[KeyPath, Any]], is_leaf: IsLeafFn
) -> None:
    node_type = _node_type(tree)
    node = None if is_leaf is not None and is_leaf(tree) else SUPPORTED_NODES.get(node_type)
    if node is None:
        out.append((path, tree))
        return
    if node.flatten_with_keys_fn is None:
        raise ValueError(
            f"Did not find a flatten_with_keys_fn for type: {node_type}. "
            "Please pass a flatten_with_keys_fn argument to register_pytree_node."
        )
    for key, child in node.flatten_with_keys_fn(tree)[0]:
        _paths_into((*path, key), child, out, is_leaf)


def tree_leaves_with_path(tree: PyTree, is_leaf: IsLeafFn = None) -> list[tuple[KeyPath, Any]]:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeafFn = None
) -> PyTree:
    """tree_map whose ``func`` also receives each leaf's key path first."""
    with_path, spec = tree_flatten_with_path(tree, is_leaf)
    flat_rests = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten([func(kp, x, *xs) for (kp, x), *xs in zip(with_path, *flat_rests)])


# ---------------------------------------------------------------------------
# Structure checks with errors that name the path


class TreeStructureError(ValueError):
    """A pytree differs from a TreeSpec; ``path`` is the key path of the first difference."""

    def __init__(self, message: str, where: str, path: KeyPath, expected: str, got: str) -> None:
        super().__init__(f"{message} at {where}: expected {expected}, got {got}")
        self.where, self.path, self.expected, self.got = where, path, expected, got


def check_structure(
    tree: PyTree,
    spec: TreeSpec,
    *,
    root: str = "",
    named_args: bool = False,
    example_leaves: Sequence[Any] | None = None,
    message: str = "Input structure differs from the exported one",
) -> list[Any]:
    """Check that ``tree`` has exactly the structure ``spec`` and return its leaves.

    Unlike ``spec.flatten_up_to``, a spec leaf must meet a leaf. The error prints the
    path of the first difference after ``root`` (``inp`` -> ``inp['others'][1]``);
    ``named_args=True`` says ``tree`` is a dict {argument name: value}, whose keys
    print bare (``inp['others'][1]``, not ``['inp']['others'][1]``). ``example_leaves``
    (the leaves the spec came from) let the error name the expected leaf: ``expected a
    Tensor leaf, got a list of 2 items``.
    """
    return _Matcher(True, example_leaves, root, message, named_args).run(spec, tree)


# A path while matching is a linked list (parent, key), turned into a tuple only on error.
_LinkedPath = tuple[Any, KeyEntry] | None


def _unlink(path: _LinkedPath) -> KeyPath:
    keys: list[KeyEntry] = []
    while path is not None:
        path, key = path
        keys.append(key)
    return tuple(reversed(keys))


class _Matcher:
    """Walks a spec and a tree together, collecting the tree's subtrees at spec leaves."""

    def __init__(
        self,
        strict: bool,
        example_leaves: Sequence[Any] | None,
        root: str,
        message: str,
        named_args: bool = False,
    ) -> None:
        self.strict, self.examples, self.root, self.message = strict, example_leaves, root, message
        self.named_args = named_args

    def run(self, spec: TreeSpec, tree: PyTree) -> list[Any]:
        out: list[Any] = []
        self._match(spec, tree, None, out)
        return out

    def fail(self, path: _LinkedPath, expected: str, got: str) -> TreeStructureError:
        keys = _unlink(path)
        if self.named_args and keys and isinstance(keys[0], MappingKey):
            where = f"{self.root}{keys[0].key}{keystr(keys[1:])}"
        else:
            where = self.root + keystr(keys) or "the top level"
        return TreeStructureError(self.message, where, keys, expected, got)

    def _match(self, spec: TreeSpec, tree: PyTree, path: _LinkedPath, out: list[Any]) -> None:
        if spec.type is None:
            if self.strict and not tree_is_leaf(tree):
                raise self.fail(path, self._leaf_description(len(out)), describe_tree(tree))
            out.append(tree)
            return
        for key, child_spec, child in self._children(spec, tree, path):
            self._match(child_spec, child, (path, key), out)

    def _leaf_description(self, index: int) -> str:
        if self.examples is None or index >= len(self.examples):
            return "a leaf"
        return describe_tree(self.examples[index])

    def _children(self, spec: TreeSpec, tree: PyTree, path: _LinkedPath) -> Iterable[tuple]:
        node_type = _node_type(tree)
        if spec.type in _DICT_TYPES and node_type in _DICT_TYPES:
            keys = spec.context[1] if spec.type is defaultdict else spec.context
            if len(tree) != len(keys) or any(k not in tree for k in keys):
                raise self.fail(path, f"dict keys {list(keys)!r}", repr(list(tree)))
            return zip(map(MappingKey, keys), spec.children_specs, [tree[k] for k in keys])
        same_class = node_type is not namedtuple or type(tree) is spec.context
        if node_type is not spec.type or not same_class:
            raise self.fail(path, describe_spec(spec), describe_tree(tree))
        if spec.type in _SEQUENCE_TYPES or spec.type is namedtuple:
            if len(tree) != spec.num_children:
                raise self.fail(path, describe_spec(spec), str(len(tree)))
            node = SUPPORTED_NODES[node_type]
            keyed = node.flatten_with_keys_fn(tree)[0]
            return ((k, s, c) for (k, c), s in zip(keyed, spec.children_specs))
        return self._custom_children(spec, tree, path)

    def _custom_children(self, spec: TreeSpec, tree: PyTree, path: _LinkedPath) -> Iterable[tuple]:
        node = SUPPORTED_NODES[spec.type]
        children, context = node.flatten_fn(tree)
        if context != spec.context or len(children) != spec.num_children:
            raise self.fail(path, describe_spec(spec), describe_tree(tree))
        if node.flatten_with_keys_fn is None:
            keys: Iterable[KeyEntry] = map(SequenceKey, range(len(children)))
        else:
            keys = [k for k, _ in node.flatten_with_keys_fn(tree)[0]]
        return zip(keys, spec.children_specs, children)


def describe_tree(tree: PyTree) -> str:
    """A short description for error messages: ``a list of 2 items``, ``a Tensor leaf``."""
    if tree is None:
        return "None"
    node = SUPPORTED_NODES.get(_node_type(tree))
    if node is None:
        return f"{_article(type(tree).__name__)} leaf"
    children, context = node.flatten_fn(tree)
    return _describe_node(node.type, context, len(children))


def describe_spec(spec: TreeSpec) -> str:
    """What ``spec`` expects, in the words of describe_tree."""
    if spec.type is None:
        return "a leaf"
    return _describe_node(spec.type, spec.context, spec.num_children)


def _describe_node(node_type: Any, context: Context, num_children: int) -> str:
    items = f"{num_children} item{'' if num_children == 1 else 's'}"
    if node_type in _SEQUENCE_TYPES:
        return f"a {node_type.__name__} of {items}"
    if node_type is defaultdict:
        return f"a defaultdict with keys {context[1]!r}"
    if node_type in _DICT_TYPES:
        return f"a {node_type.__name__} with keys {context!r}"
    if node_type is namedtuple:
        return f"a namedtuple {context.__name__} of {items}"
    if node_type in _DATACLASSES:
        present, absent = context
        nones = f" and None fields {absent!r}" if absent else ""
        return f"{_article(node_type.__name__)} with fields {present!r}{nones}"
    return f"{_article(node_type.__name__)} with context {context!r} and {items}"


def _article(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


# ---------------------------------------------------------------------------
# Graph input names


def placeholder_name(keypath_entries: Iterable[KeyEntry], arg_name: str) -> str:
    """torch.export's name for the input at ``keypath_entries`` inside argument ``arg_name``.

    ``inp["x"]`` -> ``inp_x``; ``inp["others"][0]`` -> ``inp_others_0``; dataclass field
    ``d.i`` -> ``d_i``; a plain argument ``x`` -> ``x``. Characters other than ASCII
    letters and digits in argument names and dict keys become ``_``.
    """
    return "_".join([_NON_ALNUM.sub("_", arg_name)] + [_key_name(k) for k in keypath_entries])


_NON_ALNUM = re.compile(r"[^a-zA-Z0-9]")


def _key_name(key: KeyEntry) -> str:
    if isinstance(key, MappingKey):
        return _NON_ALNUM.sub("_", str(key.key))
    if isinstance(key, SequenceKey):
        return str(key.idx)
    if isinstance(key, GetAttrKey):
        return key.name
    raise TypeError(
        f"Pytree key of type {type(key).__name__} ({key}) has no placeholder name; "
        "key paths for export must use MappingKey, SequenceKey or GetAttrKey."
    )
