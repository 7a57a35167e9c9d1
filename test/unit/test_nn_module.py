"""texport.nn.Module and Parameter: registration, traversal order, state_dict,
modes, dtype conversion, hooks and printing, against torch's documented behaviour."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import texport
import texport.nn as nn
from texport.nn import Module, Parameter


def param(*values: float) -> Parameter:
    return Parameter(texport.tensor(list(values)))


class Leaf(Module):
    def __init__(self, n: int = 2) -> None:
        super().__init__()
        self.weight = param(*range(n))
        self.register_buffer("stat", texport.tensor([0.0] * n))

    def forward(self, x: texport.Tensor) -> texport.Tensor:
        return x * self.weight


class Tree(Module):
    """A child registered BEFORE the own parameter: own members still come first."""

    def __init__(self) -> None:
        super().__init__()
        self.left = Leaf()
        self.scale = param(1.0)
        self.right = Leaf(3)
        self.register_buffer("steps", texport.tensor(0), persistent=False)

    def forward(self, x: texport.Tensor) -> texport.Tensor:
        return self.left(x) * self.scale


# ---------------------------------------------------------------- attribute routing


def test_assignment_routes_members_into_their_tables() -> None:
    tree = Tree()
    assert list(tree._parameters) == ["scale"]
    assert list(tree._modules) == ["left", "right"]
    assert list(tree._buffers) == ["steps"]
    assert "scale" not in tree.__dict__ and "left" not in tree.__dict__
    assert tree.scale is tree._parameters["scale"]
    plain = texport.tensor([5.0])
    tree.constant = plain  # a plain tensor is an attribute, not a buffer
    assert tree.constant is plain and "constant" not in tree._buffers
    assert "constant" in tree.__dict__


def test_assigning_to_existing_members_follows_torch_rules() -> None:
    tree = Tree()
    with pytest.raises(TypeError, match=r"cannot assign 'texport.Tensor' as parameter 'scale' "
                                        r"\(torch.nn.Parameter or None expected\)"):
        tree.scale = texport.tensor([2.0])
    with pytest.raises(TypeError, match="cannot assign 'int' as child module 'left'"):
        tree.left = 3
    tree.scale = None
    assert "scale" in tree._parameters and tree.scale is None
    assert [name for name, _ in tree.named_parameters()] == ["left.weight", "right.weight"]
    new_buffer = texport.tensor([1])
    tree.steps = new_buffer  # a buffer name takes any tensor and stays a buffer
    assert tree._buffers["steps"] is new_buffer
    tree.steps = param(3.0)  # a Parameter moves the name from buffers to parameters
    assert "steps" not in tree._buffers and "steps" not in tree._non_persistent_buffers_set
    assert isinstance(tree._parameters["steps"], Parameter)
    tree.left = Leaf(4)  # replacing a child keeps its position
    assert list(tree._modules) == ["left", "right"] and tree.left.weight.shape == (4,)


def test_delattr_and_getattr() -> None:
    tree = Tree()
    del tree.scale, tree.right, tree.steps
    assert list(tree._parameters) == [] and list(tree._modules) == ["left"] and not tree._buffers
    with pytest.raises(AttributeError, match="'Tree' object has no attribute 'scale'"):
        _ = tree.scale
    tree.plain = 1
    del tree.plain
    assert not hasattr(tree, "plain")


def test_members_before_init_are_refused() -> None:
    class Early(Module):
        def __init__(self) -> None:
            self.w = param(1.0)
            super().__init__()

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Early()


def test_register_checks_names_and_values() -> None:
    module = Leaf()
    with pytest.raises(KeyError, match=r'contain "\."'):
        module.register_parameter("a.b", param(1.0))
    with pytest.raises(KeyError, match="be empty string"):
        module.register_buffer("", texport.tensor([1.0]))
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        module.register_buffer("forward", texport.tensor([1.0]))
    with pytest.raises(TypeError, match="cannot assign 'texport.Tensor' object to parameter 'p'"):
        module.register_parameter("p", texport.tensor([1.0]))
    with pytest.raises(TypeError, match="cannot assign 'list' object to buffer 'b'"):
        module.register_buffer("b", [1.0])
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        module.add_module("m", 3)
    module.register_module("child", Leaf())
    module.register_parameter("none", None)
    assert list(module._modules) == ["child"] and module.none is None


# ---------------------------------------------------------------- traversal


def test_named_parameters_own_members_first_then_children() -> None:
    tree = Tree()
    assert [n for n, _ in tree.named_parameters()] == ["scale", "left.weight", "right.weight"]
    assert [n for n, _ in tree.named_parameters(prefix="model")] == [
        "model.scale", "model.left.weight", "model.right.weight",
    ]
    assert [n for n, _ in tree.named_parameters(recurse=False)] == ["scale"]
    expected = [tree.scale, tree.left.weight, tree.right.weight]
    assert all(p is q for p, q in zip(tree.parameters(), expected, strict=True))
    assert [n for n, _ in tree.named_buffers()] == ["steps", "left.stat", "right.stat"]
    assert list(tree.buffers(recurse=False))[0] is tree.steps


def test_shared_members_are_reported_once_unless_asked() -> None:
    tree = Tree()
    tree.right.weight = tree.left.weight  # tied weights
    tree.again = tree.left  # the same child under a second name
    assert [n for n, _ in tree.named_parameters()] == ["scale", "left.weight"]
    assert [n for n, _ in tree.named_parameters(remove_duplicate=False)] == [
        "scale", "left.weight", "right.weight", "again.weight",
    ]
    assert [n for n, _ in tree.named_modules()] == ["", "left", "right"]
    assert [n for n, _ in tree.named_modules(remove_duplicate=False)] == ["", "left", "right", "again"]
    assert [n for n, _ in tree.named_children()] == ["left", "right"]
    assert len(list(tree.children())) == 2 and len(list(tree.modules())) == 3


def test_named_modules_prefixes_nest() -> None:
    model = nn.Sequential(Tree(), nn.Sequential(Leaf()))
    assert [n for n, _ in model.named_modules()] == ["", "0", "0.left", "0.right", "1", "1.0"]
    assert [n for n, _ in model.named_modules(prefix="net")][:2] == ["net", "net.0"]


def test_get_submodule_parameter_buffer() -> None:
    model = nn.Sequential(Tree())
    assert model.get_submodule("0.left") is model[0].left
    assert model.get_submodule("") is model
    assert model.get_parameter("0.left.weight") is model[0].left.weight
    assert model.get_buffer("0.steps") is model[0].steps
    with pytest.raises(AttributeError, match="Tree has no attribute `middle`"):
        model.get_submodule("0.middle")
    with pytest.raises(AttributeError, match="`steps` is not an nn.Parameter"):
        model.get_parameter("0.steps")
    with pytest.raises(AttributeError, match="`scale` is not a buffer"):
        model.get_buffer("0.scale")


def test_apply_visits_children_before_the_module() -> None:
    tree = Tree()
    seen = []
    assert tree.apply(lambda m: seen.append(type(m).__name__ + str(len(m._parameters)))) is tree
    assert seen == ["Leaf1", "Leaf1", "Tree1"]


# ---------------------------------------------------------------- state dict


def conv_bn() -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(1, 3, 1), nn.BatchNorm2d(3))


def test_state_dict_keys_order_and_values() -> None:
    model = conv_bn()
    state = model.state_dict()
    assert list(state) == [
        "0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean", "1.running_var",
        "1.num_batches_tracked",
    ]
    tracked = state["1.num_batches_tracked"]
    assert tracked.dtype is texport.int64 and tracked.dim() == 0 and int(tracked) == 0
    weight = state["0.weight"]
    assert not isinstance(weight, Parameter) and not weight.requires_grad
    assert np.shares_memory(weight.numpy(), model[0].weight.numpy())  # detached, not copied
    kept = model.state_dict(keep_vars=True)
    assert kept["0.weight"] is model[0].weight
    assert list(model.state_dict(prefix="net.")) [0] == "net.0.weight"


def test_non_persistent_buffers_stay_out_of_state_dict() -> None:
    tree = Tree()
    assert "steps" in dict(tree.named_buffers())
    assert list(tree.state_dict()) == ["scale", "left.weight", "left.stat", "right.weight", "right.stat"]
    tree.register_buffer("steps", tree.steps, persistent=True)
    assert "steps" in tree.state_dict()


def test_load_state_dict_copies_in_place_and_keeps_parameter_objects() -> None:
    texport.manual_seed(1)
    source = conv_bn()
    texport.manual_seed(2)
    target = conv_bn()
    weight_before = target[0].weight
    array_before = weight_before.numpy()
    assert not np.array_equal(array_before, source[0].weight.numpy())
    result = target.load_state_dict(source.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert target[0].weight is weight_before
    np.testing.assert_array_equal(array_before, source[0].weight.numpy())  # same storage, new values
    for (name, a), (_, b) in zip(source.state_dict().items(), target.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def test_load_state_dict_strict_names_missing_and_unexpected_keys() -> None:
    model = conv_bn()
    state = model.state_dict()
    del state["0.bias"]
    state["2.weight"] = texport.tensor([1.0])
    state["1.extra"] = texport.tensor([1.0])
    with pytest.raises(RuntimeError) as error:
        model.load_state_dict(state)
    assert str(error.value) == (
        "Error(s) in loading state_dict for Sequential:\n"
        '\tMissing key(s) in state_dict: "0.bias". \n'
        '\tUnexpected key(s) in state_dict: "2.weight", "1.extra". '
    )  # the root reports "2.weight" before child 1 reports "1.extra", as torch
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == [] and result.unexpected_keys == []  # strict=False does not look


def test_load_state_dict_reports_shape_mismatch() -> None:
    model = conv_bn()
    state = model.state_dict()
    state["1.bias"] = texport.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"size mismatch for 1.bias: copying a param with shape "
                                           r"texport.Size\(\[2\]\) from checkpoint, the shape in current model "
                                           r"is texport.Size\(\[3\]\)."):
        model.load_state_dict(state)


def test_load_state_dict_assign_replaces_objects() -> None:
    model = Leaf()
    new = texport.tensor([7.0, 8.0])
    model.load_state_dict({"weight": new, "stat": texport.tensor([1.0, 1.0])}, assign=True)
    assert isinstance(model.weight, Parameter) and model.weight.requires_grad
    assert model.weight.tolist() == [7.0, 8.0]
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        model.load_state_dict([("weight", new)])


# ---------------------------------------------------------------- modes, grads, dtypes


def test_train_eval_propagate_and_return_self() -> None:
    model = nn.Sequential(Tree(), nn.Dropout())
    assert all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model[0].train()
    assert model[0].left.training and not model.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        model.train("yes")


def test_requires_grad_and_zero_grad() -> None:
    tree = Tree()
    assert all(p.requires_grad for p in tree.parameters())
    tree.requires_grad_(False)
    assert not any(p.requires_grad for p in tree.parameters())
    tree.scale.grad = texport.tensor([3.0])
    tree.zero_grad(set_to_none=False)
    assert tree.scale.grad.tolist() == [0.0]
    tree.zero_grad()
    assert tree.scale.grad is None


def test_dtype_conversion_keeps_parameters_and_integer_buffers() -> None:
    model = conv_bn()
    weight = model[0].weight
    assert model.double() is model
    assert model[0].weight is weight and weight.dtype is texport.float64
    assert model[1].running_mean.dtype is texport.float64
    assert model[1].num_batches_tracked.dtype is texport.int64
    model.to(texport.float32)
    assert weight.dtype is texport.float32 and model[0].bias.dtype is texport.float32
    model.to("cpu")
    model.to(texport.zeros(1, dtype=texport.float64))
    assert weight.dtype is texport.float64
    model.float()
    assert weight.dtype is texport.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, "
                                        "but got desired dtype=texport.int64"):
        model.to(texport.int64)
    with pytest.raises(RuntimeError, match="cuda"):
        model.to("cuda")


# ---------------------------------------------------------------- Parameter


def test_parameter_shares_data_and_requires_grad() -> None:
    data = texport.tensor([1.0, 2.0])
    p = Parameter(data)
    assert isinstance(p, texport.Tensor) and p.requires_grad
    assert np.shares_memory(p.numpy(), data.numpy())
    assert not Parameter(data, requires_grad=False).requires_grad
    assert Parameter().shape == (0,)
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert p.add_(1) is p and data.tolist() == [2.0, 3.0]
    with pytest.raises(TypeError, match="data must be a Tensor"):
        Parameter([1.0])


# ---------------------------------------------------------------- calling and hooks


def test_call_runs_forward_and_hooks() -> None:
    leaf = Leaf()
    x = texport.tensor([3.0, 4.0])
    assert leaf(x).tolist() == [0.0, 4.0]
    pre = leaf.register_forward_pre_hook(lambda m, args: (args[0] + 1,))
    post = leaf.register_forward_hook(lambda m, args, out: out * 10)
    assert leaf(x).tolist() == [0.0, 50.0]
    pre.remove()
    post.remove()
    assert leaf(x).tolist() == [0.0, 4.0]
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward"'):
        Module()(x)


def test_deepcopy_keeps_ties_and_separates_storage() -> None:
    tree = Tree()
    tree.right.weight = tree.left.weight
    clone = copy.deepcopy(tree)
    assert clone.right.weight is clone.left.weight and clone.left.weight is not tree.left.weight
    clone.left.weight.fill_(9.0)
    assert tree.left.weight.tolist() == [0.0, 1.0]
    assert list(clone.state_dict()) == list(tree.state_dict())


# ---------------------------------------------------------------- printing


def test_repr_nests_like_torch() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Dropout()), nn.Identity())
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Dropout(p=0.5, inplace=False)\n"
        "  )\n"
        "  (3): Identity()\n"
        ")"
    )


def test_repr_with_multiline_extra_repr_and_children() -> None:
    class Block(Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(1, 1, bias=False)

        def extra_repr(self) -> str:
            return "heads=2\ncausal=True"

    assert repr(Block()) == (
        "Block(\n  heads=2\n  causal=True\n  (proj): Linear(in_features=1, out_features=1, bias=False)\n)"
    )
    assert repr(Leaf()) == "Leaf()"


def test_public_modules_re_export_the_implementation() -> None:
    import texport.nn.functional as F
    import texport.nn.init as init
    from texport.tracer import nn as implementation

    assert nn.functional is F and nn.init is init
    for name in nn.__all__:
        assert getattr(nn, name) is getattr(implementation, name) or name in ("functional", "init")
    for name in F.__all__:
        assert getattr(F, name) is getattr(implementation.functional, name)
    assert F._canonical_mask is implementation.functional._canonical_mask
    assert init._calculate_fan_in_and_fan_out is implementation.init._calculate_fan_in_and_fan_out
