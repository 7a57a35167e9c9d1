"""Pytrees (texport.tracer.pytree, re-exported as texport.utils._pytree / .pytree)."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, NamedTuple

import numpy as np
import pytest

import texport.utils._pytree as pytree
from texport.utils import pytree as public_pytree
from texport.utils._pytree import (
    GetAttrKey,
    LeafSpec,
    MappingKey,
    SequenceKey,
    TreeSpec,
    TreeStructureError,
    check_structure,
    keystr,
    placeholder_name,
    register_dataclass,
    register_pytree_node,
    tree_flatten,
    tree_flatten_with_path,
    tree_leaves,
    tree_map,
    tree_map_only,
    tree_map_with_path,
    tree_structure,
    tree_unflatten,
)

Point = namedtuple("Point", ["x", "y"])


class Pair(NamedTuple):
    first: Any
    second: Any


@dataclasses.dataclass
class D:
    b: bool
    i: int
    t: Any


@dataclasses.dataclass
class Unregistered:
    a: Any


register_dataclass(D)


class Box:
    """A custom node with a context (its label) and one child."""

    def __init__(self, label: str, content: Any) -> None:
        self.label, self.content = label, content


register_pytree_node(
    Box,
    lambda box: ([box.content], box.label),
    lambda values, label: Box(label, next(iter(values))),
    flatten_with_keys_fn=lambda box: ([(GetAttrKey("content"), box.content)], box.label),
)


def assert_same_tree(a: Any, b: Any) -> None:
    """Same structure (types included) and identical leaves."""
    leaves_a, spec_a = tree_flatten(a)
    leaves_b, spec_b = tree_flatten(b)
    assert spec_a == spec_b
    assert len(leaves_a) == len(leaves_b)
    assert all(x is y for x, y in zip(leaves_a, leaves_b))


ARR = np.arange(6, dtype=np.float32).reshape(2, 3)
ARR2 = np.ones(3, dtype=np.int64)

ROUND_TRIPS = {
    "leaf": (ARR, [ARR]),
    "none_leaf": (None, [None]),
    "tuple": ((1, "s", None, ARR), [1, "s", None, ARR]),
    "empty_tuple": ((), []),
    "list": ([ARR, 2, [3, ["a"]]], [ARR, 2, 3, "a"]),
    "dict": ({"y": ARR, "x": 1, 0: None}, [ARR, 1, None]),
    "ordereddict": (OrderedDict([("b", 1), ("a", ARR)]), [1, ARR]),
    "defaultdict": (defaultdict(list, {"k": ARR2, "j": (1, 2)}), [ARR2, 1, 2]),
    "deque": (deque([1, ARR], maxlen=4), [1, ARR]),
    "namedtuple": (Point(ARR, [1, 2]), [ARR, 1, 2]),
    "typing_namedtuple": (Pair("f", {"s": ARR}), ["f", ARR]),
    "dataclass": (D(True, 3, ARR), [True, 3, ARR]),
    "dataclass_none_field": (D(False, 4, None), [False, 4]),
    "unregistered_dataclass": (Unregistered(ARR), None),
    "custom": (Box("lbl", [ARR, 5]), [ARR, 5]),
    "nested": (
        ({"inp": {"x": ARR, "others": [ARR2, None]}}, [Point(1, D(True, 2, "s"))], ()),
        [ARR, ARR2, None, 1, True, 2, "s"],
    ),
}


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_round_trip(name: str) -> None:
    tree, expected_leaves = ROUND_TRIPS[name]
    leaves, spec = tree_flatten(tree)
    expected_leaves = [tree] if expected_leaves is None else expected_leaves
    assert len(leaves) == len(expected_leaves) == spec.num_leaves
    assert all(a is b or a == b for a, b in zip(leaves, expected_leaves))
    if name != "unregistered_dataclass":
        assert all(a is b for a, b in zip(leaves, tree_leaves(tree)))
    rebuilt = tree_unflatten(leaves, spec)
    assert type(rebuilt) is type(tree)
    assert_same_tree(rebuilt, tree)


def test_round_trip_rebuilds_container_details() -> None:
    dd = tree_unflatten([1, 2], tree_structure(defaultdict(list, {"k": 0, "j": 0})))
    assert isinstance(dd, defaultdict) and dd.default_factory is list
    assert list(dd.items()) == [("k", 1), ("j", 2)]
    dq = tree_unflatten([7], tree_structure(deque([0], maxlen=4)))
    assert dq.maxlen == 4 and list(dq) == [7]
    od = tree_unflatten([1, 2], tree_structure(OrderedDict([("b", 0), ("a", 0)])))
    assert type(od) is OrderedDict and list(od) == ["b", "a"]
    d = tree_unflatten([False, 9], tree_structure(D(True, 3, None)))
    assert d == D(False, 9, None)
    box = tree_unflatten([4], tree_structure(Box("lbl", 0)))
    assert (box.label, box.content) == ("lbl", 4)


def test_none_is_a_leaf_as_in_torch() -> None:
    assert tree_flatten(None) == ([None], LeafSpec())
    leaves, spec = tree_flatten([None, {"a": None}])
    assert leaves == [None, None]
    assert spec.num_leaves == 2


def test_dict_keys_keep_insertion_order() -> None:
    leaves, spec = tree_flatten({"b": 1, "a": 2})
    assert leaves == [1, 2]
    assert spec.context == ["b", "a"]
    assert spec != tree_structure({"a": 1, "b": 2})
    assert spec == tree_structure({"b": "x", "a": "y"})


def test_treespec_fields_equality_and_repr() -> None:
    spec = tree_structure((1, {"x": 2, "y": 3}))
    assert spec.type is tuple and spec.context is None and spec.num_leaves == 3
    assert spec.num_children == 2 and spec.num_nodes == 5
    assert spec.children_specs[0] == LeafSpec() and spec.children_specs[0].is_leaf()
    assert spec.children_specs[1] == TreeSpec(dict, ["x", "y"], [LeafSpec(), LeafSpec()])
    assert spec == TreeSpec(tuple, None, [LeafSpec(), TreeSpec(dict, ["x", "y"], [LeafSpec()] * 2)])
    assert spec != tree_structure((1, {"x": 2, "z": 3}))
    assert spec != tree_structure([1, {"x": 2, "y": 3}])
    assert hash(spec) == hash(tree_structure(("a", {"x": "b", "y": "c"})))
    # torch 2.13's layout: one child per line, indented by depth
    assert repr(spec) == "TreeSpec(tuple, None, [*,\n  TreeSpec(dict, ['x', 'y'], [*,\n    *])])"
    assert repr(tree_structure(((),))) == "TreeSpec(tuple, None, [TreeSpec(tuple, None, [])])"


def test_namedtuple_spec_remembers_class_and_fields() -> None:
    spec = tree_structure(Point(1, 2))
    assert spec.type is namedtuple  # torch's node type for every namedtuple
    assert spec.context is Point and spec.context._fields == ("x", "y")
    assert spec != tree_structure((1, 2))
    assert spec != tree_structure(Pair(1, 2))
    assert tree_unflatten(["a", "b"], spec) == Point("a", "b")
    assert repr(spec).startswith("TreeSpec(namedtuple, <class ")


def test_dataclass_spec_children_in_field_order() -> None:
    spec = tree_structure(D(True, 3, ARR))
    assert spec.type is D
    assert spec.context == [["b", "i", "t"], []]
    # a None field is not a child: it moves to the context, as torch does
    assert tree_structure(D(True, 3, None)).context == [["b", "i"], ["t"]]
    assert tree_structure(Unregistered(1)) == LeafSpec()


def test_unflatten_checks_leaf_count() -> None:
    spec = tree_structure((1, [2, 3]))
    with pytest.raises(ValueError, match="has length 2 but the spec refers to a pytree that holds"):
        tree_unflatten([1, 2], spec)
    with pytest.raises(TypeError, match="Expected `treespec` to be instance of TreeSpec"):
        tree_unflatten([1], (1,))


def test_key_paths_and_keystr() -> None:
    tree = {"inp": {"x": 1, "others": [2, 3]}, "d": D(True, 4, None), "p": Point(5, 6)}
    with_path, spec = tree_flatten_with_path(tree)
    assert spec == tree_structure(tree)
    assert [leaf for _, leaf in with_path] == [1, 2, 3, True, 4, 5, 6]
    assert with_path[1][0] == (MappingKey("inp"), MappingKey("others"), SequenceKey(0))
    assert [keystr(kp) for kp, _ in with_path] == [
        "['inp']['x']", "['inp']['others'][0]", "['inp']['others'][1]",
        "['d'].b", "['d'].i", "['p'].x", "['p'].y",
    ]
    assert [str(SequenceKey(0)), str(MappingKey("x")), str(GetAttrKey("i"))] == [
        "[0]", "['x']", ".i"
    ]
    assert str(MappingKey(1)) == "[1]"
    assert pytree.key_get(tree, with_path[2][0]) == 3


def test_key_paths_need_flatten_with_keys_fn() -> None:
    class NoKeys:
        def __init__(self, v: Any) -> None:
            self.v = v

    register_pytree_node(NoKeys, lambda n: ([n.v], None), lambda vs, _: NoKeys(list(vs)[0]))
    try:
        assert tree_leaves([NoKeys(1)]) == [1]
        with pytest.raises(ValueError, match="Did not find a flatten_with_keys_fn for type"):
            tree_flatten_with_path([NoKeys(1)])
    finally:
        pytree._deregister_pytree_node(NoKeys)


def test_placeholder_names_follow_torch_export() -> None:
    tree = {"x": 1, "others": [2, 3]}
    names = [placeholder_name(kp, "inp") for kp, _ in tree_flatten_with_path(tree)[0]]
    assert names == ["inp_x", "inp_others_0", "inp_others_1"]
    d_names = [placeholder_name(kp, "d") for kp, _ in tree_flatten_with_path(D(True, 3, 1))[0]]
    assert d_names == ["d_b", "d_i", "d_t"]
    assert placeholder_name((), "x") == "x"
    assert placeholder_name((MappingKey("a-b c"), SequenceKey(2)), "inp") == "inp_a_b_c_2"
    assert placeholder_name((MappingKey("Xy"),), "Inp") == "Inp_Xy"  # case is kept
    with pytest.raises(TypeError, match="has no placeholder name"):
        placeholder_name(("raw",), "inp")


def test_check_structure_names_the_leaf_that_became_a_container() -> None:
    example = {"x": ARR, "others": [ARR2, ARR2]}
    leaves, spec = tree_flatten(example)
    bad = {"x": ARR, "others": [ARR2, [ARR2, ARR2]]}
    with pytest.raises(TreeStructureError) as info:
        check_structure(bad, spec, root="inp", example_leaves=leaves)
    assert str(info.value) == (
        "Input structure differs from the exported one at inp['others'][1]: "
        "expected a ndarray leaf, got a list of 2 items"
    )
    assert info.value.path == (MappingKey("others"), SequenceKey(1))
    with pytest.raises(TreeStructureError, match=r"at inp\['others'\]\[1\]: expected a leaf, got"):
        check_structure(bad, spec, root="inp")


def test_check_structure_names_missing_dict_keys() -> None:
    spec = tree_structure({"x": 1, "others": [2]})
    with pytest.raises(TreeStructureError) as info:
        check_structure({"x": 1}, spec, root="inp")
    assert str(info.value) == (
        "Input structure differs from the exported one at inp: "
        "expected dict keys ['x', 'others'], got ['x']"
    )


def test_check_structure_prints_argument_names_bare() -> None:
    named = {"inp": {"x": 1, "others": [2, 3]}, "d": D(True, 1, 2)}
    spec = tree_structure(named)
    bad = {"inp": {"x": 1, "others": [2]}, "d": D(True, 1, 2)}
    with pytest.raises(TreeStructureError) as info:
        check_structure(bad, spec, named_args=True)
    assert str(info.value) == (
        "Input structure differs from the exported one at inp['others']: "
        "expected a list of 2 items, got 1"
    )
    with pytest.raises(TreeStructureError, match=r"at \['inp'\]\['others'\]: expected a list"):
        check_structure(bad, spec)
    with pytest.raises(TreeStructureError, match=r"at the top level: expected dict keys"):
        check_structure({"inp": named["inp"]}, spec, named_args=True)


def test_check_structure_names_arity_and_type_changes() -> None:
    spec = tree_structure(((1, 2), (3, 4)))
    with pytest.raises(TreeStructureError) as info:
        check_structure(((1, 2), (3, 4, 5)), spec)
    assert str(info.value) == (
        "Input structure differs from the exported one at [1]: expected a tuple of 2 items, got 3"
    )
    with pytest.raises(TreeStructureError, match=r"at \[0\]: expected a tuple of 2 items, got a l"):
        check_structure(([1, 2], (3, 4)), spec)
    with pytest.raises(TreeStructureError, match="at the top level: expected a tuple of 2 items"):
        check_structure(None, spec)
    with pytest.raises(TreeStructureError, match="expected a namedtuple Point of 2 items, got a "
                                                 "namedtuple Pair of 2 items"):
        check_structure(Pair(1, 2), tree_structure(Point(1, 2)))
    d_mismatch = r"In at the top level: expected a D with fields \['b', 'i'\] and None fields"
    with pytest.raises(TreeStructureError, match=d_mismatch):
        check_structure(D(True, 1, ARR), tree_structure(D(True, 1, None)), message="In")


def test_check_structure_returns_leaves_in_spec_key_order() -> None:
    spec = tree_structure({"x": 1, "y": [2]})
    assert check_structure(OrderedDict([("y", ["b"]), ("x", "a")]), spec) == ["a", "b"]


def test_flatten_up_to_allows_deeper_subtrees() -> None:
    spec = tree_structure((1, {"x": 2}))
    assert spec.flatten_up_to(([1, 2], {"x": (3,)})) == [[1, 2], (3,)]
    with pytest.raises(ValueError, match=r"Tree structure differs from the TreeSpec at \[1\]: "
                                         r"expected dict keys \['x'\], got \['y'\]"):
        spec.flatten_up_to((1, {"y": 2}))


def test_duplicate_registration_is_an_error() -> None:
    @dataclasses.dataclass
    class Fresh:
        a: int

    register_dataclass(Fresh)
    try:
        with pytest.raises(ValueError, match="already registered as pytree node"):
            register_dataclass(Fresh)
        with pytest.raises(ValueError, match="already registered as pytree node"):
            register_pytree_node(Fresh, lambda f: ([f.a], None), lambda v, c: Fresh(*v))
    finally:
        pytree._deregister_pytree_node(Fresh)
    with pytest.raises(ValueError, match="already registered as pytree node"):
        register_pytree_node(list, lambda x: (x, None), lambda v, c: list(v))
    assert tree_leaves(Fresh(1)) == [Fresh(1)]  # deregistered: a leaf again


def test_tree_map_over_two_trees() -> None:
    a = {"x": np.ones(2), "ys": [1, 2]}
    b = {"ys": [10, 20], "x": np.full(2, 3.0)}  # key order may differ: matched by key
    out = tree_map(lambda u, v: u + v, a, b)
    assert list(out) == ["x", "ys"]
    np.testing.assert_array_equal(out["x"], np.full(2, 4.0))
    assert out["ys"] == [11, 22]
    with pytest.raises(TreeStructureError, match=r"at \['ys'\]: expected a list of 2 items, got 3"):
        tree_map(lambda u, v: u, a, {"x": 0, "ys": [1, 2, 3]})


def test_tree_map_variants() -> None:
    tree = (1, "s", [ARR])
    assert tree_map_only(int, lambda v: v * 10, tree)[:2] == (10, "s")
    paths = tree_map_with_path(lambda kp, v: keystr(kp), tree)
    assert paths == ("[0]", "[1]", ["[2][0]"])
    assert tree_map(lambda v: v, [(1, 2)], is_leaf=lambda n: isinstance(n, tuple)) == [(1, 2)]
    assert tree_leaves([(1, 2)], is_leaf=lambda n: isinstance(n, tuple)) == [(1, 2)]


def test_public_modules_reexport_the_same_objects() -> None:
    for name in ("tree_flatten", "TreeSpec", "register_pytree_node", "keystr", "SequenceKey"):
        assert getattr(public_pytree, name) is getattr(pytree, name)
