"""Matrix products and attention: linear on 2-D and 3-D inputs, matmul shapes,
einsum, multi-head attention, scaled dot-product attention with boolean,
additive, causal and left-padding masks (fully masked rows)."""


class Linear(torch.nn.Module):
    def __init__(self, bias=True) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 6, bias=bias)

    def forward(self, x):
        return self.linear(x)


class MHA(torch.nn.Module):
    def __init__(self, need_weights=True, mask=False) -> None:
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)
        self.need_weights = need_weights
        self.mask = mask

    def forward(self, x):
        mask = None
        if self.mask:
            mask = torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).triu(1)
        return self.mha(x, x, x, attn_mask=mask, need_weights=self.need_weights)[0]


class BatchOfOne(torch.nn.Module):
    """3-D products with a batch of one against a batch of three: torch's matmul
    squeezes the batch of one off an operand that requires grad (a parameter or
    the program's view of one, not a computed tensor, a buffer or a detached
    one), and folds a matrix that requires grad into one mm."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(1, 4, 1))
        self.register_buffer("table", torch.randn(1, 4, 1))

    def forward(self, x):
        return (self.weight @ x, (self.weight * 2) @ x, self.table @ x, self.weight.detach() @ x,
                self.weight[0] @ x, x.transpose(1, 2) @ self.weight.transpose(1, 2))


class Attention(torch.nn.Module):
    def __init__(self, causal=False, scale=None) -> None:
        super().__init__()
        self.causal = causal
        self.scale = scale

    def forward(self, q, k, v, mask=None):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=self.causal, scale=self.scale)


class StridedHeads(torch.nn.Module):
    """q, k, v whose last dim is not the innermost in memory, several views away
    from the transpose that made it so: torch's CPU flash kernel needs stride 1
    there, so it runs the math backend."""

    def forward(self, x):
        q, k, v = x.reshape(x.shape[0], 3, 8, -1).transpose(-1, -2).unbind(1)
        return F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None])


class LeftPadded(torch.nn.Module):
    """A left-padded batch: the first (s - length) keys of each row are padding."""

    def forward(self, q, k, v, lengths):
        s = k.shape[-2]
        keep = torch.arange(s)[None, :] >= (s - lengths)[:, None]
        return F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])


def _f(*shape):
    return lambda rng: rng.standard_normal(shape, dtype=np.float32)


def _qkv(rng, b=2, h=2, length=4, source=5, e=8):
    return (rng.standard_normal((b, h, length, e), dtype=np.float32),
            rng.standard_normal((b, h, source, e), dtype=np.float32),
            rng.standard_normal((b, h, source, e), dtype=np.float32))


def _masked_rows(rng):
    """Row 1 of batch 0 and keys 0-1 of batch 1 masked: a query row with no key at all."""
    keep = np.ones((2, 1, 4, 5), dtype=bool)
    keep[0, 0, 1] = False
    keep[1, 0, :, :2] = False
    return keep


def cases():
    Dim = torch.export.Dim
    batch = {"x": {0: Dim("batch", min=2, max=16)}}
    products = {
        "matmul_3d_2d": (lambda a, b: a @ b, _f(2, 3, 4), _f(4, 5)),
        "matmul_batched": (lambda a, b: a @ b, _f(2, 3, 4), _f(2, 4, 5)),
        "matmul_broadcast": (lambda a, b: a @ b, _f(2, 1, 3, 4), _f(3, 4, 5)),
        "matmul_vector": (lambda a, b: a @ b, _f(3, 4), _f(4)),
        "bmm_transposed": (lambda a, b: torch.bmm(a, b.transpose(1, 2)), _f(2, 3, 4), _f(2, 5, 4)),
        "einsum_bmm": (lambda a, b: torch.einsum("bij,bjk->bik", a, b), _f(2, 3, 4), _f(2, 4, 5)),
        "einsum_heads": (lambda a, b: torch.einsum("bhqd,bhkd->bhqk", a, b), _f(2, 3, 4, 8), _f(2, 3, 5, 8)),
        "einsum_outer": (lambda a, b: torch.einsum("i,j->ij", a, b), _f(3), _f(4)),
        "outer": (lambda a, b: torch.outer(a, b) + a.outer(b * 2), _f(3), _f(4)),
        "einsum_sum": (lambda a: torch.einsum("bij->bj", a), _f(2, 3, 4)),
    }
    cases = [Case(name, (lambda fn=fn: Fn(fn)), inputs=(lambda rng, makes=makes: tuple(m(rng) for m in makes)))
             for name, (fn, *makes) in products.items()]
    cases += [
        Case("linear_2d", Linear, inputs=lambda rng: (_f(3, 8)(rng),), dynamic_shapes=batch,
             second=lambda rng: (_f(5, 8)(rng),)),
        Case("linear_3d", Linear, inputs=lambda rng: (_f(2, 3, 8)(rng),), dynamic_shapes=batch,
             second=lambda rng: (_f(5, 3, 8)(rng),)),
        Case("linear_3d_no_bias", lambda: Linear(bias=False), inputs=lambda rng: (_f(2, 3, 8)(rng),)),
        Case("matmul_batch_of_one", BatchOfOne, inputs=lambda rng: (_f(3, 1, 5)(rng),)),
        Case("mha", MHA, inputs=lambda rng: (_f(2, 5, 16)(rng),)),
        Case("mha_no_weights", lambda: MHA(need_weights=False), inputs=lambda rng: (_f(2, 5, 16)(rng),)),
        Case("mha_causal_mask", lambda: MHA(need_weights=False, mask=True), inputs=lambda rng: (_f(2, 5, 16)(rng),)),
        Case("sdpa", Attention, inputs=lambda rng: _qkv(rng)),
        Case("sdpa_bool_mask", Attention, inputs=lambda rng: (*_qkv(rng), _masked_rows(rng))),
        Case("sdpa_additive_mask", Attention,
             inputs=lambda rng: (*_qkv(rng), np.where(_masked_rows(rng), 0, -np.inf).astype(np.float32))),
        Case("sdpa_causal", lambda: Attention(causal=True), inputs=lambda rng: _qkv(rng)),
        Case("sdpa_3d_bool_mask", Attention,
             inputs=lambda rng: (*(a[0] for a in _qkv(rng)), _masked_rows(rng)[0])),
        Case("sdpa_scale", lambda: Attention(scale=0.3), inputs=lambda rng: _qkv(rng)),
        Case("sdpa_strided_heads", StridedHeads, inputs=lambda rng: (_f(2, 24, 4, 4)(rng),)),
        Case("sdpa_left_padding", LeftPadded, inputs=lambda rng: (*_qkv(rng), np.array([5, 0])),
             dynamic_shapes={"q": {2: Dim("length")}, "k": {2: Dim("source")}, "v": {2: Dim("source")},
                             "lengths": None},
             second=lambda rng: (*_qkv(rng, length=3, source=7), np.array([2, 0]))),
    ]
    return cases
