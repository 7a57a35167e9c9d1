"""ParameterList, ParameterDict and Container: torch's keys, wrapping, order and errors."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import texport
import texport.nn as nn


def test_parameter_list_wraps_tensors_and_names_them_by_index() -> None:
    plist = nn.ParameterList([texport.ones(2), "not a tensor"])
    plist.append(texport.zeros(3))
    plist += [texport.ones(1)]
    assert len(plist) == 4
    assert isinstance(plist[0], nn.Parameter) and plist[1] == "not a tensor"
    assert list(plist.state_dict()) == ["0", "2", "3"]
    assert [name for name, _ in plist.named_parameters()] == ["0", "2", "3"]
    assert plist[-1] is plist[3]
    assert isinstance(plist[1:], nn.ParameterList) and len(plist[::2]) == 2
    assert "0" not in dir(plist)
    # torch's text, one line for one entry
    assert repr(nn.ParameterList([texport.ones(2, 3)])) == (
        "ParameterList(  (0): Parameter containing: [texport.float32 of size 2x3])")
    with pytest.raises(IndexError, match="index 4 is out of range"):
        plist[4]
    with pytest.raises(TypeError, match="should be called with an iterable, but got Tensor"):
        plist.extend(texport.ones(2))
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        plist(texport.ones(2))


def test_parameter_dict_orders_keys_as_torch_does() -> None:
    pdict = nn.ParameterDict({"b": texport.ones(1), "a": texport.ones(2)})  # a plain dict: sorted
    assert list(pdict) == ["a", "b"] and list(pdict.state_dict()) == ["a", "b"]
    ordered = nn.ParameterDict(OrderedDict([("b", texport.ones(1)), ("a", texport.ones(2))]))
    assert list(ordered.keys()) == ["b", "a"]
    pdict["c"] = nn.Parameter(texport.zeros(3))
    assert isinstance(pdict["a"], nn.Parameter) and "c" in pdict and pdict.get("z", 5) == 5
    assert pdict.setdefault("d", None) is None and len(pdict) == 4
    key, value = pdict.popitem()
    assert key == "d" and value is None and len(pdict) == 3
    merged = ordered | nn.ParameterDict({"z": texport.ones(1)})
    assert list(merged) == ["b", "a", "z"]
    del pdict["a"]
    assert list(pdict) == ["b", "c"] and list(pdict.state_dict()) == ["b", "c"]
    assert "(b): Parameter containing: [texport.FloatTensor of size 1]" in repr(pdict)
    with pytest.raises(TypeError, match="not a string"):
        pdict[1]
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        nn.ParameterDict([("a", 1, 2)])


def test_container_registers_keyword_children_and_is_deprecated() -> None:
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        container = nn.Container(first=nn.Linear(2, 3), second=nn.ReLU())
    assert list(container.state_dict()) == ["first.weight", "first.bias"]
    assert isinstance(container.second, nn.ReLU)
