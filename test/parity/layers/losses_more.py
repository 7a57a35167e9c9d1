"""The remaining losses, one module or function each: hinge and cosine embedding,
triplet margin (with p, swap, a custom distance), multi-class and multi-label
margin, multi-label soft margin and NLLLoss2d, with their reductions and weights."""


def _normal(rng, *shape):
    return rng.standard_normal(shape or (4, 5), dtype=np.float32)


def _signs(rng, *shape):
    return np.where(rng.random(shape or (4, 5)) < 0.5, -1.0, 1.0).astype(np.float32)


def _classes(rng):
    return np.array([0, 3, 1, 4])


def _labels(rng):
    """Multi-label targets: the labels of each row, then -1 (the rest ignored)."""
    return np.array([[0, 3, -1, 1, 2], [4, -1, 0, 0, 0], [0, 1, 2, 3, 4], [2, 2, -1, -1, 3]])


def _bits(rng):
    return (rng.random((4, 5)) < 0.5).astype(np.float32)


class _Weighted(torch.nn.Module):
    """A loss function given a weight buffer."""

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn
        self.register_buffer("weight", torch.ones(5) + torch.arange(5) / 4)

    def forward(self, x, target):
        return self.fn(x, target, self.weight)


class _Fn(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _three(rng):
    return _normal(rng), _normal(rng), _normal(rng)


def cases():
    weight = lambda: torch.ones(5) + torch.arange(5) / 4  # noqa: E731
    nn, F = torch.nn, torch.nn.functional
    return [
        Case("HingeEmbeddingLoss", lambda: nn.HingeEmbeddingLoss(), inputs=lambda rng: (_normal(rng), _signs(rng))),
        Case("HingeEmbeddingLoss_margin_none", lambda: nn.HingeEmbeddingLoss(margin=0.5, reduction="none"),
             inputs=lambda rng: (_normal(rng), _signs(rng))),
        Case("hinge_embedding_loss_sum", lambda: _Fn(lambda x, t: F.hinge_embedding_loss(x, t, reduction="sum")),
             inputs=lambda rng: (_normal(rng), _signs(rng))),
        Case("CosineEmbeddingLoss", lambda: nn.CosineEmbeddingLoss(),
             inputs=lambda rng: (_normal(rng), _normal(rng), _signs(rng, 4))),
        Case("CosineEmbeddingLoss_margin_none", lambda: nn.CosineEmbeddingLoss(margin=0.2, reduction="none"),
             inputs=lambda rng: (_normal(rng), _normal(rng), _signs(rng, 4))),
        Case("cosine_embedding_loss_vectors", lambda: _Fn(lambda a, b, t: F.cosine_embedding_loss(a, b, t, 0.1)),
             inputs=lambda rng: (_normal(rng, 5), _normal(rng, 5), np.array(-1.0, dtype=np.float32))),
        Case("TripletMarginLoss", lambda: nn.TripletMarginLoss(), inputs=_three),
        Case("TripletMarginLoss_p1_swap_sum", lambda: nn.TripletMarginLoss(margin=2.0, p=1, swap=True,
                                                                           reduction="sum"), inputs=_three),
        Case("TripletMarginLoss_none", lambda: nn.TripletMarginLoss(reduction="none"), inputs=_three),
        Case("TripletMarginWithDistanceLoss", lambda: nn.TripletMarginWithDistanceLoss(), inputs=_three),
        Case("TripletMarginWithDistanceLoss_cosine_swap",
             lambda: nn.TripletMarginWithDistanceLoss(
                 distance_function=lambda a, b: 1.0 - F.cosine_similarity(a, b), swap=True, reduction="none"),
             inputs=_three),
        Case("MultiMarginLoss", lambda: nn.MultiMarginLoss(), inputs=lambda rng: (_normal(rng), _classes(rng))),
        Case("MultiMarginLoss_p2_weighted_sum",
             lambda: nn.MultiMarginLoss(p=2, margin=0.5, weight=weight(), reduction="sum"),
             inputs=lambda rng: (_normal(rng), _classes(rng))),
        Case("MultiMarginLoss_none", lambda: nn.MultiMarginLoss(reduction="none"),
             inputs=lambda rng: (_normal(rng), _classes(rng))),
        Case("MultiMarginLoss_vector_none", lambda: nn.MultiMarginLoss(reduction="none"),
             inputs=lambda rng: (_normal(rng, 5), np.array(2)), core_op_exceptions=_VECTOR_SHAPE),
        Case("MultiLabelMarginLoss_vector_none", lambda: nn.MultiLabelMarginLoss(reduction="none"),
             inputs=lambda rng: (_normal(rng, 5), np.array([3, 0, -1, 1, 1])),
             core_op_exceptions={**_MULTILABEL_MASK, **_VECTOR_SHAPE}),
        Case("MultiLabelMarginLoss", lambda: nn.MultiLabelMarginLoss(), inputs=lambda rng: (_normal(rng), _labels(rng)),
             core_op_exceptions=_MULTILABEL_MASK),
        Case("MultiLabelMarginLoss_none", lambda: nn.MultiLabelMarginLoss(reduction="none"),
             inputs=lambda rng: (_normal(rng), _labels(rng)), core_op_exceptions=_MULTILABEL_MASK),
        Case("MultiLabelMarginLoss_sum", lambda: nn.MultiLabelMarginLoss(reduction="sum"),
             inputs=lambda rng: (_normal(rng), _labels(rng)), core_op_exceptions=_MULTILABEL_MASK),
        Case("MultiLabelSoftMarginLoss", lambda: nn.MultiLabelSoftMarginLoss(),
             inputs=lambda rng: (_normal(rng), _bits(rng))),
        Case("MultiLabelSoftMarginLoss_weighted_none",
             lambda: nn.MultiLabelSoftMarginLoss(weight=weight(), reduction="none"),
             inputs=lambda rng: (_normal(rng), _bits(rng))),
        Case("multilabel_soft_margin_loss_sum",
             lambda: _Weighted(lambda x, t, w: F.multilabel_soft_margin_loss(x, t, w, reduction="sum")),
             inputs=lambda rng: (_normal(rng), _bits(rng))),
        Case("NLLLoss2d", lambda: nn.NLLLoss2d(weight=torch.ones(3) + torch.arange(3) / 2),
             inputs=lambda rng: (_normal(rng, 2, 3, 4, 4), rng.integers(0, 3, (2, 4, 4)))),
    ] + _linear_cross_entropy_cases() + _dynamic_cases()


def _dynamic_cases():
    """Losses with a symbolic batch size, run again on another batch."""
    nn = torch.nn
    batch = {"x": {0: torch.export.Dim("batch", min=2, max=32)}, "target": {0: torch.export.Dim("batch", min=2, max=32)}}
    return [
        Case("HingeEmbeddingLoss_dynamic_batch", lambda: _Fn2(nn.HingeEmbeddingLoss(margin=0.5)),
             inputs=lambda rng: (_normal(rng), _signs(rng)), dynamic_shapes=batch,
             second=lambda rng: (_normal(rng, 7, 5), _signs(rng, 7, 5))),
        Case("MultiMarginLoss_dynamic_batch", lambda: _Fn2(nn.MultiMarginLoss(p=2)),
             inputs=lambda rng: (_normal(rng), _classes(rng)), dynamic_shapes=batch,
             second=lambda rng: (_normal(rng, 6, 5), np.array([0, 1, 2, 3, 4, 0]))),
        Case("MultiLabelSoftMarginLoss_dynamic_batch", lambda: _Fn2(nn.MultiLabelSoftMarginLoss()),
             inputs=lambda rng: (_normal(rng), _bits(rng)), dynamic_shapes=batch,
             second=lambda rng: (_normal(rng, 3, 5), _bits(rng)[:3])),
    ]


class _Fn2(torch.nn.Module):
    """A two-argument loss module with the arguments named for dynamic_shapes."""

    def __init__(self, loss) -> None:
        super().__init__()
        self.loss = loss

    def forward(self, x, target):
        return self.loss(x, target)


# torch._decomp's multi_margin_loss and multilabel_margin_loss_forward give a vector input's
# unreduced loss the shape [1] (torch's eager kernel: []); texport views it to [], as the kernel.
_VECTOR_SHAPE = {"aten.view.default": "a vector input's unreduced loss viewed to [] (torch's decomposition leaves [1])"}


# torch._decomp's multilabel_margin_loss_forward sums the hinge of the target positions
# past the first -1 too (its core program disagrees with its eager kernel there); texport
# masks them out, as the kernel does: one permute, unsqueeze and where more.
_MULTILABEL_MASK = {
    "aten.permute.default": "the label mask transposed to the hinge's [label, frame, class] layout",
    "aten.unsqueeze.default": "the label mask broadcast over the classes",
    "aten.where.self": "positions past the first -1 masked out, as ATen's kernel does",
}


def _linear_cross_entropy_cases():
    nn, F = torch.nn, torch.nn.functional
    return [
        Case("LinearCrossEntropyLoss", lambda: nn.LinearCrossEntropyLoss(5, 7),
             inputs=lambda rng: (_normal(rng), rng.integers(0, 7, (4,)))),
        Case("LinearCrossEntropyLoss_options",
             lambda: nn.LinearCrossEntropyLoss(5, 7, bias=True, weight=torch.ones(7) + torch.arange(7) / 4,
                                               ignore_index=2, reduction="sum", label_smoothing=0.1),
             inputs=lambda rng: (_normal(rng), np.array([0, 2, 6, 3]))),
        Case("LinearCrossEntropyLoss_out_features", lambda: nn.LinearCrossEntropyLoss(5, 3, out_features=(2,), bias=True),
             inputs=lambda rng: (_normal(rng), rng.integers(0, 3, (4, 2)))),
        Case("linear_cross_entropy_unbatched",
             lambda: _Fn(lambda x, w, t: F.linear_cross_entropy(x, w, t, reduction="none")),
             inputs=lambda rng: (_normal(rng, 5), _normal(rng, 6, 5), np.array(3))),
    ]
