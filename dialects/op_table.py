"""The op table: every op texport knows, as torch's exact schema strings.

Core ops come from core_aten_ops.txt (torch's Tag.core overloads); the
training-level ops below are the non-core ops models are written with.
Importing this module registers them all in registry.OPS.
"""

from __future__ import annotations

from importlib import resources

from .registry import OPS, register_op


def core_schemas() -> list[tuple[str, str]]:
    """(key, schema) for each line of core_aten_ops.txt."""
    text = resources.files(__package__).joinpath("core_aten_ops.txt").read_text()
    rows = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, schema = line.split("\t")
            rows.append((key, schema))
    return rows


# Non-core ops: what traced models record before decomposition, plus the
# functional forms lowering produces. One schema per line, exactly torch's.
TRAINING_SCHEMAS = """
aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor
aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor
aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1) -> Tensor
aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
aten::matmul(Tensor self, Tensor other) -> Tensor
aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor
aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)
aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor
aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor
aten::dropout(Tensor input, float p, bool train) -> Tensor
aten::relu_(Tensor(a!) self) -> Tensor(a!)
aten::silu(Tensor self) -> Tensor
aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor
aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)
aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
aten::t(Tensor(a) self) -> Tensor(a)
aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)
aten::stack(Tensor[] tensors, int dim=0) -> Tensor
aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
aten::item(Tensor self) -> Scalar
aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
aten::zero_(Tensor(a!) self) -> Tensor(a!)
aten::clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)
aten::_assert_scalar(Scalar self, str assert_msg) -> ()
"""


def training_schemas() -> list[str]:
    return [line.strip() for line in TRAINING_SCHEMAS.splitlines() if line.strip()]


def _register_all() -> None:
    if OPS.keys():
        return
    for _, schema in core_schemas():
        register_op(schema, is_core=True)
    for schema in training_schemas():
        register_op(schema)


_register_all()
