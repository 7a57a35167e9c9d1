"""Transformer layers (encoder/decoder layers and stacks, the whole
Transformer, with masks, norm_first, activations, batch_first, eval and
train), and the small layers beside them: Bilinear, CosineSimilarity,
PairwiseDistance, pdist, ParameterList/ParameterDict, lazy modules after one
call, AdaptiveLogSoftmaxWithLoss, DataParallel, SyncBatchNorm."""


class Decoder(torch.nn.Module):
    """A decoder stack told its target mask is not causal (left undecided,
    torch's check of the mask is data-dependent: export fails)."""

    def __init__(self, decoder) -> None:
        super().__init__()
        self.decoder = decoder

    def forward(self, tgt, memory, tgt_mask):
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, tgt_is_causal=False)


class CausalEncoder(torch.nn.Module):
    """An encoder whose causal mask is made in forward, with the is_causal hint."""

    def __init__(self, encoder) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(self, x):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.size(1))
        return self.encoder(x, mask=mask, is_causal=True)


class CausalPaddedEncoderLayer(torch.nn.Module):
    """A causal mask hint together with a key padding mask (attention cannot
    take the is_causal shortcut: the masks are merged)."""

    def __init__(self, layer) -> None:
        super().__init__()
        self.layer = layer

    def forward(self, x, padding):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.size(0))
        return self.layer(x, src_mask=mask, src_key_padding_mask=padding, is_causal=True)


class Seq2Seq(torch.nn.Module):
    """The whole Transformer with a causal target mask."""

    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, src, tgt, src_key_padding_mask):
        tgt_mask = self.model.generate_square_subsequent_mask(tgt.size(0))
        return self.model(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_key_padding_mask,
                          memory_key_padding_mask=src_key_padding_mask, tgt_is_causal=True)


class MhaForward(torch.nn.Module):
    """F.multi_head_attention_forward called directly with separate q/k/v
    weights, a bias_k/bias_v, zero attention and a key padding mask."""

    def __init__(self) -> None:
        super().__init__()
        self.q = torch.nn.Parameter(torch.randn(8, 8) / 3)
        self.k = torch.nn.Parameter(torch.randn(8, 6) / 3)
        self.v = torch.nn.Parameter(torch.randn(8, 5) / 3)
        self.in_bias = torch.nn.Parameter(torch.randn(24) / 3)
        self.bias_k = torch.nn.Parameter(torch.randn(1, 1, 8) / 3)
        self.bias_v = torch.nn.Parameter(torch.randn(1, 1, 8) / 3)
        self.out = torch.nn.Parameter(torch.randn(8, 8) / 3)
        self.out_bias = torch.nn.Parameter(torch.randn(8) / 3)

    def forward(self, query, key, value, key_padding_mask):
        return F.multi_head_attention_forward(
            query, key, value, 8, 2, None, self.in_bias, self.bias_k, self.bias_v, True, 0.0, self.out,
            self.out_bias, training=False, key_padding_mask=key_padding_mask, need_weights=True,
            use_separate_proj_weight=True, q_proj_weight=self.q, k_proj_weight=self.k, v_proj_weight=self.v,
            average_attn_weights=False)


def _x(*shape):
    return lambda rng: (rng.standard_normal(shape, dtype=np.float32),)


def _padding(batch, seq):
    mask = np.zeros((batch, seq), dtype=bool)
    mask[1:, seq - 2:] = True
    return mask


def _transformer_cases():
    nn = torch.nn
    Dim = torch.export.Dim

    def enc(**kw):
        return nn.TransformerEncoderLayer(8, 2, 16, **kw)

    def dec(**kw):
        return nn.TransformerDecoderLayer(8, 2, 16, **kw)

    seq_batch = {"src": {0: Dim("seq", min=2, max=32)}}
    cases = [
        Case("encoder_layer", lambda: enc(), inputs=_x(5, 2, 8), dynamic_shapes=seq_batch,
             second=_x(7, 2, 8)),
        Case("encoder_layer_train", lambda: enc(dropout=0.0), inputs=_x(5, 2, 8), train=True),
        Case("encoder_layer_norm_first_gelu", lambda: enc(norm_first=True, activation="gelu",
                                                              batch_first=True),
             inputs=_x(2, 5, 8)),
        Case("encoder_layer_callable_activation", lambda: enc(activation=F.silu, bias=False),
             inputs=_x(5, 2, 8)),
        Case("encoder_layer_unbatched", lambda: enc(), inputs=_x(5, 8)),
        Case("encoder_layer_masks", lambda: enc(batch_first=True),
             inputs=lambda rng: {"src": rng.standard_normal((3, 5, 8), dtype=np.float32),
                                 "src_mask": rng.standard_normal((5, 5), dtype=np.float32),
                                 "src_key_padding_mask": _padding(3, 5)}),
        Case("encoder_padding", lambda: nn.TransformerEncoder(enc(batch_first=True), 2, nn.LayerNorm(8),
                                                             enable_nested_tensor=False),
             inputs=lambda rng: {"src": rng.standard_normal((3, 5, 8), dtype=np.float32),
                                 "src_key_padding_mask": _padding(3, 5)}),
        Case("encoder_causal", lambda: CausalEncoder(nn.TransformerEncoder(enc(batch_first=True), 2)),
             inputs=_x(2, 5, 8)),
        Case("encoder_layer_causal_padding", lambda: CausalPaddedEncoderLayer(enc()),
             inputs=lambda rng: (rng.standard_normal((5, 3, 8), dtype=np.float32), _padding(3, 5))),
        Case("encoder_train", lambda: nn.TransformerEncoder(enc(dropout=0.0), 2), inputs=_x(5, 2, 8),
             train=True),
        Case("decoder_layer", lambda: dec(), inputs=lambda rng: (rng.standard_normal((4, 2, 8), dtype=np.float32),
                                                                      rng.standard_normal((6, 2, 8), dtype=np.float32))),
        Case("decoder_layer_norm_first_masks", lambda: dec(norm_first=True, batch_first=True, activation="gelu"),
             inputs=lambda rng: {"tgt": rng.standard_normal((3, 4, 8), dtype=np.float32),
                                 "memory": rng.standard_normal((3, 6, 8), dtype=np.float32),
                                 "tgt_mask": np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1),
                                 "tgt_key_padding_mask": _padding(3, 4),
                                 "memory_key_padding_mask": _padding(3, 6)}),
        Case("decoder_layer_memory_mask", lambda: dec(),
             inputs=lambda rng: {"tgt": rng.standard_normal((4, 2, 8), dtype=np.float32),
                                 "memory": rng.standard_normal((6, 2, 8), dtype=np.float32),
                                 "memory_mask": rng.random((4, 6)) < 0.3}),
        Case("decoder", lambda: Decoder(nn.TransformerDecoder(dec(), 2, nn.LayerNorm(8))),
             inputs=lambda rng: {"tgt": rng.standard_normal((4, 2, 8), dtype=np.float32),
                                 "memory": rng.standard_normal((6, 2, 8), dtype=np.float32),
                                 "tgt_mask": np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)}),
        Case("transformer", lambda: Seq2Seq(nn.Transformer(8, 2, 2, 2, 16)),
             inputs=lambda rng: (rng.standard_normal((6, 3, 8), dtype=np.float32),
                                 rng.standard_normal((4, 3, 8), dtype=np.float32), _padding(3, 6))),
        Case("transformer_dynamic", lambda: Seq2Seq(nn.Transformer(8, 2, 1, 1, 16)),
             inputs=lambda rng: (rng.standard_normal((6, 3, 8), dtype=np.float32),
                                 rng.standard_normal((4, 3, 8), dtype=np.float32), _padding(3, 6)),
             dynamic_shapes=(lambda src, tgt: {"src": {0: src}, "tgt": {0: tgt},
                                               "src_key_padding_mask": {1: src}})(
                 Dim("src_len", min=3, max=32), Dim("tgt_len", min=2, max=32)),
             second=lambda rng: (rng.standard_normal((9, 3, 8), dtype=np.float32),
                                 rng.standard_normal((5, 3, 8), dtype=np.float32), _padding(3, 9))),
        Case("multi_head_attention_forward", MhaForward,
             inputs=lambda rng: (rng.standard_normal((4, 3, 8), dtype=np.float32),
                                 rng.standard_normal((5, 3, 6), dtype=np.float32),
                                 rng.standard_normal((5, 3, 5), dtype=np.float32), _padding(3, 6)[:, :5])),
        Case("transformer_train_norm_first", lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0,
                                                                         norm_first=True, batch_first=True),
             inputs=lambda rng: (rng.standard_normal((3, 6, 8), dtype=np.float32),
                                 rng.standard_normal((3, 4, 8), dtype=np.float32)), train=True),
    ]
    return cases


def _pair(shape1, shape2=None):
    return lambda rng: (rng.standard_normal(shape1, dtype=np.float32),
                        rng.standard_normal(shape2 or shape1, dtype=np.float32))


def _distance_cases():
    nn = torch.nn
    Dim = torch.export.Dim
    batch = Dim("batch", min=2, max=32)
    both = {"input1": {0: batch}, "input2": {0: batch}}
    return [
        Case("bilinear", lambda: nn.Bilinear(3, 4, 5), inputs=_pair((6, 3), (6, 4)), dynamic_shapes=both,
             second=_pair((9, 3), (9, 4))),
        Case("bilinear_batched_no_bias", lambda: nn.Bilinear(3, 4, 5, bias=False), inputs=_pair((6, 2, 3), (6, 2, 4))),
        Case("bilinear_function", lambda: Fn(lambda a, b: F.bilinear(a, b, torch.ones(2, 3, 4) / 7)),
             inputs=_pair((5, 3), (5, 4))),
        Case("cosine_similarity_module", lambda: nn.CosineSimilarity(dim=-1, eps=1e-6), inputs=_pair((4, 5, 6))),
        Case("pairwise_distance_module", lambda: nn.PairwiseDistance(), inputs=_pair((4, 6))),
        Case("pairwise_distance_p1_keepdim", lambda: nn.PairwiseDistance(1.0, keepdim=True), inputs=_pair((4, 6))),
        Case("pairwise_distance_function", lambda: Fn(lambda a, b: F.pairwise_distance(a, b, 3.0, 1e-3)),
             inputs=_pair((2, 4, 6))),
        Case("pdist", lambda: Fn(F.pdist), inputs=_x(5, 3)),
        Case("pdist_p1", lambda: Fn(lambda x: F.pdist(x, 1.0)), inputs=_x(5, 3)),
    ]


class ParameterContainers(torch.nn.Module):
    """Parameters held in a ParameterList and a ParameterDict (state-dict keys
    ``scales.0``, ``shifts.b``...), iterated in forward."""

    def __init__(self) -> None:
        super().__init__()
        self.scales = torch.nn.ParameterList([torch.ones(4) * 2, torch.nn.Parameter(torch.arange(4.0))])
        self.scales.append(torch.full((4,), 0.5))
        self.shifts = torch.nn.ParameterDict({"b": torch.ones(4), "a": torch.zeros(4) - 1})

    def forward(self, x):
        for scale in self.scales:
            x = x * scale
        for key, shift in self.shifts.items():
            x = x + shift if key == "a" else x - shift
        return x + self.scales[-1] * self.shifts["b"]


class Legacy(torch.nn.Container):
    def forward(self, x):
        return self.second(self.first(x))


def _container_cases():
    nn = torch.nn
    return [
        Case("parameter_list_and_dict", ParameterContainers, inputs=_x(3, 4)),
        Case("container", lambda: Legacy(first=nn.Linear(4, 5), second=nn.ReLU()), inputs=_x(3, 4)),
    ]


def _called_once(make, *shape):
    """A lazy module after its first call (it is then the ordinary module)."""
    def build():
        module = make()
        module(torch.ones(*shape))
        return module
    return build


def _lazy_cases():
    nn = torch.nn
    lazies = {
        "lazy_linear": (lambda: nn.LazyLinear(5), (2, 3)),
        "lazy_conv1d": (lambda: nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
        "lazy_conv2d": (lambda: nn.LazyConv2d(4, 3, stride=2, groups=2), (2, 6, 7, 7)),
        "lazy_conv3d": (lambda: nn.LazyConv3d(2, 2, bias=False), (1, 3, 4, 4, 4)),
        "lazy_conv_transpose1d": (lambda: nn.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 5)),
        "lazy_conv_transpose2d": (lambda: nn.LazyConvTranspose2d(4, 2, stride=2), (2, 3, 4, 4)),
        "lazy_conv_transpose3d": (lambda: nn.LazyConvTranspose3d(2, 2), (1, 3, 3, 3, 3)),
        "lazy_batch_norm1d": (lambda: nn.LazyBatchNorm1d(), (4, 3)),
        "lazy_batch_norm2d": (lambda: nn.LazyBatchNorm2d(momentum=0.5), (2, 3, 4, 4)),
        "lazy_batch_norm3d": (lambda: nn.LazyBatchNorm3d(affine=False), (2, 3, 2, 2, 2)),
        "lazy_instance_norm1d": (lambda: nn.LazyInstanceNorm1d(), (2, 3, 5)),
        "lazy_instance_norm2d": (lambda: nn.LazyInstanceNorm2d(track_running_stats=False), (2, 3, 4, 4)),
        "lazy_instance_norm3d": (lambda: nn.LazyInstanceNorm3d(affine=False), (2, 3, 2, 2, 2)),
    }
    cases = [Case(name, _called_once(make, *shape), inputs=_x(*shape)) for name, (make, shape) in lazies.items()]
    cases.append(Case("lazy_batch_norm2d_train", _called_once(lambda: nn.LazyBatchNorm2d(), 2, 3, 4, 4),
                      inputs=_x(2, 3, 4, 4), train=True))
    return cases


class LogProb(torch.nn.Module):
    """AdaptiveLogSoftmaxWithLoss.log_prob (its forward selects rows by target
    values: torch.export cannot trace it)."""

    def __init__(self) -> None:
        super().__init__()
        self.adaptive = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)

    def forward(self, x):
        return self.adaptive.log_prob(x)


def _parallel_cases():
    nn = torch.nn
    return [
        Case("data_parallel", lambda: nn.DataParallel(nn.Sequential(nn.Linear(3, 4), nn.Tanh())), inputs=_x(2, 3)),
        Case("sync_batch_norm", lambda: nn.SyncBatchNorm(3), inputs=_x(2, 3, 5)),
        Case("sync_batch_norm_train", lambda: nn.SyncBatchNorm(3, momentum=0.3), inputs=_x(2, 3, 4, 4),
             train=True),
        Case("sync_batch_norm_2d_no_affine", lambda: nn.SyncBatchNorm(4, affine=False), inputs=_x(6, 4),
             train=True),
        Case("convert_sync_batchnorm",
             lambda: nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3))),
             inputs=_x(2, 3, 4, 4), train=True),
    ]


def cases():
    return (_transformer_cases() + _distance_cases() + _container_cases() + _lazy_cases() + _parallel_cases()
            + [Case("adaptive_log_softmax_log_prob", LogProb, inputs=_x(5, 8))])
