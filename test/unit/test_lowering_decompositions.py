"""Every decomposition of the default table, on random inputs: the op spliced
out for its decomposition (down to core ops) computes what the op's kernel
computes — to rtol 1e-4 / atol 1e-5 in float32 — with static shapes and with
symbolic sizes. Random ops are compared on shapes and dtypes only.

Also: the table covers every non-core op (completeness)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from lowering_checks import Sample, check_decomposition, lower_to_core, op_module

from texport.dialects.dtypes import DType
from texport.dialects.registry import OPS
from texport.lowering.default_table import default_decompositions

RNG = np.random.default_rng(0)


def f(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def pos(*shape: int) -> np.ndarray:
    return (RNG.random(shape) * 0.9 + 0.05).astype(np.float32)


def i(high: int, *shape: int) -> np.ndarray:
    return RNG.integers(0, high, shape).astype(np.int64)


def b(*shape: int) -> np.ndarray:
    return RNG.random(shape) < 0.5


def S(*args: Any, sym: dict[int, tuple[int, ...]] | None = None, **kwargs: Any) -> Sample:  # noqa: N802
    return Sample(args, kwargs, sym or {})


UNARY = S(f(3, 4), sym={0: (0,)})
SPECIAL = np.array([1.5, -2.5, np.nan, np.inf, -np.inf, 0.0], dtype=np.float32)

SAMPLES: dict[str, list[Sample]] = {
    # convolution, linear, matmul
    "conv1d.default": [S(f(2, 3, 9), f(4, 3, 3), f(4), [2], [1], sym={0: (0, 2)})],
    "conv2d.default": [S(f(1, 1, 3, 3), f(3, 1, 1, 1), f(3)), S(f(2, 4, 7, 7), f(4, 2, 3, 3), None, [2, 2], [1, 1],
                                                                [1, 1], 2, sym={0: (0,)})],
    "conv3d.default": [S(f(1, 2, 4, 5, 5), f(3, 2, 2, 2, 2), f(3))],
    "conv1d.padding": [S(f(1, 2, 8), f(3, 2, 4), f(3), [1], "same", [1], 1)],
    "conv2d.padding": [S(f(1, 2, 6, 6), f(3, 2, 3, 3), None, [1, 1], "same"),
                       S(f(1, 2, 6, 6), f(3, 2, 2, 2), f(3), [1, 1], "valid")],
    "conv3d.padding": [S(f(1, 1, 4, 4, 4), f(2, 1, 3, 3, 3), None, [1, 1, 1], "same")],
    "conv_transpose1d.default": [S(f(1, 2, 5), f(2, 3, 3), f(3), [2], [1], [1])],
    "conv_transpose2d.input": [S(f(1, 2, 4, 4), f(2, 3, 3, 3), f(3), [2, 2], [1, 1], [1, 1])],
    "conv_transpose3d.input": [S(f(1, 2, 3, 3, 3), f(2, 2, 2, 2, 2))],
    "linear.default": [S(f(4, 5), f(3, 5), f(3), sym={0: (0,)}), S(f(2, 6, 5), f(3, 5), f(3), sym={0: (0, 1)}),
                       S(f(2, 6, 5), f(3, 5)), S(f(4, 5), f(3, 5))],
    "matmul.default": [S(f(4), f(4)), S(f(3, 4), f(4)), S(f(4), f(4, 2)), S(f(3, 4), f(4, 2), sym={0: (0,)}),
                       S(f(2, 3, 4), f(4, 5), sym={0: (0,)}), S(f(2, 4, 3, 5), f(2, 4, 5, 6), sym={0: (0,)}),
                       S(f(3, 5), f(2, 5, 6)), S(f(2, 1, 3, 5), f(4, 5, 2)), S(f(2, 3, 4), f(4))],
    "mv.default": [S(f(3, 4), f(4), sym={0: (0,)})],
    "dot.default": [S(f(5), f(5))],
    "outer.default": [S(f(3), f(4), sym={0: (0,)})],
    "baddbmm.default": [S(f(2, 3, 5), f(2, 3, 4), f(2, 4, 5), beta=2.0, alpha=0.5), S(f(5), f(2, 3, 4), f(2, 4, 5))],
    "einsum.default": [S("ij,jk->ik", [f(3, 4), f(4, 5)]), S("bij,bjk->bik", [f(2, 3, 4), f(2, 4, 5)]),
                       S("i,i->", [f(4), f(4)]),
                       S("ij->ji", [f(3, 4)]), S("...ij,...jk", [f(2, 3, 4), f(2, 4, 5)]),
                       S("bhqd,bhkd->bhqk", [f(2, 3, 4, 5), f(2, 3, 6, 5)]), S("ij,kl->ijkl", [f(2, 3), f(4, 5)]),
                       S("ijk->j", [f(2, 3, 4)]), S("ij,jk,kl->il", [f(2, 3), f(3, 4), f(4, 5)])],
    # normalization
    "layer_norm.default": [S(f(2, 5, 6), [6], f(6), f(6), 1e-5, sym={0: (0, 1)}), S(f(3, 4, 5), [4, 5])],
    "batch_norm.default": [S(f(2, 3, 4, 4), f(3), f(3), f(3), pos(3), False, 0.1, 1e-5, False, sym={0: (0,)}),
                           S(f(4, 3), None, None, None, None, True, 0.1, 1e-5, False)],
    "native_batch_norm.default": [S(f(2, 3, 4), f(3), f(3), f(3), pos(3), False, 0.1, 1e-5)],
    "_batch_norm_no_update.default": [S(f(2, 3, 4), f(3), f(3), f(3), pos(3), 0.1, 1e-5)],
    "_batch_norm_with_update_functional.default": [S(f(2, 3, 4), f(3), f(3), f(3), pos(3), 0.1, 1e-5)],
    "native_batch_norm_backward.default": [
        S(f(2, 3, 4), f(2, 3, 4), f(3), f(3), pos(3), f(3), pos(3), True, 1e-5, [True, True, True]),
        S(f(2, 3, 4), f(2, 3, 4), f(3), f(3), pos(3), None, None, False, 1e-5, [True, True, True])],
    "instance_norm.default": [S(f(2, 3, 5), f(3), f(3), None, None, True, 0.1, 1e-5, False),
                              S(f(2, 3, 5), None, None, f(3), pos(3), False, 0.1, 1e-5, False)],
    "group_norm.default": [S(f(2, 4, 3, 3), 2, f(4), f(4)), S(f(2, 6, 5), 3)],
    "rms_norm.default": [S(f(2, 5, 6), [6], f(6), 1e-5, sym={0: (0, 1)}), S(f(3, 4, 5), [4, 5]),
                         S(f(2, 3, 4).astype(np.float64), [4], None, None)],
    "dropout.default": [S(f(3, 4), 0.5, False), S(f(3, 4), 0.0, True)],
    "native_dropout_backward.default": [S(f(3, 4), b(3, 4), 2.5, sym={0: (0,), 1: (0,)})],
    # activations
    "relu6.default": [S(f(3, 4) * 5)], "silu.default": [UNARY], "selu.default": [UNARY],
    "celu.default": [S(f(3, 4), 0.5), S(f(3, 4))], "threshold.default": [S(f(3, 4), 0.1, 20.0)],
    "rrelu.default": [S(f(3, 4)), S(f(3, 4), 0.1, 0.5)],
    "softshrink.default": [S(f(3, 4)), S(f(3, 4), 0.2)], "hardshrink.default": [S(f(3, 4)), S(f(3, 4), 0.2)],
    "hardswish.default": [S(f(3, 4) * 4)], "hardsigmoid.default": [S(f(3, 4) * 4)],
    "softplus.default": [S(f(3, 4) * 10, 2, 5), UNARY], "mish.default": [UNARY],
    "log_sigmoid.default": [UNARY], "log_sigmoid_forward.default": [UNARY],
    "glu.default": [S(f(3, 8), -1, sym={0: (0,)}), S(f(4, 3), 0)],
    "prelu.default": [S(f(2, 3, 4), pos(3)), S(f(2, 3), pos(1))],
    "_prelu_kernel.default": [S(f(2, 3, 4), pos(1, 3, 1)), S(f(2, 3), pos(1))],
    "softmax.int": [S(f(3, 4), -1, sym={0: (0,)}), S(f(3, 4), 0, DType.float64)],
    "log_softmax.int": [S(f(3, 4), 1, sym={0: (0,)})],
    "_safe_softmax.default": [S(f(3, 4), -1, sym={0: (0,)}), S(f(3, 4), 0, DType.float64)],
    "_softmax_backward_data.default": [S(f(3, 4), pos(3, 4), 1, DType.float32)],
    "_log_softmax_backward_data.default": [S(f(3, 4), f(3, 4), 0, DType.float32)],
    # pooling, padding, resampling
    "max_pool1d.default": [S(f(2, 3, 9), [3], [2], [1]), S(f(3, 8), [2])],
    "max_pool2d.default": [S(f(1, 2, 8, 8), [3, 3], [2, 2], [1, 1]), S(f(2, 6, 6), [2, 2], sym={0: (0,)})],
    "max_pool3d.default": [S(f(1, 2, 4, 4, 4), [2, 2, 2])],
    "adaptive_avg_pool2d.default": [S(f(2, 3, 5, 5), [1, 1], sym={0: (0, 2, 3)}), S(f(1, 2, 6, 6), [3, 2])],
    "adaptive_avg_pool3d.default": [S(f(1, 2, 3, 4, 4), [1, 1, 1]), S(f(1, 2, 4, 4, 4), [2, 2, 2])],
    "adaptive_max_pool1d.default": [S(f(2, 3, 8), [4]), S(f(2, 3, 7), [3])],
    "max_unpool2d.default": [S(f(2, 3, 2, 2), np.array([0, 3, 9, 14] * 6).reshape(2, 3, 2, 2), [4, 4]),
                             S(f(2, 3, 2, 2), np.array([0, 3, 9, 14] * 6).reshape(2, 3, 2, 2), [4, 4], sym={0: (0,)})],
    "max_unpool3d.default": [S(f(1, 2, 1, 2, 2), np.array([0, 5, 10, 15] * 2).reshape(1, 2, 1, 2, 2), [2, 3, 3],
                               [2, 2, 2], [0, 0, 0])],
    "max_pool1d_with_indices.default": [S(f(2, 3, 9), [3], [2], [1]), S(f(3, 8), [2], sym={0: (0,)})],
    "avg_pool1d.default": [S(f(2, 3, 9), [3], [2], [1], True, False), S(f(3, 8), [2], sym={0: (0,)})],
    "adaptive_avg_pool1d.default": [S(f(2, 3, 8), [1]), S(f(2, 3, 8), [3], sym={0: (0,)})],
    "reflection_pad1d.default": [S(f(2, 3, 5), [2, 1]), S(f(3, 5), [1, 3], sym={0: (1,)})],
    "reflection_pad2d.default": [S(f(1, 2, 4, 5), [1, 2, 2, 1])],
    "reflection_pad3d.default": [S(f(1, 2, 3, 4, 5), [1, 0, 2, 1, 1, 2])],
    "replication_pad1d.default": [S(f(2, 3, 5), [2, 1]), S(f(3, 5), [1, 3], sym={0: (1,)})],
    "replication_pad2d.default": [S(f(1, 2, 4, 5), [1, 2, 3, 0]), S(f(2, 4, 5), [0, 2, 1, 1], sym={0: (1, 2)})],
    "replication_pad3d.default": [S(f(1, 2, 3, 4, 5), [1, 0, 2, 1, 1, 2])],
    "pad.default": [S(f(2, 3, 4), [1, 2], "constant", 0.5), S(f(1, 2, 4, 5), [1, 1, 2, 0], "reflect"),
                    S(f(1, 2, 5), [2, 1], "replicate"), S(f(1, 2, 4, 4), [1, 1, 1, 1], "replicate"),
                    S(f(1, 2, 4, 5), [1, 2, 2, 1], "circular"), S(f(2, 6), [-1, 2], "circular"),
                    S(f(2, 3, 5, 4), [0, 1, 2, 0], "circular", sym={0: (0, 2, 3)}),
                    S(f(1, 2, 3, 4, 3), [1, 1, 0, 2, 1, 0], "circular")],
    "upsample_nearest1d.vec": [S(f(1, 2, 4), [8], None), S(f(1, 2, 4), [7], None), S(f(1, 2, 5), None, [1.7])],
    "upsample_bilinear2d.default": [S(f(1, 2, 3, 4), [5, 7], False), S(f(1, 2, 3, 4), [6, 8], True)],
    "upsample_linear1d.vec": [S(f(1, 2, 4), [7], False, None), S(f(1, 2, 4), [7], True, None),
                              S(f(2, 3, 5), None, False, [2.0]), S(f(1, 2, 5), None, True, [1.5])],
    "upsample_bicubic2d.vec": [S(f(1, 2, 4, 5), [7, 9], False, None), S(f(1, 1, 3, 3), [5, 6], True, None),
                               S(f(1, 1, 4, 4), None, False, [2.0, 1.5])],
    "_upsample_bilinear2d_aa.vec": [S(f(1, 2, 8, 9), [3, 5], False, None), S(f(1, 2, 4, 5), None, True, [2.0, 0.5])],
    "_upsample_bicubic2d_aa.vec": [S(f(1, 2, 8, 9), [3, 5], False, None), S(f(1, 2, 4, 5), None, False, [1.5, 0.5])],
    "upsample_bicubic2d.default": [S(f(1, 2, 4, 5), [7, 9], False), S(f(1, 1, 4, 4), [8, 6], False, 2.0, 1.5)],
    "upsample_linear1d.default": [S(f(1, 2, 4), [7], False), S(f(2, 3, 5), [10], True)],
    "upsample_trilinear3d.vec": [S(f(1, 2, 3, 4, 5), [5, 6, 7], False, None), S(f(2, 2, 3, 4, 5), None, False, [2.0, 2.0, 1.0], sym={0: (0, 2, 3)}),
                                 S(f(1, 2, 3, 4, 5), None, True, [2.0, 1.5, 0.5])],
    "upsample_nearest3d.vec": [S(f(1, 2, 3, 4, 5), [5, 8, 3], None), S(f(1, 2, 3, 4, 5), None, [2.0, 1.5, 1.0])],
    "_upsample_nearest_exact1d.vec": [S(f(1, 2, 4), [7], None), S(f(1, 2, 5), None, [1.7]),
                                      S(f(2, 2, 6), None, [2.0], sym={0: (0, 2)})],
    "_upsample_nearest_exact2d.vec": [S(f(1, 2, 4, 5), [7, 3], None)],
    "_upsample_nearest_exact3d.vec": [S(f(1, 2, 3, 4, 5), None, [2.0, 1.5, 0.5])],
    "grid_sampler.default": [S(f(1, 2, 4, 5), f(1, 3, 3, 2), 0, 0, False), S(f(1, 2, 3, 4, 5), f(1, 2, 3, 3, 3), 1, 2, True)],
    "affine_grid_generator.default": [S(f(2, 2, 3), [2, 3, 4, 5], False), S(f(2, 2, 3), [2, 3, 4, 5], True, sym={0: (0,)}), S(f(2, 3, 4), [2, 1, 3, 4, 2], True),
                                      S(f(1, 2, 3), [1, 1, 1, 4], False)],
    "pixel_shuffle.default": [S(f(1, 8, 3, 3), 2)],
    "pixel_unshuffle.default": [S(f(1, 2, 4, 6), 2)],
    "col2im.default": [S(f(2, 12, 12), [5, 6], [2, 3], [1, 1], [1, 0], [1, 2]), S(f(8, 12), [4, 4], [2, 2], [2, 1], [1, 1], [1, 2]),
                       S(f(3, 8, 12), [4, 4], [2, 2], [2, 1], [1, 1], [1, 2], sym={0: (0,)})],
    "im2col.default": [S(f(1, 2, 5, 5), [3, 3], [1, 1], [1, 1], [2, 2]), S(f(2, 4, 4), [2, 2], [2, 1], [0, 1], [1, 1])],
    "one_hot.default": [S(i(5, 3, 2), 5)],
    "embedding_bag.default": [S(f(10, 3), i(10, 7), np.array([0, 2, 2, 5]), False, 1)],
    "embedding_bag.padding_idx": [S(f(10, 3), i(10, 7), np.array([0, 3, 7]), False, 2, False, None, True, 4),
                                  S(f(10, 3), i(10, 7), np.array([0, 3]), False, 0, False, f(7), False, None)],
    # losses and distances
    "mse_loss.default": [S(f(3, 4), f(3, 4), 1, sym={0: (0,), 1: (0,)}), S(f(3, 4), f(3, 4), 0)],
    "l1_loss.default": [S(f(3, 4), f(3, 4), 2)],
    "smooth_l1_loss.default": [S(f(3, 4), f(3, 4), 1, 0.5), S(f(3, 4), f(3, 4), 0, 0.0)],
    "huber_loss.default": [S(f(3, 4), f(3, 4), 1, 0.7)],
    "soft_margin_loss.default": [S(f(3, 4), f(3, 4)), S(f(3, 4), f(3, 4), 0, sym={0: (0,), 1: (0,)})],
    "margin_ranking_loss.default": [S(f(3, 4), f(3, 4), f(3, 4), 0.3), S(f(3, 4), f(3, 4), f(3, 4), 0.0, 2)],
    "channel_shuffle.default": [S(f(2, 6, 3, 2), 3, sym={0: (0,)}), S(f(2, 4, 5), 2)],
    "ctc_loss.IntList": [S(np.log(pos(5, 2, 4)), i(3, 2, 2) + 1, [5, 4], [2, 1]),
                         S(np.log(pos(5, 4)), i(3, 2) + 1, [5], [2], 0, 2, True)],
    "ctc_loss.Tensor": [S(np.log(pos(5, 2, 4)), i(3, 2, 2) + 1, np.array([5, 3]), np.array([2, 2]), 0, 0)],
    "hinge_embedding_loss.default": [S(f(3, 4), np.sign(f(3, 4))), S(f(3, 4), np.sign(f(4)), 0.5, 0,
                                                                      sym={0: (0,)})],
    "cosine_embedding_loss.default": [S(f(3, 4), f(3, 4), np.sign(f(3)), 0.2),
                                      S(f(4), f(4), np.full((), -1.0, np.float32), 0.0, 0)],
    "triplet_margin_loss.default": [S(f(3, 4), f(3, 4), f(3, 4)), S(f(3, 4), f(3, 4), f(3, 4), 2.0, 1.0, 1e-6, True, 0)],
    "multi_margin_loss.default": [S(f(3, 4), i(4, 3)), S(f(3, 4), i(4, 3), 2, 0.5, pos(4), 2),
                                  S(f(3, 4), i(4, 3), 1, 1.0, None, 0)],
    "multilabel_margin_loss.default": [S(f(2, 4), np.array([[1, 3, -1, 0], [2, 0, 1, 3]]))],
    "multilabel_margin_loss_forward.default": [S(f(2, 4), np.array([[1, 3, -1, 0], [2, -1, 1, 3]]), 0),
                                               S(f(2, 4), np.array([[1, 3, -1, 0], [2, 0, 1, 3]]), 2)],
    "kl_div.default": [S(f(3, 4), pos(3, 4)), S(f(3, 4), f(3, 4), 2, log_target=True), S(f(3, 4), pos(3, 4), 0)],
    "poisson_nll_loss.default": [S(f(3, 4), pos(3, 4), True, False, 1e-8, 1),
                                 S(pos(3, 4), pos(3, 4) * 3, False, True, 1e-8, 0)],
    "binary_cross_entropy.default": [S(pos(3, 4), pos(3, 4)), S(pos(3, 4), pos(3, 4), pos(3, 4), 0)],
    "binary_cross_entropy_with_logits.default": [S(f(3, 4), pos(3, 4)),
                                                 S(f(3, 4), pos(3, 4), pos(3, 4), pos(4), 2)],
    "nll_loss.default": [S(f(4, 5), i(5, 4)), S(f(4, 5), np.array([0, -100, 3, 4]), pos(5), 1, -100),
                         S(f(4, 5), i(5, 4), None, 0), S(f(2, 5, 3), i(5, 2, 3), pos(5), 0),
                         S(f(2, 5, 3), np.array([[0, -100, 4], [1, 2, 3]]), None, 1)],
    "nll_loss_nd.default": [S(f(4, 5), i(5, 4)), S(f(2, 5, 3), i(5, 2, 3), pos(5), 0),
                            S(f(2, 5, 3, 2), i(5, 2, 3, 2), None, 2), S(f(5), np.array(1))],
    "nll_loss_forward.default": [S(f(4, 5), i(5, 4), pos(5), 1, -100), S(f(4, 5), i(5, 4), None, 0, -100),
                                 S(f(5), np.array(2), None, 2, -100)],
    "nll_loss2d_forward.default": [S(f(2, 3, 2, 2), i(3, 2, 2, 2), None, 1, -100)],
    "cross_entropy_loss.default": [S(f(4, 5), i(5, 4)), S(f(4, 5), i(5, 4), pos(5), 1, -100, 0.1),
                                   S(f(4, 5), np.array([0, 1, -100, 3]), None, 2, -100, 0.2),
                                   S(f(4, 5), pos(4, 5), None, 1, -100, 0.1),
                                   S(f(4, 5), np.array([0, 1, -100, 3]), pos(5), 1, -100, 0.2),
                                   S(f(4, 5), np.array([0, 1, -100, 3]), None, 1, -100, 0.2),
                                   S(f(2, 5, 3), i(5, 2, 3), None, 0), S(f(2, 5, 3), i(5, 2, 3), pos(5), 1),
                                   S(f(4, 5), pos(4, 5), pos(5), 0, -100, 0.1), S(f(5), np.array(2))],
    "cosine_similarity.default": [S(f(3, 4), f(3, 4)), S(f(2, 3, 4), f(2, 3, 4), 2)],
    "pairwise_distance.default": [S(f(3, 4), f(3, 4)), S(f(3, 4), f(3, 4), 1.0, 1e-6, True),
                                  S(f(3, 4), f(3, 4), 3.0)],
    "cdist.default": [S(f(3, 4), f(5, 4))],
    "pdist.default": [S(f(5, 3)), S(f(4, 3), 1.0)],
    "bilinear.default": [S(f(6, 3), f(6, 4), f(5, 3, 4), f(5)), S(f(2, 3, 3), f(2, 3, 4), f(5, 3, 4))],
    "scaled_dot_product_attention.default": [
        S(f(2, 3, 4, 8), f(2, 3, 5, 8), f(2, 3, 5, 6)),
        S(f(2, 3, 4, 8), f(2, 3, 4, 8), f(2, 3, 4, 8), None, 0.0, True),
        S(f(1, 2, 4, 8), f(1, 2, 4, 8), f(1, 2, 4, 8), b(4, 4) | np.eye(4, dtype=bool), scale=0.3),
        S(f(1, 4, 3, 8), f(1, 2, 3, 8), f(1, 2, 3, 8), f(3, 3), enable_gqa=True),
        # a query row whose keys are all masked attends to nothing: 0s, not NaN
        S(f(2, 2, 4, 8), f(2, 2, 5, 8), f(2, 2, 5, 8), np.arange(5) >= np.array([0, 5])[:, None, None, None]),
        S(f(2, 4, 8), f(2, 5, 8), f(2, 5, 8), np.where(np.arange(5) < np.array([[5], [0], [2], [5]]), -np.inf,
                                                        0).astype(np.float32)),
        S(f(2, 2, 4, 8), f(2, 2, 5, 8), f(2, 2, 5, 8), np.arange(5) >= np.array([2, 5])[:, None, None, None],
          sym={0: (0, 2), 1: (0, 2), 2: (0, 2), 3: (0,)})],
    # pointwise maths
    "rsub.Tensor": [S(f(3, 4), f(3, 4), alpha=2)], "rsub.Scalar": [S(f(3, 4), 2.0), S(i(5, 3), 3, 2)],
    "floor_divide.default": [S(f(3, 4), pos(3, 4))], "floor_divide.Scalar": [S(i(9, 3, 4), 2)],
    "true_divide.Tensor": [S(f(3, 4), pos(3, 4))], "true_divide.Scalar": [S(i(9, 3, 4), 2)],
    "max.other": [S(f(3, 4), f(3, 4))], "min.other": [S(f(3, 4), f(4))],
    "clamp_min.default": [S(f(3, 4), 0.1)], "clamp_max.default": [S(f(3, 4), 0.1)],
    "clamp_min.Tensor": [S(f(3, 4), f(4))], "clamp_max.Tensor": [S(f(3, 4), f(4))],
    "lerp.Scalar": [S(f(3, 4), f(3, 4), 0.3), S(f(3, 4), f(3, 4), 0.8)],
    "lerp.Tensor": [S(f(3, 4), f(3, 4), pos(3, 4))],
    "addcmul.default": [S(f(3, 4), f(3, 4), f(4), value=0.5)],
    "addcdiv.default": [S(f(3, 4), f(3, 4), pos(4), value=2.0)],
    "where.ScalarOther": [S(b(3, 4), f(3, 4), 0.5)], "where.ScalarSelf": [S(b(3, 4), 2, i(9, 3, 4))],
    "where.Scalar": [S(b(3, 4), 1.0, 0.0), S(b(3, 4), 1, 0)],
    "where.default": [S(b(3, 4))],
    "argwhere.default": [S(b(3, 4)), S(f(2, 3))],
    "masked_fill.Scalar": [S(f(3, 4), b(3, 4), float("-inf"), sym={0: (0,), 1: (0,)})],
    "masked_fill.Tensor": [S(f(3, 4), b(4), np.array(2.0, dtype=np.float64))],
    "masked_select.default": [S(f(3, 4), b(3, 4)), S(f(3, 4), b(4))],
    "index_add.default": [S(f(5, 3), 0, np.array([0, 2, 2]), f(3, 3), alpha=2.0)],
    "native_layer_norm_backward.default": [
        S(f(2, 3, 4), f(2, 3, 4), [4], f(2, 3, 1), pos(2, 3, 1), f(4), f(4), [True, True, True]),
        S(f(2, 3, 4), f(2, 3, 4), [3, 4], f(2, 1, 1), pos(2, 1, 1), None, None, [True, False, False],
          sym={0: (0,), 1: (0,), 3: (0,), 4: (0,)}),
        S(f(3, 4), f(3, 4), [3, 4], f(1, 1), pos(1, 1), f(3, 4), f(3, 4), [False, True, True])],
    "native_group_norm_backward.default": [
        S(f(2, 4, 3, 5), f(2, 4, 3, 5), f(2, 2), pos(2, 2), f(4), 2, 4, 15, 2, [True, True, True]),
        S(f(3, 6, 4), f(3, 6, 4), f(3, 3), pos(3, 3), None, 3, 6, 4, 3, [True, False, True])],
    "embedding_dense_backward.default": [S(f(2, 3, 4), np.array([[1, 2, 3], [0, 2, 6]]), 7, 2, False),
                                         S(f(2, 3, 4), np.array([[1, 2, 2], [0, 2, 6]]), 7, -1, True),
                                         S(f(5, 4), np.array([4, 0, 4, 1, 3]), 6, 0, True, sym={0: (0,), 1: (0,)})],
    "index_copy.default": [S(f(3, 5), 1, np.array([4, 0]), f(3, 2))],
    # indices past the end clamp (a negative one: torch's kernel wraps it, its decomposition reads 0)
    "_unsafe_masked_index.default": [S(f(3, 4), b(3, 5), [None, i(7, 5)], 0.5), S(f(4, 3), b(2, 1, 3), [i(6, 2, 1)], -1)],
    "_unsafe_masked_index_put_accumulate.default": [S(f(3, 4), b(3, 5), [None, i(7, 5)], f(3, 5))],
    "select_scatter.default": [S(f(4, 3), f(3), 0, -1), S(f(4, 3), f(4), 1, 2, sym={0: (0,), 1: (0,)}),
                               S(f(3, 4), f(4), 0, 1), S(f(2, 3, 4), f(2, 4), 1, 2)],
    "take_along_dim.default": [S(f(3, 4), i(4, 3, 2), 1), S(f(3, 4), i(12, 5))],
    "take.default": [S(f(3, 4), np.array([[0, -1], [5, 11]]))],
    "index_fill.int_Scalar": [S(f(3, 5), 1, np.array([4, 0]), -2.5), S(f(3, 5), -2, np.array([1]), 7.0)],
    "index_fill.int_Tensor": [S(f(3, 5), 0, np.array([2]), np.array(1.5, np.float32))],
    "isin.Tensor_Tensor": [S(i(5, 3, 4), i(5, 3)), S(i(50, 4), i(50, 40)), S(i(5, 6), i(5, 2), invert=True)],
    "isin.Tensor_Scalar": [S(i(3, 3, 4), 1), S(i(3, 3, 4), 1, invert=True)],
    "isin.Scalar_Tensor": [S(2, i(4, 5))],
    "diag_embed.default": [S(f(2, 3)), S(f(2, 3), 1, 0, 2), S(f(4), -2), S(b(2, 3), 0, -1, 0)],
    "frac.default": [S(f(3, 4) * 3)], "square.default": [UNARY, S(i(9, 3))],
    "isfinite.default": [S(SPECIAL), S(i(9, 3))],
    "nan_to_num.default": [S(SPECIAL), S(SPECIAL, 1.0, 100.0, -100.0)],
    "special_erf.default": [UNARY], "special_erfc.default": [UNARY], "special_erfinv.default": [S(pos(3, 4))],
    "special_expm1.default": [UNARY], "special_exp2.default": [UNARY], "special_gammaln.default": [UNARY],
    "special_digamma.default": [UNARY], "special_psi.default": [S(pos(3, 4))], "special_polygamma.default": [S(2, pos(4))],
    "special_multigammaln.default": [S(pos(3, 4) + 1, 2)], "special_i0.default": [UNARY],
    "special_log1p.default": [S(pos(3, 4))], "special_round.default": [UNARY, S(f(3, 4) * 10, decimals=2)],
    "special_xlogy.default": [S(f(3, 4), pos(3, 4))], "special_xlogy.other_scalar": [S(f(3, 4), 3.0)],
    "special_xlogy.self_scalar": [S(2.0, pos(3, 4))],
    "special_softmax.default": [S(f(3, 4), 1)], "special_log_softmax.default": [S(f(3, 4), 0, dtype=DType.float64)],
    "special_logsumexp.default": [S(f(3, 4), [1], True)],
    "special_gammainc.default": [S(pos(3, 4) * 3, pos(3, 4) * 2)], "special_gammaincc.default": [S(pos(4), pos(3, 4))],
    # special functions and more pointwise maths
    "xlogy.Tensor": [S(np.array([0, 0, 1.5, 2, np.nan], np.float32), np.array([np.nan, 0, 0, 3, 1], np.float32)),
                     S(i(3, 4), pos(4))],
    "xlogy.Scalar_Other": [S(f(3, 4), 2.5)], "xlogy.Scalar_Self": [S(0.5, pos(3, 4))],
    "special_xlog1py.default": [S(f(3, 4), pos(3, 4))], "special_xlog1py.other_scalar": [S(f(3, 4), 0.5)],
    "special_xlog1py.self_scalar": [S(2.0, pos(3, 4))],
    "sinc.default": [S(np.array([0, 0.5, -1.5, 3], np.float32)), S(i(4, 5))],
    "special_sinc.default": [UNARY],
    "logit.default": [S(pos(3, 4)), S(f(3, 4), 0.2)], "special_logit.default": [S(pos(3, 4), 0.1)],
    "special_expit.default": [UNARY], "special_ndtr.default": [UNARY], "special_log_ndtr.default": [S(f(3, 4) * 3)],
    "special_entr.default": [S(np.array([0.5, 0, -1, np.nan, 3], np.float32))],
    "mvlgamma.default": [S(pos(3, 4) + 2, 3), S(pos(4) + 1, 1)],
    "logaddexp.default": [S(f(3, 4), f(3, 4)), S(np.array([np.inf, -np.inf, np.nan, 1], np.float32),
                                                   np.array([np.inf, -np.inf, 1, np.nan], np.float32))],
    "logaddexp2.default": [S(f(3, 4), f(4)), S(np.array([np.inf, -np.inf], np.float32),
                                               np.array([np.inf, -np.inf], np.float32))],
    "float_power.Tensor_Tensor": [S(pos(3, 4), f(3, 4))], "float_power.Tensor_Scalar": [S(f(3, 4), 2)],
    "float_power.Scalar": [S(2, f(3, 4))],
    "deg2rad.default": [UNARY, S(i(9, 3))], "rad2deg.default": [UNARY],
    "sgn.default": [S(SPECIAL), S(i(9, 3) - 4)],
    "heaviside.default": [S(np.array([0, -1, 2, np.nan, 0], np.float32), f(5))],
    "isclose.default": [S(f(3, 4), f(3, 4) * 1e-3), S(SPECIAL, SPECIAL, 0.1, 0.2, True), S(i(3, 4), i(3, 4))],
    "isposinf.default": [S(SPECIAL), S(i(3, 4))], "isneginf.default": [S(SPECIAL)],
    "isreal.default": [UNARY], "fix.default": [S(f(3, 4) * 3)], "positive.default": [UNARY],
    "tril.default": [S(f(4, 5), sym={0: (0, 1)}), S(f(2, 4, 4), -1)], "triu.default": [S(f(4, 5), 1)],
    "roll.default": [S(f(3, 4), [1], [1]), S(f(3, 4), [5]), S(f(3, 4), [1, -2], [0, 1]),
                     S(f(5, 4), [-2], [0], sym={0: (0,)}), S(f(6), [2], sym={0: (0,)})],
    "rot90.default": [S(f(3, 4), 1), S(f(3, 4), 2), S(f(2, 3, 4), 3, [1, 2]), S(f(3, 4), 4)],
    "block_diag.default": [S([f(2, 3), f(4), i(9, 2, 1)])],
    "repeat_interleave.self_int": [S(f(2, 3), 2, 1), S(f(2, 3), 3)],
    "repeat_interleave.Tensor": [S(np.array([1, 0, 3]), output_size=4)],
    "repeat_interleave.self_Tensor": [S(f(3, 2), np.array([2, 1, 0]), 0, output_size=3)],
    # reductions and scans
    "sum.default": [S(f(3, 4), sym={0: (0,)}), S(i(5, 3), dtype=DType.float32)],
    "max.default": [S(f(3, 4))], "min.default": [S(f(3, 4))],
    "all.default": [S(b(3, 4))], "all.dim": [S(b(3, 4), 1, True)], "all.dims": [S(b(3, 4), [0])],
    "std.default": [UNARY], "std.dim": [S(f(3, 4), [1], False, True)],
    "std.correction": [S(f(3, 4), [0], correction=2)], "var.default": [S(f(3, 4), False)],
    "var.dim": [S(f(3, 4), [1]), S(f(3, 4, 2), [0, 2], False, True, sym={0: (1,)})],
    "std_mean.default": [UNARY], "std_mean.dim": [S(f(3, 4), [1])],
    "std_mean.correction": [S(f(3, 4), None, correction=0, keepdim=True)],
    "var_mean.default": [UNARY], "var_mean.dim": [S(f(3, 4), [0], False)],
    "var_mean.correction": [S(f(3, 4), [1], correction=1)],
    "norm.Scalar": [UNARY, S(f(3, 4), 3)], "norm.ScalarOpt_dim": [S(f(3, 4), 1, [1], True)],
    "renorm.default": [S(f(3, 4, 2), 2, 1, 1.5), S(f(4, 3), 1, 0, 0.5), S(f(3, 3).astype(np.float16), 3, -1, 0.1)],
    "logsumexp.default": [S(f(3, 4), [1], sym={0: (0,)}), S(f(3, 4), [0, 1], True)],
    "cumprod.default": [S(f(3, 5), 1), S(i(4, 6), 0)],
    "logcumsumexp.default": [S(f(3, 5), 1)],
    "cummax.default": [S(f(3, 6), 1), S(i(3, 7), 0)], "cummin.default": [S(f(3, 6), 1)],
    "argsort.default": [S(f(3, 5), 1, True)], "argsort.stable": [S(i(3, 7), stable=True)],
    "sort.stable": [S(f(3, 5), stable=True, dim=0)],
    "nansum.default": [S(SPECIAL[[0, 1, 2]]), S(f(3, 4), [1], True)],
    "nanmean.default": [S(SPECIAL[[0, 1, 2]]), S(np.where(b(3, 4), np.nan, f(3, 4)).astype(np.float32), [1], True,
                                                  sym={0: (0,)})],
    "diff.default": [S(f(3, 5), sym={0: (0, 1)}), S(f(4, 3), 2, 0, f(1, 3), f(2, 3)), S(b(6)), S(f(3), 5),
                     S(i(9, 5), 1, -1, None, np.array([0.5], np.float32))],
    "quantile.scalar": [S(f(4, 5), 0.3), S(f(4, 5), 0.7, 1, True, interpolation="midpoint", sym={0: (0,)}),
                        S(np.array([[1, np.nan, 2], [3, 4, 5]], np.float32), 0.5, 1, interpolation="lower")],
    "quantile.default": [S(f(4, 5), np.array([0.2, 0.9], np.float32), 1, True),
                         S(f(6), np.array(0.4, np.float32), interpolation="nearest")],
    "nanquantile.scalar": [S(np.where(b(4, 5), np.nan, f(4, 5)).astype(np.float32), 0.3, 1),
                           S(f(4, 5), 0.6, interpolation="higher")],
    "nanquantile.default": [S(np.where(b(4, 5), np.nan, f(4, 5)).astype(np.float32), np.array([0.1, 0.5], np.float32),
                              0)],
    "count_nonzero.default": [S(i(3, 3, 4)), S(i(3, 3, 4), 1)],
    "count_nonzero.dim_IntList": [S(i(3, 3, 4), [0, 1])],
    "aminmax.default": [S(f(3, 4)), S(f(3, 4), dim=1, keepdim=True)],
    "median.default": [S(f(3, 5)), S(f(4))], "nanmedian.default": [S(SPECIAL[[0, 1, 2, 5]]), S(f(5))],
    "kthvalue.default": [S(f(3, 5), 2), S(f(3, 5), 1, 0, True)],
    # views and shapes
    "reshape.default": [S(f(3, 4), [2, -1], sym={0: (0,)}), S(f(3, 4), [12])],
    "_unsafe_view.default": [S(f(3, 4), [4, 3])], "_reshape_copy.default": [S(f(3, 4), [6, 2])],
    "view_copy.default": [S(f(3, 4), [2, 6])],
    "view_as.default": [S(f(3, 4), f(2, 6))], "reshape_as.default": [S(f(3, 4), f(12))],
    "expand_as.default": [S(f(3, 1), f(3, 4))],
    "flatten.using_ints": [S(f(2, 3, 4), 1, sym={0: (0, 1)}), S(f(2, 3, 4)), S(f(2, 3, 4), 0, 1)],
    "unflatten.int": [S(f(2, 12), 1, [3, -1])],
    "tile.default": [S(f(2, 3), [2], sym={0: (0, 1)}), S(f(2, 3), [2, 1, 2]), S(f(4), [3])],
    "fliplr.default": [S(f(3, 4), sym={0: (0, 1)})], "flipud.default": [S(f(3, 4, 2))],
    "atleast_1d.default": [S(f()), S(f(3))], "atleast_2d.default": [S(f()), S(f(3)), S(f(2, 3))],
    "atleast_3d.default": [S(f()), S(f(3)), S(f(2, 3)), S(f(2, 3, 4))],
    "atleast_1d.Sequence": [S([f(), f(3)])], "atleast_2d.Sequence": [S([f(), f(3), f(2, 3)])],
    "atleast_3d.Sequence": [S([f(3), f(2, 3)])],
    "hstack.default": [S([f(3, 4), f(3, 2)], sym={0: (0,)}), S([f(3), f(2)]), S([f(), f(2)])],
    "vstack.default": [S([f(3, 4), f(2, 4)]), S([f(4), f(4)])], "row_stack.default": [S([f(3), f(3)])],
    "dstack.default": [S([f(3, 4), f(3, 4)]), S([f(3), f(3)])],
    "column_stack.default": [S([f(4), f(4)]), S([f(3, 2), f(3)])],
    "diag.default": [S(f(4), 1), S(f(3, 4), -1, sym={0: (0, 1)}), S(f(4, 3))],
    "diagflat.default": [S(f(2, 3)), S(f(3), -2)],
    "meshgrid.default": [S([f(3), f(2)])],
    "meshgrid.indexing": [S([f(3), f(2), f()], indexing="xy", sym={0: (0,)}), S([f(4)], indexing="ij")],
    "broadcast_tensors.default": [S([f(3, 1), f(4), f(3, 4)]), S([f(3, 1), f(3, 4)], sym={0: (0,)})],
    "cartesian_prod.default": [S([f(3), f(2)]), S([f(3)]), S([i(5, 2), i(5, 3), i(5, 2)])],
    "squeeze.default": [S(f(1, 3, 1, 4))],
    "squeeze.dim": [S(f(2, 1, 3), 1), S(f(2, 1), -1, sym={0: (0,)}), S(f(2, 3), 0)],
    "transpose.int": [S(f(2, 3, 4), 0, -1, sym={0: (0, 1)})], "swapaxes.default": [S(f(2, 3), 0, 1)],
    "swapdims.default": [S(f(2, 3), 1, 0)], "transpose_copy.int": [S(f(2, 3), 0, 1)],
    "t.default": [S(f(2, 3)), S(f(3))], "t_copy.default": [S(f(2, 3))],
    "movedim.int": [S(f(2, 3, 4), 0, 2)], "moveaxis.int": [S(f(2, 3, 4), -1, 0)],
    "movedim.intlist": [S(f(2, 3, 4, 5), [0, 1], [3, 0])], "moveaxis.intlist": [S(f(2, 3, 4), [2], [0])],
    "narrow.default": [S(f(5, 4), 0, 1, 3)], "narrow_copy.default": [S(f(5, 4), 1, 2, 2)],
    "contiguous.default": [UNARY], "detach.default": [UNARY], "lift_fresh.default": [UNARY],
    "lift_fresh_copy.default": [UNARY], "alias_copy.default": [UNARY], "detach_copy.default": [UNARY],
    "split.Tensor": [S(f(7, 3), 3), S(f(2, 9), 4, 1)], "split.sizes": [S(f(7, 3), [2, 5])],
    "split_copy.Tensor": [S(f(6, 2), 4)], "split_with_sizes_copy.default": [S(f(6, 2), [1, 5])],
    "unsafe_split.Tensor": [S(f(6, 2), 4)], "unsafe_split_with_sizes.default": [S(f(6, 2), [3, 3])],
    "chunk.default": [S(f(8, 3), 3), S(f(3, 8), 4, 1)], "unsafe_chunk.default": [S(f(5, 2), 2)],
    "tensor_split.sections": [S(f(7, 2), 3)], "tensor_split.indices": [S(f(7, 2), [2, 5])],
    "unbind.int": [S(f(3, 4), 1)], "unbind_copy.int": [S(f(3, 4))],
    "stack.default": [S([f(3, 4), f(3, 4)], 1), S([f(3), f(3), f(3)])],
    "_chunk_cat.default": [S([f(2, 5, 3), f(2, 3)], 1, 3), S([f(4, 6)], -1, 2), S([f(3, 2), f(5)], 0, 2)],
    "unfold_backward.default": [S(f(3, 3, 3), [3, 7], 1, 3, 2), S(f(3, 2, 2), [3, 7], -1, 2, 3),
                                S(f(4, 4, 2, 2), [5, 4, 2], 0, 2, 1)],
    "unfold.default": [S(f(3, 8), 1, 3, 2)], "unfold_copy.default": [S(f(7), 0, 2, 2)],
    "expand_copy.default": [S(f(3, 1), [3, 4])], "permute_copy.default": [S(f(2, 3, 4), [2, 0, 1])],
    "unsqueeze_copy.default": [S(f(2, 3), 1)], "squeeze_copy.default": [S(f(2, 1))],
    "squeeze_copy.dim": [S(f(2, 1), 1)], "squeeze_copy.dims": [S(f(1, 2, 1), [0, 2])],
    "slice_copy.Tensor": [S(f(5, 4), 0, 1, 4, 2)], "select_copy.int": [S(f(5, 4), 1, 2)],
    "diagonal_copy.default": [S(f(4, 5), 1)], "as_strided_copy.default": [S(f(4, 5), [2, 2], [5, 1], 1)],
    "to.dtype": [S(f(3, 4), DType.float64), S(f(3, 4), DType.float32)],
    "to.dtype_layout": [S(f(3, 4), dtype=DType.int64)], "to.device": [S(f(3, 4), "cpu", DType.float64)],
    "to.other": [S(f(3, 4), i(3, 2))], "type_as.default": [S(i(3, 4), f(2))],
    # recurrent: (input, state, params per layer and direction, has_biases, layers, dropout, train,
    # bidirectional, batch_first); cells: (input, state, w_ih, w_hh, b_ih, b_hh)
    "rnn_tanh.input": [S(f(4, 3, 5), f(1, 3, 6), [f(6, 5), f(6, 6), f(6), f(6)], True, 1, 0.0, False, False,
                         False, sym={0: (1,), 1: (1,)})],
    "rnn_relu.input": [S(f(3, 4, 5), f(4, 3, 6), [f(6, 5), f(6, 6), f(6, 5), f(6, 6), f(6, 12), f(6, 6),
                                                   f(6, 12), f(6, 6)], False, 2, 0.0, False, True, True)],
    "gru.input": [S(f(3, 2, 5), f(2, 2, 4), [f(12, 5), f(12, 4), f(12), f(12), f(12, 5), f(12, 4), f(12), f(12)],
                    True, 1, 0.0, False, True, False, sym={0: (1,), 1: (1,)})],
    "lstm.input": [S(f(3, 2, 5), [f(1, 2, 3), f(1, 2, 6)], [f(24, 5), f(24, 3), f(24), f(24), f(3, 6)], True, 1,
                     0.0, False, False, False),
                   S(f(2, 3, 5), [f(4, 2, 4), f(4, 2, 4)], [f(16, 5), f(16, 4), f(16, 5), f(16, 4), f(16, 8),
                                                            f(16, 4), f(16, 8), f(16, 4)], False, 2, 0.0, False,
                     True, True, sym={0: (0,), 1: (1,)})],
    "rnn_tanh_cell.default": [S(f(2, 5), f(2, 6), f(6, 5), f(6, 6), f(6), f(6), sym={0: (0,), 1: (0,)})],
    "rnn_relu_cell.default": [S(f(2, 5), f(2, 6), f(6, 5), f(6, 6))],
    "lstm_cell.default": [S(f(2, 5), [f(2, 6), f(2, 6)], f(24, 5), f(24, 6), f(24), f(24), sym={0: (0,), 1: (0,)})],
    "gru_cell.default": [S(f(3, 5), f(3, 6), f(18, 5), f(18, 6), f(18), f(18), sym={0: (0,), 1: (0,)})],
    # factories (values are deterministic except for random ones)
    "zeros.default": [S([2, 3]), S([2], dtype=DType.int64)], "ones.default": [S([2, 3])],
    "zeros_like.default": [S(f(2, 3), sym={0: (0,)})], "ones_like.default": [S(i(3, 2), dtype=DType.float32)],
    "empty_like.default": [S(f(2, 3))],
    "new_zeros.default": [S(f(2, 3), [4])], "new_ones.default": [S(i(2, 3), [2, 2])],
    "new_full.default": [S(f(2, 3), [4], 1.5)], "new_empty.default": [S(f(2, 3), [4])],
    "arange.default": [S(5), S(4.5)], "arange.start": [S(2, 7), S(0.5, 3.0, dtype=DType.float64)],
    "linspace.default": [S(0.0, 1.0, 7), S(-2, 5, 4), S(3.0, 3.0, 1)],
    "logspace.default": [S(0.0, 2.0, 5), S(1, 3, 4, 2.0), S(0.5, 2.7, 4, dtype=DType.int64), S(1.0, 1.0, 1)],
    "linspace.Tensor_Tensor": [S(np.array(0.5, np.float32), np.array(2.0, np.float32), 7),
                               S(np.array(-1.0), np.array(3.0), 1, dtype=DType.float64)],
    "linspace.Tensor_Scalar": [S(np.array(0.5, np.float32), 2.0, 4, dtype=DType.float16)],
    "linspace.Scalar_Tensor": [S(-2, np.array(5.0, np.float32), 6)],
    "logspace.Tensor_Tensor": [S(np.array(0.0, np.float32), np.array(2.0, np.float32), 5)],
    "logspace.Tensor_Scalar": [S(np.array(1.0, np.float32), 3, 4, 2.0)],
    "logspace.Scalar_Tensor": [S(0.5, np.array(2.7, np.float32), 4, dtype=DType.int64)],
    "eye.default": [S(3)], "eye.m": [S(3, 4, dtype=DType.int64)],
    "fill.Tensor": [S(f(3, 4), np.array(2.5, dtype=np.float64))],
    "fill.Scalar": [S(f(3, 4), 2.5), S(i(5, 3), 2, sym={0: (0,)})],
    "item.default": [S(f(1))],
    "rand_like.default": [S(f(3, 4))], "randn_like.default": [S(f(3, 4))],
    "randint.default": [S(5, [3, 4])], "randint.low": [S(2, 5, [3])],
    "randint_like.default": [S(i(5, 3, 4), 7)], "randint_like.low_dtype": [S(f(3, 4), 1, 5)],
    "bernoulli.default": [S(pos(3, 4))],
    "feature_dropout.default": [S(f(2, 3, 4), 0.5, True), S(f(2, 3, 4), 0.5, False)],
    "alpha_dropout.default": [S(f(2, 3), 0.5, True)], "feature_alpha_dropout.default": [S(f(2, 3, 4), 0.5, True)],
}
SAMPLES["item.default"] = []  # a scalar result: checked below through a program that uses it


def c(*shape: int) -> np.ndarray:
    return (f(*shape) + 1j * f(*shape)).astype(np.complex64)


def spd(n: int, *batch: int) -> np.ndarray:
    a = f(*batch, n, n + 2)
    return a @ np.swapaxes(a, -1, -2)


# torch.fft, complex numbers, torch.linalg
SAMPLES.update({
    "fft_fft.default": [S(f(3, 8), sym={0: (0,)}), S(c(3, 5), 8, 0, "ortho"), S(i(5, 2, 6), 4)],
    "fft_ifft.default": [S(f(3, 8), 6, -1, "ortho"), S(c(3, 5), None, 0, "forward")],
    "fft_rfft.default": [S(f(3, 8), sym={0: (0,)}), S(f(3, 5), 8, 0, "ortho")],
    "fft_ihfft.default": [S(f(3, 8), 5)],
    "fft_irfft.default": [S(c(3, 5), sym={0: (0,)}), S(c(3, 5), 9, -1, "ortho"), S(f(3, 5), 3, 0)],
    "fft_hfft.default": [S(c(3, 5)), S(c(3, 5), 4, -1, "forward")],
    "fft_fft2.default": [S(f(2, 4, 6)), S(c(2, 4, 6), [3, 8])],
    "fft_ifft2.default": [S(c(2, 4, 6), None, [0, 2], "ortho")],
    "fft_fftn.default": [S(f(4, 6), [3, 10]), S(c(2, 3, 4), None, [0, 2])],
    "fft_ifftn.default": [S(c(4, 6)), S(f(4, 6), [-1, 5], None, "forward")],
    "fft_rfft2.default": [S(f(2, 4, 6))],
    "fft_rfftn.default": [S(f(4, 6), None, [0], "ortho"), S(f(4, 6), [5, 5])],
    "fft_irfft2.default": [S(c(2, 4, 4))],
    "fft_irfftn.default": [S(c(4, 4), [4, 6]), S(c(4, 4), None, [0])],
    "fft_fftshift.default": [S(f(4, 5)), S(f(4, 5), [1])],
    "fft_ifftshift.default": [S(f(4, 5)), S(f(4, 5), [0])],
    "real.default": [S(c(3, 4))], "imag.default": [S(c(3, 4))],
    "conj_physical.default": [S(c(3, 4))], "resolve_conj.default": [S(c(3, 4))],
    "linalg_det.default": [S(f(3, 4, 4))], "det.default": [S(f(4, 4))],
    "linalg_slogdet.default": [S(f(3, 4, 4))],
    "linalg_inv.default": [S(spd(4, 2))], "inverse.default": [S(spd(3))],
    "linalg_solve.default": [S(spd(4, 2), f(2, 4)), S(spd(4, 2), f(2, 3, 4), left=False)],
    "linalg_cholesky.default": [S(spd(4, 2)), S(spd(3), upper=True)],
    "linalg_svd.default": [S(f(2, 3, 5), False)], "linalg_svdvals.default": [S(f(2, 3, 5))],
    "linalg_eigh.default": [S(spd(4, 2))], "linalg_eigvalsh.default": [S(spd(4, 2), "U")],
    "pinverse.default": [S(f(3, 5))],
    "linalg_lu_factor.default": [S(f(2, 4, 4))], "linalg_ldl_factor.default": [S(spd(4, 2))],
    "linalg_eigvals.default": [S(spd(3))], "matrix_exp.default": [S(f(2, 3, 3))],
    "linalg_norm.default": [S(f(3, 4)), S(f(3, 4), 1), S(f(2, 3, 4), 3, [2], True)],
    "linalg_norm.ord_str": [S(f(3, 4), "fro"), S(f(2, 3, 4), "nuc", [0, 2])],
    "linalg_matrix_norm.default": [S(f(2, 3, 4), 2), S(f(2, 3, 4), -1, [0, 2], True), S(f(3, 4), float("inf"))],
    "linalg_matrix_norm.str_ord": [S(f(2, 3, 4)), S(f(2, 3, 4), "nuc", [-1, 0], True)],
    "linalg_vecdot.default": [S(f(3, 4), f(3, 4), dim=0)], "vdot.default": [S(f(5), f(5))],
    "trace.default": [S(f(3, 4))], "linalg_diagonal.default": [S(f(2, 3, 4), offset=1)],
    "linalg_multi_dot.default": [S([f(3, 4), f(4, 5)]), S([f(4), f(4, 5), f(5, 2)]),
                                 S([f(2, 3), f(3, 6), f(6, 2), f(2)])],
    "chain_matmul.default": [S([f(3, 4), f(4, 5), f(5, 2)])],
    "tensordot.default": [S(f(2, 3, 4), f(4, 3, 5), [1, 2], [1, 0]), S(f(2, 1), f(3, 2), [1], [0])],
    "inner.default": [S(f(3, 4), f(2, 4))], "kron.default": [S(f(2, 3), f(3))],
    "addr.default": [S(f(3, 4), f(3), f(4), beta=0.5, alpha=2.0), S(f(4), f(3), f(4), beta=0)],
    "linalg_pinv.atol_rtol_float": [S(f(2, 3, 5), atol=0.1, rtol=0.01), S(spd(3), atol=0.5, hermitian=True)],
    "linalg_matrix_rank.atol_rtol_tensor": [S(f(2, 3, 5)), S(spd(3), atol=np.array(0.5), hermitian=True)],
    "linalg_matrix_rank.atol_rtol_float": [S(f(2, 3, 5), atol=0.5), S(f(4, 4), atol=0.1, rtol=0.2)],
    "logdet.default": [S(spd(3, 2)), S(np.float32([[0, 1], [1, 0]]))],
    "linalg_matrix_power.default": [S(f(2, 3, 3), 0), S(f(3, 3), 1), S(f(2, 3, 3), 2), S(f(3, 3), 5),
                                    S(spd(3, 2), -2), S(spd(3), -1)],
    "matrix_power.default": [S(f(2, 3, 3), 4)],
    "linalg_solve_ex.default": [S(spd(4, 2), f(2, 4, 3))],
    "linalg_cross.default": [S(f(2, 3), f(2, 3)), S(f(3, 4), f(3, 1), dim=0)],
    "cross.default": [S(f(4, 3), f(4, 3)), S(f(3, 3), f(3, 3), 1)],
})

RANDOM = {"rand_like.default", "randn_like.default", "randint.default", "randint.low", "randint_like.default",
          "randint_like.low_dtype", "bernoulli.default", "feature_dropout.default",
          "alpha_dropout.default", "feature_alpha_dropout.default", "empty_like.default", "new_empty.default"}
LOOSE = {"upsample_bicubic2d.vec": 1e-3, "cummax.default": 0, "logcumsumexp.default": 1e-3,
         "scaled_dot_product_attention.default": 1e-3, "einsum.default": 1e-3}

CASES = [(key, n) for key, samples in SAMPLES.items() for n in range(len(samples))]


def test_every_decomposition_has_samples() -> None:
    table = default_decompositions().by_key()
    missing = sorted(k for k in table if k.startswith("aten.") and k[5:] not in SAMPLES)
    assert not missing, f"decompositions without a numerics sample: {missing}"


@pytest.mark.parametrize(("key", "index"), CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_decomposition_matches_kernel(key: str, index: int) -> None:
    sample = SAMPLES[key][index]
    tolerance = LOOSE.get(key, 1e-4)
    check_decomposition(f"aten.{key}", sample, rtol=tolerance, atol=max(tolerance, 1e-5) / 10,
                        values=key not in RANDOM)


def test_item_becomes_local_scalar_dense() -> None:
    module, _ = op_module("aten.item.default", S(f(1)))
    assert "core._local_scalar_dense" in {op.name for op in lower_to_core(module).walk()}


def test_every_op_that_writes_has_a_functional_form() -> None:
    """Every non-core op that writes has a functional form (a renaming or a
    functionalization), or is an in-place view, which functionalize rejects
    (the other non-core ops: test_completeness)."""
    from texport.lowering.functionalize import FUNCTIONALIZATIONS
    from texport.lowering.rules import INPLACE

    inplace = {r.source.name for r in INPLACE.rules}
    missing = []
    for key in OPS.keys():
        op_def = OPS[key]
        if op_def.is_core or op_def.schema.namespace != "aten" or not op_def.schema.is_mutable:
            continue
        if op_def.ir_name not in inplace and key not in FUNCTIONALIZATIONS and not op_def.has_tag("inplace_view"):
            missing.append(key)
    assert not missing, f"{len(missing)} ops that write have no functional form: {missing}"


def test_every_decomposition_has_an_algebra_comment() -> None:
    """The line above each ``@register_decomposition`` is a one-line comment."""
    import inspect

    from texport.lowering.table import DECOMPOSITIONS

    missing = []
    for key in DECOMPOSITIONS.keys():
        fn = DECOMPOSITIONS[key]
        lines, start = inspect.getsourcelines(fn)
        source = inspect.getsourcefile(fn)
        with open(source) as handle:  # noqa: PTH123
            above = handle.read().splitlines()[start - 2].strip()
        if not above.startswith("#"):
            missing.append(f"{key} ({fn.__name__})")
    assert not missing, f"decompositions without an algebra comment: {missing}"
