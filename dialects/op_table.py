"""The op table: every op texport knows, as torch's exact schema strings.

Core ops come from core_aten_ops.txt (torch's Tag.core overloads); the
training-level ops below are the non-core ops models are written with.
The start-up (dialects/bootstrap.py) registers them all in registry.OPS.
"""

from __future__ import annotations

from importlib import resources

from .registry import register_op


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
# functional forms lowering produces. One schema per line, exactly as torch
# 2.13 prints ``torch.ops.aten.<op>.<overload>._schema`` (the form of
# core_aten_ops.txt): defaults are printed values, not native_functions.yaml
# spellings -- ``int reduction=1`` (Mean), ``MemoryFormat memory_format=0``
# (contiguous_format), ``ScalarType? dtype=4`` (long), floats with 17
# significant digits (``eps=1.0000000000000001e-05``, ``p=2.``), ``SymInt[2]
# stride=[1, 1]`` but ``int[2] padding=0`` and ``int[1] padding=[0]``.
# Lines starting with ``#`` are section headers.
TRAINING_SCHEMAS = """
# nn.functional: convolution, linear
aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] dilation=[1], SymInt groups=1) -> Tensor
aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor
aten::conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], SymInt[3] dilation=[1, 1, 1], SymInt groups=1) -> Tensor
aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], str padding="valid", SymInt[1] dilation=[1], SymInt groups=1) -> Tensor
aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], str padding="valid", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor
aten::conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1], str padding="valid", SymInt[3] dilation=[1, 1, 1], SymInt groups=1) -> Tensor
aten::conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] output_padding=[0], SymInt groups=1, SymInt[1] dilation=[1]) -> Tensor
aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] output_padding=[0, 0], SymInt groups=1, SymInt[2] dilation=[1, 1]) -> Tensor
aten::conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], SymInt[3] output_padding=[0, 0, 0], SymInt groups=1, SymInt[3] dilation=[1, 1, 1]) -> Tensor
aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
aten::matmul(Tensor self, Tensor other) -> Tensor
# nn.functional: normalization
aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor
aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)
aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)
aten::_batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
aten::_batch_norm_with_update_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)
aten::_batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
aten::native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor
aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor
aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enabled=True) -> Tensor
# nn.functional: dropout
aten::dropout(Tensor input, float p, bool train) -> Tensor
aten::dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
aten::feature_dropout(Tensor input, float p, bool train) -> Tensor
aten::feature_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
aten::alpha_dropout(Tensor input, float p, bool train) -> Tensor
aten::alpha_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
aten::feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor
# nn.functional: activations
aten::relu_(Tensor(a!) self) -> Tensor(a!)
aten::relu6(Tensor self) -> Tensor
aten::gelu_(Tensor(a!) self, *, str approximate="none") -> Tensor(a!)
aten::silu(Tensor self) -> Tensor
aten::silu_(Tensor(a!) self) -> Tensor(a!)
aten::hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)
aten::leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)
aten::elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)
aten::selu(Tensor self) -> Tensor
aten::celu(Tensor self, Scalar alpha=1.) -> Tensor
aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor
aten::hardswish(Tensor self) -> Tensor
aten::hardswish_(Tensor(a!) self) -> Tensor(a!)
aten::hardsigmoid(Tensor self) -> Tensor
aten::hardsigmoid_(Tensor(a!) self) -> Tensor(a!)
aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
aten::mish(Tensor self) -> Tensor
aten::mish_(Tensor(a!) self) -> Tensor(a!)
aten::log_sigmoid(Tensor self) -> Tensor
aten::log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)
aten::glu(Tensor self, int dim=-1) -> Tensor
aten::prelu(Tensor self, Tensor weight) -> Tensor
aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
aten::log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
# nn.functional: pooling, padding, resampling
aten::max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0], int[1] dilation=[1], bool ceil_mode=False) -> Tensor
aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor
aten::max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor
aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)
aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
aten::pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
aten::upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor
aten::upsample_nearest1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor
aten::upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor
aten::upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor
aten::upsample_linear1d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor
aten::upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor
aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor
aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor
aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
aten::one_hot(Tensor self, int num_classes=-1) -> Tensor
# nn.functional: losses and distances
aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100, float label_smoothing=0.) -> Tensor
aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, SymInt ignore_index=-100) -> Tensor
aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)
aten::nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> (Tensor output, Tensor total_weight)
aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
aten::l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor
aten::smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.) -> Tensor
aten::huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.) -> Tensor
aten::binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor
aten::binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1) -> Tensor
aten::cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor
aten::pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=9.9999999999999995e-07, bool keepdim=False) -> Tensor
aten::cdist(Tensor x1, Tensor x2, float p=2., int? compute_mode=None) -> Tensor
# attention
aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0., bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor
# softmax backward (decompositions of the softmax family use them)
aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor
aten::_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor
# tensor maths: binary and ternary
aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
aten::rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
aten::floor_divide(Tensor self, Tensor other) -> Tensor
aten::floor_divide.Scalar(Tensor self, Scalar other) -> Tensor
aten::true_divide.Tensor(Tensor self, Tensor other) -> Tensor
aten::true_divide.Scalar(Tensor self, Scalar other) -> Tensor
aten::max.other(Tensor self, Tensor other) -> Tensor
aten::min.other(Tensor self, Tensor other) -> Tensor
aten::clamp_min(Tensor self, Scalar min) -> Tensor
aten::clamp_min.Tensor(Tensor self, Tensor min) -> Tensor
aten::clamp_max(Tensor self, Scalar max) -> Tensor
aten::clamp_max.Tensor(Tensor self, Tensor max) -> Tensor
aten::lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor
aten::lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor
aten::addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
aten::addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
aten::mv(Tensor self, Tensor vec) -> Tensor
aten::dot(Tensor self, Tensor tensor) -> Tensor
aten::outer(Tensor self, Tensor vec2) -> Tensor
aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
aten::where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor
aten::where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor
aten::where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor
aten::where(Tensor condition) -> Tensor[]
aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
aten::masked_select(Tensor self, Tensor mask) -> Tensor
aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor
aten::take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor
# tensor maths: unary
aten::exp2(Tensor self) -> Tensor
aten::frac(Tensor self) -> Tensor
aten::square(Tensor self) -> Tensor
aten::isfinite(Tensor self) -> Tensor
aten::nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor
aten::round.decimals(Tensor self, *, int decimals) -> Tensor
aten::tril(Tensor self, int diagonal=0) -> Tensor
aten::triu(Tensor self, int diagonal=0) -> Tensor
aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor
aten::rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor
aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
aten::repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor
aten::repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
# tensor maths: reductions, scans, sorting
aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
aten::max(Tensor self) -> Tensor
aten::min(Tensor self) -> Tensor
aten::all(Tensor self) -> Tensor
aten::all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
aten::all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
aten::std(Tensor self, bool unbiased=True) -> Tensor
aten::std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
aten::var(Tensor self, bool unbiased=True) -> Tensor
aten::norm.Scalar(Tensor self, Scalar p=2) -> Tensor
aten::norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
aten::linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
aten::logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
aten::argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
aten::argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor
aten::sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
aten::nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
aten::count_nonzero(Tensor self, int? dim=None) -> Tensor
aten::count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor
aten::aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)
aten::median(Tensor self) -> Tensor
aten::nanmedian(Tensor self) -> Tensor
aten::kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)
aten::std_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
aten::std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
aten::std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)
aten::var_mean(Tensor self, bool unbiased=True) -> (Tensor, Tensor)
aten::var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
aten::var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> (Tensor, Tensor)
aten::cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)
aten::cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)
aten::logcumsumexp(Tensor self, int dim) -> Tensor
# in-place arithmetic (Tensor methods)
aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)
aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)
aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)
aten::div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode) -> Tensor(a!)
aten::floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::fmod_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)
aten::pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)
aten::bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::bitwise_and_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::bitwise_or_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::bitwise_or_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::bitwise_xor_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
aten::bitwise_xor_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
aten::bitwise_not_(Tensor(a!) self) -> Tensor(a!)
aten::clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)
aten::clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)
aten::clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)
aten::clamp_min_.Tensor(Tensor(a!) self, Tensor min) -> Tensor(a!)
aten::clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)
aten::clamp_max_.Tensor(Tensor(a!) self, Tensor max) -> Tensor(a!)
aten::lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)
aten::lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)
aten::addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)
aten::addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)
aten::addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
aten::baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
aten::addmv_(Tensor(a!) self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)
aten::masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)
aten::masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)
aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
aten::index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)
aten::index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)
aten::scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)
aten::scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)
aten::scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)
aten::scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor(a!)
aten::tril_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)
aten::triu_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)
aten::cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)
aten::cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)
aten::nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor(a!)
aten::round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)
# in-place unary maths (Tensor methods)
aten::abs_(Tensor(a!) self) -> Tensor(a!)
aten::neg_(Tensor(a!) self) -> Tensor(a!)
aten::sqrt_(Tensor(a!) self) -> Tensor(a!)
aten::rsqrt_(Tensor(a!) self) -> Tensor(a!)
aten::reciprocal_(Tensor(a!) self) -> Tensor(a!)
aten::exp_(Tensor(a!) self) -> Tensor(a!)
aten::exp2_(Tensor(a!) self) -> Tensor(a!)
aten::expm1_(Tensor(a!) self) -> Tensor(a!)
aten::log_(Tensor(a!) self) -> Tensor(a!)
aten::log2_(Tensor(a!) self) -> Tensor(a!)
aten::log10_(Tensor(a!) self) -> Tensor(a!)
aten::log1p_(Tensor(a!) self) -> Tensor(a!)
aten::sigmoid_(Tensor(a!) self) -> Tensor(a!)
aten::tanh_(Tensor(a!) self) -> Tensor(a!)
aten::sin_(Tensor(a!) self) -> Tensor(a!)
aten::cos_(Tensor(a!) self) -> Tensor(a!)
aten::tan_(Tensor(a!) self) -> Tensor(a!)
aten::sinh_(Tensor(a!) self) -> Tensor(a!)
aten::cosh_(Tensor(a!) self) -> Tensor(a!)
aten::asin_(Tensor(a!) self) -> Tensor(a!)
aten::acos_(Tensor(a!) self) -> Tensor(a!)
aten::atan_(Tensor(a!) self) -> Tensor(a!)
aten::erf_(Tensor(a!) self) -> Tensor(a!)
aten::floor_(Tensor(a!) self) -> Tensor(a!)
aten::ceil_(Tensor(a!) self) -> Tensor(a!)
aten::round_(Tensor(a!) self) -> Tensor(a!)
aten::trunc_(Tensor(a!) self) -> Tensor(a!)
aten::frac_(Tensor(a!) self) -> Tensor(a!)
aten::sign_(Tensor(a!) self) -> Tensor(a!)
# views and shape
aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)
aten::view_as(Tensor(a) self, Tensor other) -> Tensor(a)
aten::reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)
aten::expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
aten::view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)
aten::flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
aten::unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)
aten::squeeze(Tensor(a) self) -> Tensor(a)
aten::squeeze_(Tensor(a!) self) -> Tensor(a!)
aten::squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)
aten::squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)
aten::unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)
aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
aten::transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)
aten::t(Tensor(a) self) -> Tensor(a)
aten::t_(Tensor(a!) self) -> Tensor(a!)
aten::swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)
aten::movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)
aten::movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
aten::narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
aten::unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)
aten::detach(Tensor(a) self) -> Tensor(a)
aten::lift_fresh(Tensor(a) self) -> Tensor(a)
aten::lift_fresh_copy(Tensor self) -> Tensor
aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor
aten::stack(Tensor[] tensors, int dim=0) -> Tensor
aten::chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
aten::split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]
aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
aten::tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]
aten::tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]
aten::unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]
aten::unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]
aten::unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]
aten::swapaxes_(Tensor(a!) self, int axis0, int axis1) -> Tensor(a!)
aten::swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
aten::swapdims_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)
aten::moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)
aten::moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
aten::as_strided_(Tensor(a!) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a!)
aten::detach_(Tensor(a!) self) -> Tensor(a!)
# dtype / device conversion
aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
aten::type_as(Tensor self, Tensor other) -> Tensor
# functional copies of views (what functionalization emits)
aten::alias_copy(Tensor self) -> Tensor
aten::view_copy(Tensor self, SymInt[] size) -> Tensor
aten::view_copy.dtype(Tensor self, ScalarType dtype) -> Tensor
aten::expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor
aten::permute_copy(Tensor self, int[] dims) -> Tensor
aten::unsqueeze_copy(Tensor self, int dim) -> Tensor
aten::squeeze_copy(Tensor self) -> Tensor
aten::squeeze_copy.dim(Tensor self, int dim) -> Tensor
aten::squeeze_copy.dims(Tensor self, int[] dim) -> Tensor
aten::t_copy(Tensor self) -> Tensor
aten::transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor
aten::slice_copy.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor
aten::select_copy.int(Tensor self, int dim, SymInt index) -> Tensor
aten::diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor
aten::split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]
aten::unbind_copy.int(Tensor self, int dim=0) -> Tensor[]
aten::detach_copy(Tensor self) -> Tensor
aten::as_strided_copy(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor
aten::narrow_copy(Tensor self, int dim, SymInt start, SymInt length) -> Tensor
aten::unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor
aten::split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]
aten::_reshape_copy(Tensor self, SymInt[] size) -> Tensor
# factories and random
aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::rand_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::randn_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::randint(SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::randint.low(SymInt low, SymInt high, SymInt[] size, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::randint_like(Tensor self, SymInt high, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::randint_like.low_dtype(Tensor self, SymInt low, SymInt high, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
aten::arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
aten::bernoulli(Tensor self, *, Generator? generator=None) -> Tensor
aten::bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor
aten::bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)
aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)
aten::uniform_(Tensor(a!) self, float from=0., float to=1., *, Generator? generator=None) -> Tensor(a!)
aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)
aten::fill.Tensor(Tensor self, Tensor value) -> Tensor
aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
aten::fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)
aten::zero_(Tensor(a!) self) -> Tensor(a!)
aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
# data-dependent and symbolic
aten::item(Tensor self) -> Scalar
aten::_assert_scalar(Scalar self, str assert_msg) -> ()
aten::_assert_async(Tensor self) -> ()
aten::_assert_async.msg(Tensor self, str assert_msg) -> ()
aten::sym_constrain_range(Scalar size, *, int? min=None, int? max=None) -> ()
aten::sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()
aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)
aten::unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)
aten::nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor
"""


def training_schemas() -> list[str]:
    """The schema lines of TRAINING_SCHEMAS (section headers dropped)."""
    lines = (line.strip() for line in TRAINING_SCHEMAS.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def register_all() -> None:
    """Start-up stage "op table" (dialects/bootstrap.py): register every row."""
    for _, schema in core_schemas():
        register_op(schema, is_core=True)
    for schema in training_schemas():
        register_op(schema)
