"""Dropouts (eval: identity; training with p = 0 and p = 1, the draws that do not
depend on the generator), and the odd layers: fold/unfold, local response norm,
channel shuffle, gumbel softmax, conv_tbc."""


class Layer(torch.nn.Module):
    def __init__(self, layer) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x):
        return self.layer(x)


def _dropout_cases():
    nn, F = torch.nn, torch.nn.functional
    shapes = {"Dropout1d": (3, 4, 5), "Dropout2d": (2, 3, 4, 4), "Dropout3d": (2, 3, 2, 3, 3),
              "AlphaDropout": (3, 4), "FeatureAlphaDropout": (2, 3, 4)}
    cases = []
    for name, shape in shapes.items():
        layer = getattr(nn, name)
        cases.append(Case(f"{name}_eval", lambda layer=layer: layer(0.3), inputs=lambda rng, s=shape: (randn(rng, *s),)))
        cases.append(Case(f"{name}_p0_train", lambda layer=layer: layer(0.0), train=True,
                          inputs=lambda rng, s=shape: (randn(rng, *s),)))
        cases.append(Case(f"{name}_p1_train", lambda layer=layer: layer(1.0), train=True,
                          inputs=lambda rng, s=shape: (randn(rng, *s),)))
    cases += [
        Case("Dropout1d_unbatched_eval", lambda: nn.Dropout1d(0.3), inputs=lambda rng: (randn(rng, 4, 5),)),
        Case("Dropout1d_unbatched_inplace_p1_train", lambda: nn.Dropout1d(1.0, inplace=True), train=True,
             inputs=lambda rng: (randn(rng, 4, 5),)),
        Case("Dropout3d_unbatched_eval", lambda: nn.Dropout3d(0.3), inputs=lambda rng: (randn(rng, 3, 2, 3, 3),)),
        Case("Dropout2d_inplace_eval", lambda: nn.Dropout2d(0.5, inplace=True), inputs=lambda rng: (randn(rng, 2, 3, 4, 4),)),
        Case("F_alpha_dropout_inplace_p1", lambda: Fn(lambda x: F.alpha_dropout(x, 1.0, True, inplace=True)),
             inputs=lambda rng: (randn(rng, 3, 4),)),
        Case("F_feature_alpha_dropout_inplace_p1",
             lambda: Fn(lambda x: F.feature_alpha_dropout(x + 1, 1.0, True, inplace=True)),
             inputs=lambda rng: (randn(rng, 2, 3, 4),)),
        Case("F_dropout2d_default_training_p0", lambda: Fn(lambda x: F.dropout2d(x, 0.0)),
             inputs=lambda rng: (randn(rng, 2, 3, 4, 4),)),
    ]
    return cases


def _block_cases():
    nn, F = torch.nn, torch.nn.functional
    return [
        Case("Unfold", lambda: nn.Unfold(2, padding=1, stride=2), inputs=lambda rng: (randn(rng, 2, 3, 5, 5),)),
        Case("Unfold_dilated_unbatched", lambda: nn.Unfold((2, 3), dilation=(2, 1)),
             inputs=lambda rng: (randn(rng, 3, 6, 5),)),
        Case("Fold", lambda: nn.Fold((4, 5), 2), inputs=lambda rng: (randn(rng, 2, 12, 12),)),
        Case("Fold_strided_padded_unbatched", lambda: nn.Fold((5, 5), (2, 2), padding=1, stride=2),
             inputs=lambda rng: (randn(rng, 8, 9),)),
        Case("F_fold_of_unfold", lambda: Fn(lambda x: F.fold(F.unfold(x, 3, padding=1), (4, 4), 3, padding=1)),
             inputs=lambda rng: (randn(rng, 1, 2, 4, 4),)),
        Case("LocalResponseNorm", lambda: nn.LocalResponseNorm(3), inputs=lambda rng: (randn(rng, 2, 5, 4, 4),)),
        Case("LocalResponseNorm_3d_input", lambda: nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0),
             inputs=lambda rng: (randn(rng, 2, 5, 4),)),
        Case("LocalResponseNorm_5d_input", lambda: nn.LocalResponseNorm(4, alpha=0.01),
             inputs=lambda rng: (randn(rng, 2, 5, 4, 3, 2),)),
        Case("ChannelShuffle", lambda: nn.ChannelShuffle(2), inputs=lambda rng: (randn(rng, 2, 6, 4, 4),)),
        Case("F_channel_shuffle_3d", lambda: Fn(lambda x: F.channel_shuffle(x, 3)), inputs=lambda rng: (randn(rng, 2, 6, 5),)),
        Case("F_native_channel_shuffle", lambda: Fn(lambda x: F.native_channel_shuffle(x, 3)),
             inputs=lambda rng: (randn(rng, 2, 6, 4, 4),)),
        Case("F_conv_tbc", lambda: Fn(lambda x, w, b: F.conv_tbc(x, w, b, 1)),
             inputs=lambda rng: (randn(rng, 7, 2, 3), randn(rng, 3, 3, 4), randn(rng, 4))),
        Case("F_conv_tbc_no_pad", lambda: Fn(lambda x, w, b: F.conv_tbc(x, w, b)),
             inputs=lambda rng: (randn(rng, 6, 3, 2), randn(rng, 2, 2, 5), randn(rng, 5))),
    ]


def _separated(rng):
    """Logits whose classes lie 100 apart: the Gumbel noise (a few units) never changes
    the argmax, and the softmax at tau <= 1 is one-hot to float32, whatever the draws."""
    return (np.stack([rng.permutation(6) for _ in range(4)]) * 100.0).astype(np.float32)


def _gumbel_cases():
    F = torch.nn.functional
    return [
        Case("F_gumbel_softmax_hard", lambda: Fn(lambda x: F.gumbel_softmax(x, hard=True)), inputs=lambda rng: (_separated(rng),)),
        Case("F_gumbel_softmax_soft", lambda: Fn(lambda x: F.gumbel_softmax(x, tau=0.5)), inputs=lambda rng: (_separated(rng),)),
        Case("F_gumbel_softmax_hard_dim0", lambda: Fn(lambda x: F.gumbel_softmax(x.t(), tau=0.8, hard=True, dim=0)),
             inputs=lambda rng: (_separated(rng),)),
    ]


def _grouped_mm(a, b, offs=None):
    """F.grouped_mm in bfloat16 (torch's export wants it), the result back in float32."""
    bf16 = torch.bfloat16
    return torch.nn.functional.grouped_mm(a.to(bf16), b.to(bf16), offs=offs).float()


def _grouped_mm_cases():
    offs = lambda *ends: np.array(ends, dtype=np.int32)  # noqa: E731
    return [
        Case("F_grouped_mm_3d_3d", lambda: Fn(_grouped_mm), inputs=lambda rng: (randn(rng, 2, 4, 8), randn(rng, 2, 8, 8)),
             rtol=1e-2, atol=1e-2),
        Case("F_grouped_mm_rows", lambda: Fn(_grouped_mm),
             inputs=lambda rng: (randn(rng, 6, 8), randn(rng, 2, 8, 8), offs(2, 6)), rtol=1e-2, atol=1e-2),
        Case("F_grouped_mm_columns", lambda: Fn(_grouped_mm),
             inputs=lambda rng: (randn(rng, 2, 4, 8), randn(rng, 8, 16), offs(8, 16)), rtol=1e-2, atol=1e-2),
        Case("F_grouped_mm_contraction", lambda: Fn(_grouped_mm),
             inputs=lambda rng: (randn(rng, 8, 16), randn(rng, 16, 8), offs(8, 16)), rtol=1e-2, atol=1e-2),
    ]


class _EmptyLike(torch.nn.Module):
    """empty_like under preserve_format (torch decomposes it to empty_permuted, in the
    input's dim order) and under contiguous_format (to empty), then filled."""

    def forward(self, x):
        kept = torch.empty_like(x.transpose(0, 1)).fill_(2)
        fresh = torch.empty_like(x, memory_format=torch.contiguous_format).fill_(1)
        return fresh + x, kept * 3


def cases():
    return _dropout_cases() + _block_cases() + _gumbel_cases() + _grouped_mm_cases() + [
        Case("empty_like_formats", _EmptyLike, inputs=lambda rng: (randn(rng, 3, 4),)),
    ] + _dynamic_cases()


def _batch_dim():
    return {"x": {0: torch.export.Dim("batch", min=2, max=16)}}


def _dynamic_cases():
    """The layers with a symbolic batch size, run again on another batch."""
    nn = torch.nn
    return [
        Case("Unfold_dynamic_batch", lambda: Layer(nn.Unfold(2, padding=1)), inputs=lambda rng: (randn(rng, 2, 3, 4, 4),),
             dynamic_shapes=_batch_dim(), second=lambda rng: (randn(rng, 5, 3, 4, 4),)),
        Case("LocalResponseNorm_dynamic_batch", lambda: Layer(nn.LocalResponseNorm(3)),
             inputs=lambda rng: (randn(rng, 2, 5, 4, 4),), dynamic_shapes=_batch_dim(),
             second=lambda rng: (randn(rng, 3, 5, 4, 4),)),
        Case("ChannelShuffle_dynamic_batch", lambda: Layer(nn.ChannelShuffle(3)), inputs=lambda rng: (randn(rng, 2, 6, 4),),
             dynamic_shapes=_batch_dim(), second=lambda rng: (randn(rng, 7, 6, 4),)),
        Case("Dropout2d_dynamic_batch_p1_train", lambda: Layer(nn.Dropout2d(1.0)), train=True,
             inputs=lambda rng: (randn(rng, 2, 3, 4, 4),), dynamic_shapes=_batch_dim(),
             second=lambda rng: (randn(rng, 4, 3, 4, 4),)),
    ]
