"""Shape rules: convolution, pooling, upsampling, grid sampling, padding, pixel shuffle.

Each N-d family has one size function; the 1-d/2-d/3-d ops come from small
factories over it. Checks and messages follow torch's eager kernels (ATen's
Convolution.cpp, Pool.h, UpSample.cpp, Padding.h) and its meta registrations.

A condition on symbolic sizes is always asked in the form a well-formed
program satisfies ("the kernel fits", "the last window starts inside"): the
tracer's ShapeEnv records it as a guard, and the size-oblivious oracle used
during IR verification answers it the way a valid program needs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from texport.dialects._lazy import sympy  # loaded on first use

from .. import symbolic as _symbolic
from .._lazy import is_expr
from ..dtypes import DType
from ..meta import TensorMeta
from ..symbolic import Dim, dim_str, to_dim
from . import shape_rule
from .common import shape_text
from .guards import ShapeGuardError, check, guard_bool, sym_eq, sym_le, sym_lt

IntArg = Dim | Sequence[Dim]
Rule = Callable[..., Any]

# Axis letters torch uses in messages, outermost spatial dim first.
_POOL_AXES = {1: "W", 2: "HW", 3: "THW"}
_RESAMPLE_AXES = {1: "W", 2: "HW", 3: "DHW"}
_COUNT_WORDS = {1: "one", 2: "two", 3: "three"}


# ----------------------------------------------------------------- helpers


def _floordiv(a: Dim, b: Dim) -> Dim:
    """Floor division kept symbolic as FloorDiv; plain ints never touch sympy (speed)."""
    if type(a) is int and type(b) is int:
        return a // b
    return to_dim(_symbolic.FloorDiv(a, b))


def _divisible(value: Dim, divisor: Dim) -> bool:
    """``value % divisor == 0``; symbolically the guard torch records, Eq(Mod(v, d), 0)."""
    if type(value) is int and type(divisor) is int:
        return divisor != 0 and value % divisor == 0
    return guard_bool(sympy.Eq(sympy.Mod(value, divisor), 0))


def _as_list(value: IntArg) -> list[Dim]:
    """An ``int[N]`` argument: users may pass a plain int or a list (torch accepts both)."""
    if isinstance(value, int) or is_expr(value):
        return [value]
    return list(value)


def _joined(values: Sequence[Dim], sep: str) -> str:
    return sep.join(dim_str(v) for v in values)


def _named(
    prefix: str, axes: str, values: Sequence[Dim], sep: str = ": ", joiner: str = ", "
) -> str:
    """``kH: 3, kW: 3`` -- per-axis values as torch's pooling messages print them."""
    return joiner.join(f"{prefix}{axis}{sep}{dim_str(v)}" for axis, v in zip(axes, values))


def _registered(names: Sequence[str], make: Callable[..., Rule], *args: Any) -> None:
    """Register one factory-made rule under each of ``names``."""
    rule = make(*args)
    rule.__name__ = rule.__qualname__ = names[0].replace(".", "_")
    shape_rule(*names)(rule)


# ------------------------------------------------------------ convolution


def _conv_param(value: IntArg, n: int, name: str) -> list[Dim]:
    """torch's expand_param_if_needed: one value repeats, otherwise exactly n."""
    values = _as_list(value)
    if len(values) == 1:
        return values * n
    check(
        len(values) == n,
        f"expected {name} to be a single integer value or a list of {n} values to match the "
        f"convolution dimensions, but got {name}={shape_text(values)}",
    )
    return values


def _conv_out(size: Dim, kernel: Dim, stride: Dim, pad_total: Dim, dilation: Dim) -> Dim:
    """(in + pads - dil*(k-1) - 1) // stride + 1; stride 1 leaves a plain linear expression."""
    return to_dim(_floordiv(size + pad_total - dilation * (kernel - 1) - 1, stride) + 1)


def _transposed_out(
    size: Dim, kernel: Dim, stride: Dim, pad: Dim, dilation: Dim, output_padding: Dim
) -> Dim:
    return to_dim((size - 1) * stride - 2 * pad + dilation * (kernel - 1) + output_padding + 1)


def _check_conv_args(
    stride: list[Dim], padding: list[Dim], dilation: list[Dim], output_padding: list[Dim]
) -> None:
    check(all(sym_le(0, p) for p in padding), "negative padding is not supported")
    check(all(sym_le(0, p) for p in output_padding), "negative output_padding is not supported")
    check(all(sym_lt(0, s) for s in stride), "non-positive stride is not supported")
    check(all(sym_lt(0, d) for d in dilation), "dilation should be greater than zero")


def _check_conv_weight(x: TensorMeta, w: TensorMeta, groups: Dim) -> None:
    """Input rank matches weight rank; out-channel count fits the groups."""
    wsize = shape_text(w.shape)
    if x.ndim != w.ndim:
        raise ShapeGuardError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight {wsize}, "
            f"but got {x.ndim}-dimensional input of size {shape_text(x.shape)} instead"
        )
    g = dim_str(groups)
    if not sym_le(groups, w.shape[0]):
        raise ShapeGuardError(
            f"Given groups={g}, expected weight to be at least {g} at dimension 0, "
            f"but got weight of size {wsize} instead"
        )
    if not _divisible(w.shape[0], groups):
        raise ShapeGuardError(
            f"Given groups={g}, expected weight to be divisible by {g} at dimension 0, "
            f"but got weight of size {wsize} instead"
        )


def _check_conv_channels(
    x: TensorMeta, w: TensorMeta, bias: TensorMeta | None, groups: Dim, transposed: bool
) -> Dim:
    """Input channels and bias length against the weight; returns the output channels."""
    wsize = shape_text(w.shape)
    if transposed:
        given, in_channels = "transposed=1", w.shape[0]
        out_channels = to_dim(w.shape[1] * groups)
    else:
        given, in_channels = f"groups={dim_str(groups)}", to_dim(w.shape[1] * groups)
        out_channels = w.shape[0]
    if not sym_eq(x.shape[1], in_channels):
        raise ShapeGuardError(
            f"Given {given}, weight of size {wsize}, expected input{shape_text(x.shape)} to have "
            f"{dim_str(in_channels)} channels, but got {dim_str(x.shape[1])} channels instead"
        )
    if bias is not None and not (bias.ndim == 1 and sym_eq(bias.shape[0], out_channels)):
        where = "transposed=1, " if transposed else ""
        raise ShapeGuardError(
            f"Given {where}weight of size {wsize}, expected bias to be 1-dimensional with "
            f"{dim_str(out_channels)} elements, but got bias of size {shape_text(bias.shape)} "
            "instead"
        )
    return out_channels


def _conv_spatial(
    x: TensorMeta, w: TensorMeta, stride: list[Dim], pad_totals: list[Dim], dilation: list[Dim]
) -> list[Dim]:
    """Output sizes of a forward convolution; the dilated kernel must fit the padded input."""
    padded = [to_dim(s + p) for s, p in zip(x.shape[2:], pad_totals)]
    kernels = [to_dim(d * (k - 1) + 1) for k, d in zip(w.shape[2:], dilation)]
    if not all(sym_le(k, p) for k, p in zip(kernels, padded)):
        raise ShapeGuardError(
            f"Calculated padded input size per channel: ({_joined(padded, ' x ')}). "
            f"Kernel size: ({_joined(kernels, ' x ')}). "
            "Kernel size can't be greater than actual input size"
        )
    args = zip(x.shape[2:], w.shape[2:], stride, pad_totals, dilation)
    return [_conv_out(*a) for a in args]


def _transposed_spatial(
    x: TensorMeta,
    w: TensorMeta,
    stride: list[Dim],
    padding: list[Dim],
    dilation: list[Dim],
    output_padding: list[Dim],
) -> list[Dim]:
    """Output sizes of a transposed convolution (the adjoint of the forward formula)."""
    pads = zip(output_padding, stride, dilation)
    if not all(sym_lt(op, s) or sym_lt(op, d) for op, s, d in pads):
        raise ShapeGuardError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding={shape_text(output_padding)}, stride={shape_text(stride)}, "
            f"dilation={shape_text(dilation)}"
        )
    args = zip(x.shape[2:], w.shape[2:], stride, padding, dilation, output_padding)
    out = [_transposed_out(*a) for a in args]
    if not all(sym_lt(0, o) for o in out):
        raise ShapeGuardError(
            f"Given input size per channel: {shape_text(x.shape[2:])}. Calculated output size per "
            f"channel: {shape_text(out)}. Output size is too small"
        )
    return out


def _check_conv_dtypes(x: TensorMeta, w: TensorMeta, bias: TensorMeta | None) -> None:
    for name, t in (("weight", w), ("bias", bias)):
        if t is not None and t.dtype != x.dtype:
            raise ShapeGuardError(
                f"Input type ({x.dtype.torch_name}) and {name} type ({t.dtype.torch_name}) "
                "should be the same"
            )


@shape_rule("convolution")
def convolution(
    input: TensorMeta,
    weight: TensorMeta,
    bias: TensorMeta | None,
    stride: IntArg,
    padding: IntArg,
    dilation: IntArg,
    transposed: bool,
    output_padding: IntArg,
    groups: Dim,
) -> TensorMeta:
    """[N, C_in, *in] * [C_out, C_in/groups, *k] -> [N, C_out, *out] (transposed: weight
    is [C_in, C_out/groups, *k])."""
    check(weight.ndim >= 3, "weight should have at least three dimensions")
    check(sym_lt(0, groups), "non-positive groups is not supported")
    n = weight.ndim - 2
    stride, padding, dilation, output_padding = (
        _conv_param(v, n, name)
        for v, name in zip(
            (stride, padding, dilation, output_padding),
            ("stride", "padding", "dilation", "output_padding"),
        )
    )
    _check_conv_args(stride, padding, dilation, output_padding)
    _check_conv_weight(input, weight, groups)
    channels = _check_conv_channels(input, weight, bias, groups, transposed)
    if transposed:
        spatial = _transposed_spatial(input, weight, stride, padding, dilation, output_padding)
    else:
        spatial = _conv_spatial(input, weight, stride, [2 * p for p in padding], dilation)
    _check_conv_dtypes(input, weight, bias)
    return TensorMeta((input.shape[0], channels, *spatial), input.dtype)


def _batchify(
    op: str, n: int, x: TensorMeta, rule: Callable[[TensorMeta], TensorMeta]
) -> TensorMeta:
    """conv{n}d accept an unbatched input: run it with N=1 and drop N again (torch's batchify)."""
    if x.ndim == n + 2:
        return rule(x)
    if x.ndim != n + 1:
        raise ShapeGuardError(
            f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op}, "
            f"but got input of size: {shape_text(x.shape)}"
        )
    out = rule(TensorMeta((1, *x.shape), x.dtype))
    return TensorMeta(out.shape[1:], out.dtype)


def _conv_nd(n: int) -> Rule:
    def rule(
        input: TensorMeta, weight: TensorMeta, bias: TensorMeta | None,
        stride: IntArg, padding: IntArg, dilation: IntArg, groups: Dim,
    ) -> TensorMeta:
        def batched(x: TensorMeta) -> TensorMeta:
            return convolution(x, weight, bias, stride, padding, dilation, False, [0], groups)

        return _batchify(f"conv{n}d", n, input, batched)

    return rule


def _same_padded(
    x: TensorMeta, w: TensorMeta, dilation: IntArg
) -> tuple[TensorMeta, list[Dim]]:
    """padding='same': total pad d*(k-1) per dim; torch pads an odd remainder on the
    right of the input (constant_pad_nd) and convolves with the symmetric half."""
    check(w.ndim >= 3, "weight should have at least three dimensions")
    dilation = _conv_param(dilation, w.ndim - 2, "dilation")
    totals = [to_dim(d * (k - 1)) for k, d in zip(w.shape[2:], dilation)]
    extra = [to_dim(t - 2 * _floordiv(t, 2)) for t in totals]
    spatial = (to_dim(s + e) for s, e in zip(x.shape[2:], extra))
    padded = TensorMeta((*x.shape[:2], *spatial), x.dtype) if any(e != 0 for e in extra) else x
    return padded, [_floordiv(t, 2) for t in totals]


def _conv_nd_padding(n: int) -> Rule:
    def rule(
        input: TensorMeta, weight: TensorMeta, bias: TensorMeta | None,
        stride: IntArg, padding: str, dilation: IntArg, groups: Dim,
    ) -> TensorMeta:
        def batched(x: TensorMeta) -> TensorMeta:
            if padding == "valid":
                return convolution(x, weight, bias, stride, [0], dilation, False, [0], groups)
            check(padding == "same", f"Invalid padding string: '{padding}'")
            check(
                all(sym_eq(s, 1) for s in _as_list(stride)),
                "padding='same' is not supported for strided convolutions",
            )
            padded, pads = _same_padded(x, weight, dilation)
            return convolution(padded, weight, bias, stride, pads, dilation, False, [0], groups)

        return _batchify(f"conv{n}d", n, input, batched)

    return rule


def _conv_transpose_nd(n: int) -> Rule:
    def rule(
        input: TensorMeta, weight: TensorMeta, bias: TensorMeta | None, stride: IntArg,
        padding: IntArg, output_padding: IntArg, groups: Dim, dilation: IntArg,
    ) -> TensorMeta:
        def batched(x: TensorMeta) -> TensorMeta:
            return convolution(
                x, weight, bias, stride, padding, dilation, True, output_padding, groups
            )

        return _batchify(f"conv_transpose{n}d", n, input, batched)

    return rule


for _n in (1, 2, 3):
    _registered([f"conv{_n}d"], _conv_nd, _n)
    _registered([f"conv{_n}d.padding"], _conv_nd_padding, _n)
_registered(["conv_transpose1d"], _conv_transpose_nd, 1)
_registered(["conv_transpose2d.input"], _conv_transpose_nd, 2)
_registered(["conv_transpose3d.input"], _conv_transpose_nd, 3)


@shape_rule("convolution_backward")
def convolution_backward(
    grad_output: TensorMeta,
    input: TensorMeta,
    weight: TensorMeta,
    bias_sizes: Sequence[Dim] | None,
    stride: IntArg,
    padding: IntArg,
    dilation: IntArg,
    transposed: bool,
    output_padding: IntArg,
    groups: Dim,
    output_mask: Sequence[bool],
) -> tuple[TensorMeta | None, ...]:
    """(grad_input, grad_weight, grad_bias) shaped like input, weight and bias, in
    grad_output's dtype; a False output_mask entry gives None in its slot."""
    convolution(input, weight, None, stride, padding, dilation, transposed, output_padding, groups)
    check(
        input.ndim == grad_output.ndim,
        "Expected input and grad_output to have the same number of dimensions, but got: "
        f"{input.ndim} and {grad_output.ndim}",
    )
    check(len(output_mask) == 3, f"output_mask must have 3 entries, but got {len(output_mask)}")
    bias_shape = tuple(bias_sizes) if bias_sizes is not None else (grad_output.shape[1],)
    shapes = (input.shape, weight.shape, bias_shape)
    return tuple(
        TensorMeta(shape, grad_output.dtype) if wanted else None
        for shape, wanted in zip(shapes, output_mask)
    )


# ---------------------------------------------------------------- pooling


def _pool_param(
    value: IntArg, n: int, name: str, op: str, *, omissible: bool = False
) -> list[Dim]:
    """A pooling ``int[n]``: one int repeats; ``stride=[]`` (omitted) means the kernel."""
    values = _as_list(value)
    if (omissible and not values) or len(values) == n:
        return values
    if len(values) == 1:
        return values * n
    omitted = "omitted, " if omissible else ""
    plural = "s" if n > 1 else ""
    raise ShapeGuardError(
        f"{op}: {name} must either be {omitted}a single int, "
        f"or a tuple of {_COUNT_WORDS[n]} int{plural}"
    )


def _pool_out(
    size: Dim, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool
) -> Dim:
    """torch's pooling_output_shape. With ceil_mode a partial last window counts only
    if it starts inside the input or the left padding."""
    check(stride != 0, "stride should not be zero")
    check(pad >= 0, f"pad must be non-negative, but got pad: {pad}")
    check(
        pad <= ((kernel - 1) * dilation + 1) // 2,
        "pad should be at most half of effective kernel size, but got "
        f"pad={pad}, kernel_size={kernel} and dilation={dilation}",
    )
    span = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = to_dim(_floordiv(span, stride) + 1)
    if ceil_mode and not sym_lt((out - 1) * stride, size + pad):
        out = to_dim(out - 1)
    return out


def _check_pool_shape(
    x: TensorMeta, n: int, kernel: list[Dim], stride: list[Dim], padding: list[Dim],
    dilation: list[Dim], out: list[Dim],
) -> None:
    """torch's pool2d/pool3d_shape_check, for any spatial rank."""
    axes = _POOL_AXES[n]
    check(
        all(k > 0 for k in kernel),
        f"kernel size should be greater than zero, but got {_named('k', axes, kernel)}",
    )
    check(
        all(s > 0 for s in stride),
        f"stride should be greater than zero, but got {_named('d', axes, stride)}",
    )
    check(
        all(d > 0 for d in dilation),
        f"dilation should be greater than zero, but got {_named('dilation', axes, dilation)}",
    )
    non_batch = x.shape[1:] if x.ndim == n + 2 else x.shape
    if any(sym_eq(s, 0) for s in non_batch):
        raise ShapeGuardError(
            f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got: {shape_text(x.shape)}"
        )
    if not all(p <= k // 2 for p, k in zip(padding, kernel)):
        raise ShapeGuardError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"{_named('pad', axes[::-1], padding[::-1], ' = ')}, "
            f"{_named('k', axes[::-1], kernel[::-1], ' = ')}"
        )
    if not all(sym_le(1, o) for o in out):
        planes = x.shape[-n - 1]
        raise ShapeGuardError(
            f"Given input size: ({_joined((planes, *x.shape[-n:]), 'x')}). "
            f"Calculated output size: ({_joined((planes, *out), 'x')}). Output size is too small"
        )


def _pool_shape(
    op: str, x: TensorMeta, n: int, kernel_size: IntArg, stride: IntArg, padding: IntArg,
    dilation: IntArg, ceil_mode: bool,
) -> tuple[Dim, ...]:
    """Output shape of an n-d max/avg pool over the last n dims of [N?, C, *spatial]."""
    kernel = _pool_param(kernel_size, n, "kernel_size", op)
    strides = _pool_param(stride, n, "stride", op, omissible=True) or kernel
    pads = _pool_param(padding, n, "padding", op)
    dilations = _pool_param(dilation, n, "dilation", op)
    check(
        x.ndim in (n + 1, n + 2),
        f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for input",
    )
    args = zip(x.shape[-n:], kernel, pads, strides, dilations)
    out = [_pool_out(*a, ceil_mode) for a in args]
    _check_pool_shape(x, n, kernel, strides, pads, dilations, out)
    return (*x.shape[:-n], *out)


def _max_pool(n: int, with_indices: bool) -> Rule:
    def rule(
        self: TensorMeta, kernel_size: IntArg, stride: IntArg, padding: IntArg,
        dilation: IntArg, ceil_mode: bool,
    ) -> TensorMeta | tuple[TensorMeta, TensorMeta]:
        shape = _pool_shape(
            f"max_pool{n}d", self, n, kernel_size, stride, padding, dilation, ceil_mode
        )
        values = TensorMeta(shape, self.dtype)
        return (values, TensorMeta(shape, DType.int64)) if with_indices else values

    return rule


def _avg_pool_shape(
    n: int, x: TensorMeta, kernel_size: IntArg, stride: IntArg, padding: IntArg,
    ceil_mode: bool, divisor_override: int | None,
) -> tuple[Dim, ...]:
    check(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    return _pool_shape(f"avg_pool{n}d", x, n, kernel_size, stride, padding, [1], ceil_mode)


def _avg_pool(n: int) -> Rule:
    def rule(
        self: TensorMeta, kernel_size: IntArg, stride: IntArg, padding: IntArg,
        ceil_mode: bool, count_include_pad: bool, divisor_override: int | None = None,
    ) -> TensorMeta:
        # avg_pool1d has no divisor_override; count_include_pad changes values, not shape.
        shape = _avg_pool_shape(
            n, self, kernel_size, stride, padding, ceil_mode, divisor_override
        )
        return TensorMeta(shape, self.dtype)

    return rule


for _n in (1, 2, 3):
    _registered([f"max_pool{_n}d"], _max_pool, _n, False)
    _registered([f"avg_pool{_n}d"], _avg_pool, _n)
for _n in (1, 2, 3):
    _registered([f"max_pool{_n}d_with_indices"], _max_pool, _n, True)


def _check_grad_like(grad: TensorMeta, expected: Sequence[Dim], first: int) -> None:
    """torch's check_dim_size over dims first..: a gradient must match the forward output."""
    ndim = len(expected)
    for d in range(first, ndim):
        if grad.ndim == ndim and sym_eq(grad.shape[d], expected[d]):
            continue
        actual = dim_str(grad.shape[d]) if d < grad.ndim else "?"
        raise ShapeGuardError(
            f"Expected a tensor of dimension {ndim} and tensor.size[{d}] == "
            f"{dim_str(expected[d])}, but got : dimension {grad.ndim} and "
            f"tensor.size[{d}] = {actual}"
        )


def _grad_input(
    grad_output: TensorMeta, self: TensorMeta, forward: Sequence[Dim], n: int
) -> TensorMeta:
    """A pooling backward: grad_output must match the forward output; grad-input is self-shaped."""
    if grad_output.dtype != self.dtype:
        raise ShapeGuardError(
            f"expected dtype {self.dtype.torch_name} for `grad_output` but got dtype "
            f"{grad_output.dtype.torch_name}"
        )
    _check_grad_like(grad_output, forward, len(forward) - n - 1)
    return TensorMeta(self.shape, self.dtype)


def _max_pool_backward(n: int) -> Rule:
    def rule(
        grad_output: TensorMeta, self: TensorMeta, kernel_size: IntArg, stride: IntArg,
        padding: IntArg, dilation: IntArg, ceil_mode: bool, indices: TensorMeta,
    ) -> TensorMeta:
        forward = _pool_shape(
            f"max_pool{n}d", self, n, kernel_size, stride, padding, dilation, ceil_mode
        )
        _check_grad_like(indices, forward, len(forward) - n - 1)
        return _grad_input(grad_output, self, forward, n)

    return rule


def _avg_pool_backward(n: int) -> Rule:
    def rule(
        grad_output: TensorMeta, self: TensorMeta, kernel_size: IntArg, stride: IntArg,
        padding: IntArg, ceil_mode: bool, count_include_pad: bool, divisor_override: int | None,
    ) -> TensorMeta:
        forward = _avg_pool_shape(
            n, self, kernel_size, stride, padding, ceil_mode, divisor_override
        )
        return _grad_input(grad_output, self, forward, n)

    return rule


_registered(["max_pool2d_with_indices_backward"], _max_pool_backward, 2)
_registered(["avg_pool2d_backward"], _avg_pool_backward, 2)


# ------------------------------------------------------- adaptive pooling


def _adaptive_shape(op: str, x: TensorMeta, n: int, output_size: IntArg) -> tuple[Dim, ...]:
    """Adaptive pools output exactly ``output_size`` over the last n dims."""
    sizes = _as_list(output_size)
    if x.ndim not in (n + 1, n + 2):
        raise ShapeGuardError(
            f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got {shape_text(x.shape)}"
        )
    for i in range(1, x.ndim):
        if sym_eq(x.shape[i], 0):
            raise ShapeGuardError(
                f"{op}(): Expected input to have non-zero size for non-batch dimensions, "
                f"but input has sizes {shape_text(x.shape)} with dimension {i} being empty"
            )
    check(len(sizes) == n, f"{op}: output_size must be {n}")
    if not all(sym_le(0, s) for s in sizes):
        raise ShapeGuardError(
            f"{op}: elements of output_size must be greater than or equal to 0 "
            f"but received {shape_text(sizes)}"
        )
    return (*x.shape[:-n], *sizes)


def _adaptive_avg(n: int) -> Rule:
    def rule(self: TensorMeta, output_size: IntArg) -> TensorMeta:
        shape = _adaptive_shape(f"adaptive_avg_pool{n}d", self, n, output_size)
        return TensorMeta(shape, self.dtype)

    return rule


def _adaptive_max(n: int) -> Rule:
    def rule(self: TensorMeta, output_size: IntArg) -> tuple[TensorMeta, TensorMeta]:
        shape = _adaptive_shape(f"adaptive_max_pool{n}d", self, n, output_size)
        return TensorMeta(shape, self.dtype), TensorMeta(shape, DType.int64)

    return rule


def _adaptive_backward(op: str, n: int) -> Rule:
    """Adaptive-pool backward: grad-input has self's shape; grad_output keeps self's rank."""

    def rule(grad_output: TensorMeta, self: TensorMeta) -> TensorMeta:
        if not (grad_output.ndim in (n + 1, n + 2) and grad_output.ndim == self.ndim):
            raise ShapeGuardError(
                f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got "
                f"{shape_text(grad_output.shape)}"
            )
        if grad_output.dtype != self.dtype:
            raise ShapeGuardError(
                f"expected dtype {self.dtype.torch_name} for `grad_output` but got dtype "
                f"{grad_output.dtype.torch_name}"
            )
        return TensorMeta(self.shape, self.dtype)

    return rule


_registered(["adaptive_avg_pool1d"], _adaptive_avg, 1)
_registered(["adaptive_avg_pool2d", "_adaptive_avg_pool2d"], _adaptive_avg, 2)
_registered(["adaptive_avg_pool3d", "_adaptive_avg_pool3d"], _adaptive_avg, 3)
for _n in (1, 2, 3):
    _registered([f"adaptive_max_pool{_n}d"], _adaptive_max, _n)
_registered(
    ["_adaptive_avg_pool2d_backward"], _adaptive_backward, "adaptive_avg_pool2d_backward", 2
)


# ------------------------------------------------- fractional max pooling


def _fractional_max_pool(n: int) -> Rule:
    """[N?, C, *in] pooled by kernel_size windows at random starts -> values and int64 indices of
    [N?, C, *output_size]; random_samples holds n numbers in [0, 1) per (batch, plane)."""

    def rule(self: TensorMeta, kernel_size: IntArg, output_size: IntArg,
             random_samples: TensorMeta) -> tuple[TensorMeta, TensorMeta]:
        op = f"fractional_max_pool{n}d()" if n == 2 else "fractional_max_pool3d_out()"
        kernel, sizes = _as_list(kernel_size), _as_list(output_size)
        check(len(kernel) == n and len(sizes) == n,
              f"{op}: kernel_size and output_size must each have {n} elements")
        check(self.ndim in (n + 1, n + 2), f"{op}: Expected {n + 1}D or {n + 2}D tensor, but got: "
                                           f"{shape_text(self.shape)}")
        check(random_samples.ndim == 3 and sym_eq(random_samples.shape[-1], n),
              f"Expect _random_samples.size(2) equals to {n}; got {dim_str(random_samples.shape[-1])}.")
        names = ("height", "width") if n == 2 else ("time", "height", "width")
        for name, size, k, out in zip(names, self.shape[-n:], kernel, sizes):
            check(sym_le(out + k - 1, size), f"{op}: pool {name} {k} too large relative to input {name} "
                                             f"{dim_str(size)}")
        shape = (*self.shape[:-n], *sizes)
        return TensorMeta(shape, self.dtype), TensorMeta(shape, DType.int64)

    return rule


_registered(["fractional_max_pool2d"], _fractional_max_pool, 2)
_registered(["fractional_max_pool3d"], _fractional_max_pool, 3)


# ------------------------------------------------------- max unpooling


def _max_unpool(n: int) -> Rule:
    """[N?, C, *in] values and their int64 plane indices -> [N?, C, *output_size]."""

    def rule(self: TensorMeta, indices: TensorMeta, output_size: IntArg, *geometry: Any) -> TensorMeta:
        op = f"max_unpooling{n}d"
        check(indices.dtype == DType.int64,
              f"elements in indices should be type int64 but got: {indices.dtype.torch_name}")
        sizes = _as_list(output_size)
        check(len(sizes) == n, f"{op}: There should be exactly {n} elements in output_size, but got "
                               f"{len(sizes)} elements.")
        check(self.ndim in (n + 1, n + 2), f"Input to {op} should be a {n + 1}d or {n + 2}d Tensor, but got a "
                                           f"tensor with {self.ndim} dimensions.")
        check(self.ndim == indices.ndim and all(sym_eq(a, b) for a, b in zip(self.shape, indices.shape)),
              f"Expected shape of indices to be same as that of the input tensor ({shape_text(self.shape)}) "
              f"but got indices tensor with shape: {shape_text(indices.shape)}")
        return TensorMeta((*self.shape[:-n], *sizes), self.dtype)

    return rule


_registered(["max_unpool2d"], _max_unpool, 2)
_registered(["max_unpool3d"], _max_unpool, 3)


# ---------------------------------------------------------------- upsample

# The exact binary fraction p/q of a scale with q (a power of two) up to this
# bound gives floor(in * scale) == (p*in)//q for every realistic size, as in
# torch's double arithmetic; other scales stay sympy.floor(in * scale).
_EXACT_SCALE_DENOMINATOR = 1 << 16


def _scaled(size: Dim, scale: float) -> Dim:
    """floor(size * scale), as torch computes an upsampled size from a scale factor."""
    if float(scale).is_integer():
        return to_dim(size * int(scale))
    if type(size) is int:
        return int(size * scale)  # torch truncates the double product
    exact = sympy.Rational(scale)
    if exact.q <= _EXACT_SCALE_DENOMINATOR:
        return to_dim(_symbolic.FloorDiv(exact.p * size, exact.q))
    return to_dim(sympy.floor(size * sympy.Float(scale)))


def _upsample_sizes(
    x: TensorMeta, n: int, output_size: IntArg | None, scale_factors: Sequence[float] | None
) -> list[Dim]:
    """torch's compute_output_size: exactly one of output_size and scale_factors."""
    check(
        (output_size is None) != (scale_factors is None),
        "Must specify exactly one of output_size and scale_factors",
    )
    if output_size is not None:
        return _as_list(output_size)
    scales = [scale_factors] if isinstance(scale_factors, (int, float)) else list(scale_factors)
    check(
        len(scales) == n,
        f"It is expected scale_factors equals to {n}, but got size {len(scales)}",
    )
    return [_scaled(size, s) for size, s in zip(x.shape[2:], scales)]


def _upsample_meta(x: TensorMeta, n: int, sizes: list[Dim]) -> TensorMeta:
    """[N, C, *in] -> [N, C, *sizes]; torch's upsample_{n}d_common_check."""
    check(len(sizes) == n, f"It is expected output_size equals to {n}, but got size {len(sizes)}")
    if not all(sym_lt(0, s) for s in (*x.shape[2:], *sizes)):
        axes = _RESAMPLE_AXES[n]
        raise ShapeGuardError(
            "Input and output sizes should be greater than 0, but got "
            f"input ({_named('', axes, x.shape[2:])}) output ({_named('', axes, sizes)})"
        )
    return TensorMeta((*x.shape[:2], *sizes), x.dtype)


def _check_upsample_rank(x: TensorMeta, n: int) -> None:
    check(x.ndim == n + 2, f"It is expected input_size equals to {n + 2}, but got size {x.ndim}")


def _upsample_vec(n: int) -> Rule:
    def rule(input: TensorMeta, output_size: IntArg | None, *rest: Any) -> TensorMeta:
        # rest is (align_corners?, scale_factors): only the scales change the shape.
        _check_upsample_rank(input, n)
        return _upsample_meta(input, n, _upsample_sizes(input, n, output_size, rest[-1]))

    return rule


def _upsample_sized(n: int) -> Rule:
    def rule(self: TensorMeta, output_size: IntArg, *rest: Any) -> TensorMeta:
        # rest is (align_corners?, scales...): the sizes are explicit here.
        _check_upsample_rank(self, n)
        return _upsample_meta(self, n, _as_list(output_size))

    return rule


for _name, _n in (("upsample_nearest1d", 1), ("upsample_linear1d", 1), ("_upsample_nearest_exact1d", 1),
                  ("upsample_nearest2d", 2), ("upsample_bilinear2d", 2), ("upsample_bicubic2d", 2),
                  ("_upsample_nearest_exact2d", 2), ("upsample_nearest3d", 3), ("upsample_trilinear3d", 3),
                  ("_upsample_nearest_exact3d", 3), ("_upsample_bilinear2d_aa", 2), ("_upsample_bicubic2d_aa", 2)):
    _registered([f"{_name}.vec"], _upsample_vec, _n)
    _registered([_name], _upsample_sized, _n)


# ------------------------------------------------------------ grid sampler

_BICUBIC = 2


def _check_grid_sampler(
    x: TensorMeta, grid: TensorMeta, n: int, interpolation_mode: int
) -> None:
    both = f"input with sizes {shape_text(x.shape)} and grid with sizes {shape_text(grid.shape)}"
    if x.dtype != grid.dtype:
        raise ShapeGuardError(
            "grid_sampler(): expected input and grid to have same dtype, but input has "
            f"{x.dtype.torch_name} and grid has {grid.dtype.torch_name}"
        )
    if not (x.ndim == n + 2 and grid.ndim == n + 2):
        raise ShapeGuardError(
            f"grid_sampler(): expected {n + 2}D input and grid with same number of dimensions, "
            f"but got {both}"
        )
    if not sym_eq(x.shape[0], grid.shape[0]):
        raise ShapeGuardError(
            f"grid_sampler(): expected grid and input to have same batch size, but got {both}"
        )
    if not sym_eq(grid.shape[-1], n):
        raise ShapeGuardError(
            f"grid_sampler(): expected grid to have size {n} in last dimension, but got grid "
            f"with sizes {shape_text(grid.shape)}"
        )
    for i in range(2, x.ndim):
        if not sym_lt(0, x.shape[i]):
            raise ShapeGuardError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                f"has sizes {shape_text(x.shape)} with dimension {i} being empty"
            )
    check(
        n == 2 or interpolation_mode != _BICUBIC,
        "grid_sampler(): bicubic interpolation only supports 4D input",
    )


def _grid_sampler(n: int) -> Rule:
    def rule(
        input: TensorMeta, grid: TensorMeta, interpolation_mode: int, padding_mode: int,
        align_corners: bool,
    ) -> TensorMeta:
        """[N, C, *in] sampled at grid [N, *out, n] -> [N, C, *out]."""
        _check_grid_sampler(input, grid, n, interpolation_mode)
        return TensorMeta((input.shape[0], input.shape[1], *grid.shape[1:-1]), input.dtype)

    return rule


_registered(["grid_sampler_2d"], _grid_sampler, 2)
_registered(["grid_sampler_3d"], _grid_sampler, 3)


@shape_rule("grid_sampler")
def grid_sampler(input: TensorMeta, grid: TensorMeta, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> TensorMeta:
    """The 2-d or 3-d sampler by the input's rank."""
    n = 3 if input.ndim == 5 else 2
    _check_grid_sampler(input, grid, n, interpolation_mode)
    return TensorMeta((input.shape[0], input.shape[1], *grid.shape[1:-1]), input.dtype)


@shape_rule("affine_grid_generator")
def affine_grid_generator(theta: TensorMeta, size: IntArg, align_corners: bool) -> TensorMeta:
    """theta [N, n, n + 1] and size [N, C, *spatial] -> the sampling grid [N, *spatial, n]."""
    sizes = _as_list(size)
    check(len(sizes) in (4, 5), "affine_grid_generator needs 4d (spatial) or 5d (volumetric) inputs.")
    n = len(sizes) - 2
    check(theta.ndim == 3 and sym_eq(theta.shape[1], n) and sym_eq(theta.shape[2], n + 1),
          f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} for size {shape_text(sizes)}. "
          f"Got {shape_text(theta.shape)}.")
    return TensorMeta((sizes[0], *sizes[2:], n), theta.dtype)


# ---------------------------------------------------------- im2col/col2im


def _check_positive(values: list[Dim], name: str, *, strict: bool = True) -> None:
    ok = all(sym_lt(0, v) if strict else sym_le(0, v) for v in values)
    relation = "than" if strict else "than or equal to"
    check(ok, f"{name} should be greater {relation} zero, but got {shape_text(values)}")


def _window_params(
    op: str, kernel_size: IntArg, dilation: IntArg, padding: IntArg, stride: IntArg
) -> tuple[list[Dim], ...]:
    """The four 2-d window parameters of im2col/col2im, validated like torch's meta."""
    named = (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"),
        (stride, "stride"),
    )
    kernel, dil, pad, strides = (_pool_param(v, 2, name, op) for v, name in named)
    _check_positive(kernel, "kernel_size")
    _check_positive(dil, "dilation")
    _check_positive(pad, "padding", strict=False)
    _check_positive(strides, "stride")
    return kernel, dil, pad, strides


def _blocks(
    sizes: Sequence[Dim], kernel: list[Dim], dil: list[Dim], pad: list[Dim], stride: list[Dim]
) -> list[Dim]:
    """Number of sliding blocks per spatial dim (the conv output size)."""
    args = zip(sizes, kernel, stride, pad, dil)
    return [_conv_out(s, k, st, 2 * p, d) for s, k, st, p, d in args]


@shape_rule("im2col")
def im2col(
    self: TensorMeta, kernel_size: IntArg, dilation: IntArg, padding: IntArg, stride: IntArg
) -> TensorMeta:
    """F.unfold: [N?, C, H, W] -> [N?, C*kh*kw, L] with L the number of sliding blocks."""
    kernel, dil, pad, strides = _window_params("im2col", kernel_size, dilation, padding, stride)
    if self.ndim not in (3, 4) or any(sym_eq(d, 0) for d in self.shape[-3:]):
        raise ShapeGuardError(
            "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and "
            f"non-zero dimensions, but got: {shape_text(self.shape)}"
        )
    blocks = _blocks(self.shape[-2:], kernel, dil, pad, strides)
    if not all(sym_lt(0, b) for b in blocks):
        raise ShapeGuardError(
            f"Given an input with spacial size {shape_text(self.shape[-2:])}, kernel_size="
            f"{shape_text(kernel)}, dilation={shape_text(dil)}, padding={shape_text(pad)}, stride="
            f"{shape_text(strides)}, the calculated shape of the array of sliding blocks is "
            f"{shape_text(blocks)}, but its components must be at least one."
        )
    columns = to_dim(self.shape[-3] * kernel[0] * kernel[1])
    return TensorMeta((*self.shape[:-3], columns, to_dim(blocks[0] * blocks[1])), self.dtype)


@shape_rule("col2im")
def col2im(
    self: TensorMeta, output_size: IntArg, kernel_size: IntArg, dilation: IntArg,
    padding: IntArg, stride: IntArg,
) -> TensorMeta:
    """F.fold: [N?, C*kh*kw, L] -> [N?, C, *output_size]; L must be the block count."""
    sizes = _pool_param(output_size, 2, "output_size", "col2im")
    kernel, dil, pad, strides = _window_params("col2im", kernel_size, dilation, padding, stride)
    _check_positive(sizes, "output_size")
    if self.ndim not in (2, 3) or any(sym_eq(d, 0) for d in self.shape[-2:]):
        raise ShapeGuardError(
            "Expected 2D or 3D (batch mode) tensor for input with possible 0 batch size and "
            f"non-zero dimensions, but got: {shape_text(self.shape)}"
        )
    per_block = kernel[0] * kernel[1]
    if not _divisible(self.shape[-2], per_block):
        raise ShapeGuardError(
            "Expected size of input's first non-batch dimension to be divisible by the product "
            f"of kernel_size, but got input.shape[-2] = {dim_str(self.shape[-2])} and "
            f"kernel_size={shape_text(kernel)}"
        )
    blocks = _blocks(sizes, kernel, dil, pad, strides)
    _check_block_count(self, sizes, kernel, dil, pad, strides, blocks)
    channels = _floordiv(self.shape[-2], per_block)
    return TensorMeta((*self.shape[:-2], channels, *sizes), self.dtype)


def _check_block_count(
    x: TensorMeta, sizes: list[Dim], kernel: list[Dim], dil: list[Dim], pad: list[Dim],
    strides: list[Dim], blocks: list[Dim],
) -> None:
    given = (
        f"Given output_size={shape_text(sizes)}, kernel_size={shape_text(kernel)}, dilation="
        f"{shape_text(dil)}, padding={shape_text(pad)}, stride={shape_text(strides)}"
    )
    count = to_dim(blocks[0] * blocks[1])
    if not sym_eq(x.shape[-1], count):
        raise ShapeGuardError(
            f"{given}, expected input.size(-1) to be {dim_str(count)} but got "
            f"{dim_str(x.shape[-1])}."
        )
    if not all(sym_lt(0, b) for b in blocks):
        raise ShapeGuardError(
            f"{given}, calculated shape of the array of sliding blocks as {shape_text(blocks)}, "
            "but its components must be at least one."
        )


# ---------------------------------------------------------------- padding


@shape_rule("constant_pad_nd")
def constant_pad_nd(self: TensorMeta, pad: IntArg, value: Any = 0) -> TensorMeta:
    """Pads pair up from the last dim backwards: (left, right) of dim -1, then dim -2...;
    negative pads crop."""
    pads = _as_list(pad)
    check(len(pads) % 2 == 0, f"Length of pad must be even but instead it equals {len(pads)}")
    if len(pads) // 2 > self.ndim:
        raise ShapeGuardError(
            "Length of pad should be no more than twice the number of dimensions of the input. "
            f"Pad length is {len(pads)} while the input has {self.ndim} dimensions."
        )
    shape = list(self.shape)
    for i in range(len(pads) // 2):
        d = self.ndim - 1 - i
        left, right = pads[2 * i], pads[2 * i + 1]
        size = to_dim(shape[d] + left + right)
        if not sym_le(0, size):
            raise ShapeGuardError(
                f"The input size {dim_str(shape[d])}, plus negative padding {dim_str(left)} and "
                f"{dim_str(right)} resulted in a negative output size, which is invalid. "
                f"Check dimension {d} of your input."
            )
        shape[d] = size
    return TensorMeta(tuple(shape), self.dtype)


def _check_pad_input(x: TensorMeta, pads: list[Dim], n: int) -> None:
    """torch's padding::check_valid_input for reflection/replication pads."""
    check(len(pads) == 2 * n, f"padding size is expected to be {2 * n}, but got: {len(pads)}")
    non_batch = x.shape[1:] if x.ndim == n + 2 else x.shape
    if x.ndim not in (n + 1, n + 2) or any(sym_eq(s, 0) for s in non_batch):
        raise ShapeGuardError(
            f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {shape_text(x.shape)}"
        )


def _edge_pad_shape(x: TensorMeta, pads: list[Dim], n: int, reflect: bool) -> tuple[Dim, ...]:
    """Reflection/replication pads of the last n dims; a reflection pad must be
    smaller than the dim it mirrors."""
    _check_pad_input(x, pads, n)
    shape = list(x.shape)
    for j in range(n):  # j = 0 is the last dim, padded by pads[0], pads[1]
        d = x.ndim - 1 - j
        left, right = pads[2 * j], pads[2 * j + 1]
        if reflect and not (sym_lt(left, shape[d]) and sym_lt(right, shape[d])):
            raise ShapeGuardError(
                f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding "
                f"input dimension, but got: padding ({dim_str(left)}, {dim_str(right)}) at "
                f"dimension {d} of input {shape_text(x.shape)}"
            )
        shape[d] = to_dim(shape[d] + left + right)
    out = shape[-n:]
    if not all(sym_le(1, o) for o in out):
        axes = _RESAMPLE_AXES[n]
        raise ShapeGuardError(
            f"input ({_named('', axes, x.shape[-n:], joiner=' ')}) is too small. "
            f"Calculated output {_named('', axes, out, joiner=' ')}"
        )
    return tuple(shape)


def _edge_pad(n: int, reflect: bool) -> Rule:
    def rule(self: TensorMeta, padding: IntArg) -> TensorMeta:
        return TensorMeta(_edge_pad_shape(self, _as_list(padding), n, reflect), self.dtype)

    return rule


for _n in (1, 2, 3):
    _registered([f"reflection_pad{_n}d"], _edge_pad, _n, True)
for _n in (1, 2, 3):
    _registered([f"replication_pad{_n}d"], _edge_pad, _n, False)


def _pad_circular(self: TensorMeta, pads: list[Dim], n: int) -> TensorMeta:
    """Circular padding of the last n dims wraps around at most once per side."""
    shape = list(self.shape)
    for j in range(n):
        d = self.ndim - 1 - j
        left, right = pads[2 * j], pads[2 * j + 1]
        check(
            sym_le(left, shape[d]) and sym_le(right, shape[d]),
            "Padding value causes wrapping around more than once.",
        )
        shape[d] = to_dim(shape[d] + left + right)
        check(sym_le(0, shape[d]), "Negative padding value is resulting in an empty dimension")
    return TensorMeta(tuple(shape), self.dtype)


_PAD_MODES = ("reflect", "replicate", "circular", "constant")


@shape_rule("pad")
def pad(
    self: TensorMeta, pad: IntArg, mode: str = "constant", value: float | None = None
) -> TensorMeta:
    """F.pad's aten form: routes each mode to its op, as torch's _pad_enum does."""
    check(mode in _PAD_MODES, f"Unrecognised padding mode {mode}")
    pads = _as_list(pad)
    check(len(pads) % 2 == 0, "Padding length must be divisible by 2")
    check(
        len(pads) <= 2 * self.ndim,
        "Padding length should be less than or equal to two times the input dimension but got "
        f"padding length {len(pads)} and input of dimension {self.ndim}",
    )
    if mode == "constant":
        return constant_pad_nd(self, pads, 0 if value is None else value)
    check(value is None or value == 0, f'Padding mode "{mode}" doesn\'t take in value argument')
    n = len(pads) // 2
    if n in (1, 2, 3) and self.ndim in (n + 1, n + 2):
        if mode == "circular":
            return _pad_circular(self, pads, n)
        return TensorMeta(_edge_pad_shape(self, pads, n, mode == "reflect"), self.dtype)
    raise ShapeGuardError(
        "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"
    )


# ----------------------------------------------------------- pixel shuffle


@shape_rule("pixel_shuffle")
def pixel_shuffle(self: TensorMeta, upscale_factor: int) -> TensorMeta:
    """[..., C*r*r, H, W] -> [..., C, H*r, W*r]."""
    r = upscale_factor
    check(
        self.ndim >= 3,
        "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
        f"{self.ndim} dimension(s)",
    )
    check(r > 0, f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = self.shape[-3:]
    if not _divisible(c, r * r):
        raise ShapeGuardError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor, but input.size(-3)={dim_str(c)} is not divisible by {r * r}"
        )
    out = (_floordiv(c, r * r), to_dim(h * r), to_dim(w * r))
    return TensorMeta((*self.shape[:-3], *out), self.dtype)


@shape_rule("pixel_unshuffle")
def pixel_unshuffle(self: TensorMeta, downscale_factor: int) -> TensorMeta:
    """[..., C, H*r, W*r] -> [..., C*r*r, H, W]."""
    r = downscale_factor
    check(
        self.ndim >= 3,
        "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
        f"{self.ndim} dimension(s)",
    )
    check(r > 0, f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = self.shape[-3:]
    for axis, index, size in (("height", -2, h), ("width", -1, w)):
        if not _divisible(size, r):
            raise ShapeGuardError(
                f"pixel_unshuffle expects {axis} to be divisible by downscale_factor, but "
                f"input.size({index})={dim_str(size)} is not divisible by {r}"
            )
    out = (to_dim(c * r * r), _floordiv(h, r), _floordiv(w, r))
    return TensorMeta((*self.shape[:-3], *out), self.dtype)


# ----------------------------------------------------------- channel shuffle


@shape_rule("channel_shuffle", "native_channel_shuffle")
def channel_shuffle(self: TensorMeta, groups: Dim) -> TensorMeta:
    """[N, g*k, *] -> [N, k*g, *]: the same shape, channels regrouped."""
    check(self.ndim > 2, f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(self.shape)}")
    check(guard_bool(groups > 0),
          f"Number of groups to divide channels in must be positive. Value of groups:{dim_str(groups)}")
    channels = self.shape[1]
    if not _divisible(channels, groups):
        raise ShapeGuardError(f"Number of channels must be divisible by groups. Got {dim_str(channels)} channels "
                              f"and {dim_str(groups)} groups.")
    return TensorMeta(self.shape, self.dtype)


# ----------------------------------------------------------- conv_tbc


@shape_rule("conv_tbc")
def conv_tbc(self: TensorMeta, weight: TensorMeta, bias: TensorMeta, pad: int = 0) -> TensorMeta:
    """[T, B, C_in] * [K, C_in, C_out] -> [T + 2 pad - K + 1, B, C_out] (time, batch, channel)."""
    check(self.ndim == 3, "Input must have 3 dims: time, batch, in_channel")
    check(weight.ndim == 3, "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    check(bias.ndim == 1, "Bias must be 1-D")
    check(sym_eq(self.shape[2], weight.shape[1]), "Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    check(sym_eq(weight.shape[2], bias.shape[0]),
          "Bias size must equal dim 2 in the weight tensor (output channels).")
    time = to_dim(self.shape[0] + 2 * pad - weight.shape[0] + 1)
    return TensorMeta((time, self.shape[1], weight.shape[2]), self.dtype)
