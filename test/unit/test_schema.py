"""The schema grammar: torch's schema strings parse, print back identically,
and bind calls the way a Python call to the op would."""

from __future__ import annotations

import pytest

from texport.dialects.op_table import core_schemas, table_rows
from texport.dialects.registry import OPS, op_key, schema_key
from texport.dialects.schema import (
    NO_DEFAULT,
    AliasInfo,
    ArgType,
    SchemaError,
    bind_arguments,
    parse_schema,
)

CORE = core_schemas()
TRAINING = [row.schema for row in table_rows() if "core" not in row.facts.tags]


# ---------------------------------------------------------------- core table


def test_core_table_has_193_overloads():
    assert len(CORE) == 193
    assert len({key for key, _ in CORE}) == 193


@pytest.mark.parametrize("key,text", CORE, ids=[key for key, _ in CORE])
def test_core_schema_round_trips(key, text):
    schema = parse_schema(text)
    assert str(schema) == text
    assert f"aten.{schema.name}.{schema.overload}" == key
    assert schema.is_mutable == ("!" in text)


def test_exactly_three_core_overloads_are_mutable():
    mutable = {key for key, text in CORE if parse_schema(text).is_mutable}
    assert mutable == {
        "aten._native_batch_norm_legit.default",
        "aten.atan2.out",
        "aten.resize_.default",
    }


# ------------------------------------------------------------ training table


@pytest.mark.parametrize("text", TRAINING, ids=[text.split("(")[0] for text in TRAINING])
def test_training_schema_round_trips(text):
    schema = parse_schema(text)
    assert str(schema) == text
    assert schema.namespace == "aten"
    assert schema.is_mutable == ("!" in text)


def test_training_table_adds_no_core_overload_and_no_duplicate():
    core_keys = {key for key, _ in CORE}
    keys = [schema_key(parse_schema(text)) for text in TRAINING]
    assert len(keys) == len(set(keys))
    assert not core_keys & set(keys)


def test_registry_holds_core_and_training_ops():
    keys = set(OPS.keys())
    assert {key for key, _ in CORE} <= keys
    assert {schema_key(parse_schema(text)) for text in TRAINING} <= keys
    assert OPS["aten.convolution.default"].is_core
    assert not OPS["conv2d"].is_core
    assert OPS["add_.Tensor"].levels == ("training",)
    assert OPS["aten.add.Tensor"].levels == ("training", "functional", "core")
    assert OPS["aten::view_as"].levels == ("training", "functional")


def test_training_defaults_use_torchs_printed_form():
    """Defaults read as torch prints them, not as native_functions.yaml spells them."""
    conv2d = OPS["conv2d"].schema
    assert str(conv2d.argument("stride")) == "SymInt[2] stride=[1, 1]"
    assert conv2d.argument("stride").default == [1, 1]
    layer_norm = OPS["layer_norm"].schema
    assert layer_norm.argument("eps").default_text == "1.0000000000000001e-05"
    assert layer_norm.argument("eps").default == pytest.approx(1e-05)
    assert OPS["nll_loss"].schema.argument("reduction").default == 1
    assert OPS["contiguous"].schema.argument("memory_format").default == 0
    assert OPS["randint"].schema.argument("dtype").default == 4
    assert OPS["max_pool1d"].schema.argument("padding").default_text == "[0]"
    assert OPS["max_pool2d"].schema.argument("padding").default_text == "0"


# ------------------------------------------------------------ parsed fields


def test_write_alias_in_place_op():
    schema = parse_schema(
        "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
    )
    assert schema.name == "add_" and schema.overload_name == "Tensor"
    assert schema.qualified_name == "add_.Tensor"
    self_arg = schema.arguments[0]
    assert self_arg.type == ArgType("Tensor")
    assert self_arg.alias == AliasInfo(frozenset({"a"}), frozenset({"a"}), True)
    assert self_arg.is_write
    assert schema.mutated_arguments == (self_arg,)
    assert schema.returns[0].alias == AliasInfo(frozenset({"a"}), frozenset({"a"}), True)
    alpha = schema.argument("alpha")
    assert alpha.kwarg_only and alpha.default == 1 and alpha.default_text == "1"
    assert [arg.name for arg in schema.positional] == ["self", "other"]
    assert schema.is_mutable and not schema.is_view


def test_alias_into_list_of_views():
    schema = parse_schema(
        "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]"
    )
    assert schema.arguments[0].alias == AliasInfo(frozenset({"a"}), frozenset({"*"}), False)
    assert str(schema.arguments[0].alias) == "a -> *"
    ret = schema.returns[0]
    assert ret.type == ArgType("Tensor", is_list=True)
    assert ret.alias == AliasInfo(frozenset({"a"}), frozenset({"a"}), False)
    assert not schema.returns_tuple
    assert schema.is_view and not schema.is_mutable


def test_optional_tensor_list():
    schema = parse_schema(
        "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor"
    )
    indices = schema.argument("indices")
    assert indices.type == ArgType("Tensor", optional=False, is_list=True, element_optional=True)
    assert indices.type.is_tensor_like
    assert indices.type.render() == "Tensor?[]"


def test_optional_list_and_fixed_size_list():
    schema = parse_schema(
        "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
    )
    dim = schema.argument("dim")
    assert dim.type == ArgType("int", optional=True, is_list=True, list_size=1)
    assert dim.default is NO_DEFAULT and not dim.has_default
    dtype = schema.argument("dtype")
    assert dtype.type == ArgType("ScalarType", optional=True)
    assert dtype.kwarg_only and dtype.has_default and dtype.default is None


def test_sized_int_list_default_expands():
    schema = parse_schema(
        "aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], "
        "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)"
    )
    assert schema.argument("padding").default == [0, 0]
    assert schema.argument("padding").default_text == "0"
    assert schema.argument("dilation").default == [1, 1]
    assert schema.argument("stride").default == []
    assert schema.argument("kernel_size").type == ArgType("int", is_list=True, list_size=2)
    assert schema.returns_tuple and len(schema.returns) == 2


def test_scalar_default_kinds():
    schema = parse_schema(
        'aten::f(Tensor self, float a=0., float b=1.0000000000000001e-05, str c="none", '
        "bool d=True, Scalar e=-1, float? f=None, MemoryFormat g=0) -> Tensor"
    )
    defaults = [arg.default for arg in schema.arguments[1:]]
    assert defaults == [0.0, pytest.approx(1e-05), "none", True, -1, None, 0]
    assert isinstance(defaults[0], float) and isinstance(defaults[4], int)
    assert str(schema.argument("c")) == 'str c="none"'


def test_named_tuple_returns():
    schema = parse_schema(
        "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
    )
    assert schema.returns_tuple
    assert [ret.name for ret in schema.returns] == ["values", "indices"]
    assert all(ret.type == ArgType("Tensor") and ret.alias is None for ret in schema.returns)


def test_mutable_out_returns():
    schema = parse_schema(
        "aten::_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, "
        "Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, "
        "float eps) -> (Tensor, Tensor, Tensor)"
    )
    assert [arg.name for arg in schema.mutated_arguments] == ["running_mean", "running_var"]
    assert schema.argument("running_var").alias == AliasInfo(
        frozenset({"b"}), frozenset({"b"}), True
    )
    assert [ret.name for ret in schema.returns] == [None, None, None]


def test_empty_returns_and_default_overload():
    schema = parse_schema("aten::_assert_scalar(Scalar self, str assert_msg) -> ()")
    assert schema.returns == () and schema.returns_tuple
    assert schema.overload_name == "" and schema.overload == "default"
    assert schema.qualified_name == "_assert_scalar"
    assert str(schema) == "aten::_assert_scalar(Scalar self, str assert_msg) -> ()"


def test_namespace_defaults_to_aten_and_custom_namespaces_keep_theirs():
    assert parse_schema("relu(Tensor self) -> Tensor").namespace == "aten"
    custom = parse_schema("mylib::foo(Tensor x, *, int n=3) -> Tensor")
    assert custom.namespace == "mylib"
    assert op_key("mylib::foo") == "mylib.foo.default"


def test_argument_lookup_names_the_op():
    schema = parse_schema("aten::relu(Tensor self) -> Tensor")
    with pytest.raises(KeyError, match="aten::relu has no argument 'x'"):
        schema.argument("x")


# ------------------------------------------------------------------ binding

SOFTPLUS = parse_schema("aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor")
ADD = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
POOL = parse_schema(
    "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor"
)


def test_bind_fills_defaults_in_schema_order():
    assert bind_arguments(SOFTPLUS, ("x",), {}) == ["x", 1, 20]
    assert bind_arguments(SOFTPLUS, ("x", 2), {"threshold": 5}) == ["x", 2, 5]
    assert bind_arguments(SOFTPLUS, (), {"self": "x", "beta": 3}) == ["x", 3, 20]


def test_bind_keyword_only_arguments():
    assert bind_arguments(ADD, ("x", "y"), {}) == ["x", "y", 1]
    assert bind_arguments(ADD, ("x", "y"), {"alpha": 2}) == ["x", "y", 2]
    with pytest.raises(TypeError, match=r"aten::add\.Tensor\(\) takes 2 positional arguments but 3"):
        bind_arguments(ADD, ("x", "y", 2), {})


def test_bind_list_defaults_are_fresh_copies():
    first = bind_arguments(POOL, ("x", [2, 2]), {})
    assert first == ["x", [2, 2], [], [0, 0], [1, 1], False]
    first[3].append(9)
    assert bind_arguments(POOL, ("x", [2, 2]), {})[3] == [0, 0]
    assert POOL.argument("padding").default == [0, 0]


def test_bind_missing_argument_names_op_and_argument():
    with pytest.raises(TypeError, match=r"aten::add\.Tensor\(\) missing required argument 'other'"):
        bind_arguments(ADD, ("x",), {})


def test_bind_unknown_keyword_names_op_and_argument():
    with pytest.raises(TypeError, match=r"aten::softplus\(\) got an unexpected keyword argument 'gamma'"):
        bind_arguments(SOFTPLUS, ("x",), {"gamma": 1})


def test_bind_duplicate_argument():
    with pytest.raises(TypeError, match=r"aten::softplus\(\) got multiple values for argument 'beta'"):
        bind_arguments(SOFTPLUS, ("x", 2), {"beta": 3})


def test_bind_answers_stay_the_same_on_repeated_calls():
    # Binding caches per schema what a call shape needs: the second call takes the fast path
    for _ in range(2):
        first = bind_arguments(SOFTPLUS, ("x",), {})
        assert first == ["x", 1, 20]
        first.append("mutated")  # each call gets a list of its own
        assert bind_arguments(SOFTPLUS, ("x", 2), {"threshold": 5}) == ["x", 2, 5]
        assert bind_arguments(ADD, ("x", "y"), {"alpha": 2}) == ["x", "y", 2]


def test_bind_list_defaults_with_keywords_are_fresh_copies():
    first = bind_arguments(POOL, ("x",), {"kernel_size": [2, 2], "ceil_mode": True})
    assert first == ["x", [2, 2], [], [0, 0], [1, 1], True]
    first[3].append(9)
    assert bind_arguments(POOL, ("x",), {"kernel_size": [2, 2]})[3] == [0, 0]


def test_bind_keywords_missing_required_argument():
    with pytest.raises(TypeError, match=r"aten::add\.Tensor\(\) missing required argument 'other'"):
        bind_arguments(ADD, ("x",), {"alpha": 2})
    with pytest.raises(TypeError, match=r"aten::add\.Tensor\(\) missing required argument 'self'"):
        bind_arguments(ADD, (), {"other": "y"})


def test_bind_errors_come_in_schema_order():
    # a Python call reports the first argument in order: 'beta' twice before 'gamma' unknown
    with pytest.raises(TypeError, match="multiple values for argument 'beta'"):
        bind_arguments(SOFTPLUS, ("x", 2), {"gamma": 1, "beta": 3})


# ---------------------------------------------------------------- malformed


@pytest.mark.parametrize(
    "text",
    [
        "",
        "relu",
        "aten::relu(Tensor self",
        "aten::relu(Tensor self) ->",
        "aten::relu(Tensor self) Tensor",
        "aten::relu(Tensr self) -> Tensor",
        "aten::relu(Tensor) -> Tensor",
        "aten::relu(Tensor 1self) -> Tensor",
        "aten::relu(Tensor self) -> Tensr",
        "aten::relu(Tensor self) -> (Tensor",
        "aten::relu(int[2 self) -> Tensor",
        "aten::relu(Tensor(a self) -> Tensor",
        "aten::relu(Tensor self=) -> Tensor",
        "aten::relu(int[] self=[1, ]) -> Tensor",
    ],
)
def test_malformed_schema_raises_schema_error(text):
    with pytest.raises(SchemaError):
        parse_schema(text)


def test_schema_error_is_a_value_error_that_quotes_the_schema():
    text = "aten::relu(Tensr self) -> Tensor"
    with pytest.raises(ValueError, match="Tensr") as info:
        parse_schema(text)
    assert text in str(info.value)
