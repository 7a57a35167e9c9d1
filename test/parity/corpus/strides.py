"""Strides: where torch's reshape (and matmul, einsum, flatten, linear) views a
tensor and where it copies, decided by the strides views give. Each model is
small; the core op multiset says whether texport cloned exactly where torch
did, the outputs that the views it kept are legal at run time. (Reshapes
spell out their sizes where a -1 would divide by a dynamic size: that
decomposition's symbolic -1 is a bug of its own, issue 15.)"""


class QKVAttention(torch.nn.Module):
    """qkv.permute(...).unbind(0), then q @ kᵀ and the same scores by einsum."""

    def __init__(self) -> None:
        super().__init__()
        self.heads = 2

    def forward(self, qkv):
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = q @ k.transpose(-2, -1)
        by_einsum = torch.einsum("bhqd,bhkd->bhqk", q, k)
        out = (scores.softmax(-1) @ v).transpose(1, 2).reshape(qkv.shape[0], qkv.shape[1], 8)
        return scores, by_einsum, out


class Einsums(torch.nn.Module):
    """einsum on permuted and sliced operands: batch, contraction, outer, diagonal,
    ellipsis, implicit output, and three operands."""

    def forward(self, x, y):
        xt = x.permute(0, 2, 1)
        return (torch.einsum("bij,bjk->bik", xt, y),
                torch.einsum("bji,bjk->bik", x, y),
                torch.einsum("bij->bji", xt),
                torch.einsum("bii->bi", x[:, :, :3] @ xt[:, :3, :]),
                torch.einsum("...ij,...jk", xt, y),
                torch.einsum("bij,bjk,bkl->bil", xt, y, y.transpose(1, 2)),
                torch.einsum("bi,bj->bij", x[:, 0, ::2], y[:, 1]))


class Reshapes(torch.nn.Module):
    """reshape, view, flatten after permute, transpose + contiguous, t, expand and
    stepped slices; and reshapes of contiguous tensors, which stay views."""

    def forward(self, x):
        batch, rest = x.shape[0], x.shape[1] * x.shape[2]
        return (x.permute(0, 2, 1).reshape(batch, rest),
                x.transpose(1, 2).contiguous().view(batch, -1),
                x[0].t().flatten(),
                x[:, :1].expand(batch, 5, x.shape[2]).reshape(batch * 5, x.shape[2]),
                x[:, ::2].reshape(batch, rest // 2),
                x[..., ::2].reshape(-1),
                x[:, :, 1:3].reshape(batch, 3, 4, 1),
                x.reshape(batch * 3, 8),
                x[:1].reshape(-1, x.shape[2]),
                x.unsqueeze(1).flatten(0, 1),
                x.transpose(1, 2).unflatten(1, (2, -1)).flatten(2))


class LayoutsAfterOps(torch.nn.Module):
    """Strides through ops: pointwise ops keep a transposed layout (a copy to
    reshape), a softmax or a reduction writes a fresh row-major result (a view),
    a clone keeps the layout, contiguous() of a contiguous tensor is itself."""

    def forward(self, x):
        batch, rest = x.shape[0], x.shape[1] * x.shape[2]
        t = x.transpose(1, 2)
        return ((t * 2).reshape(batch, rest),
                torch.relu(t).flatten(1),
                (t + t.contiguous()).reshape(batch, rest),
                (t.contiguous() + t).reshape(batch, rest),
                t.softmax(-1).reshape(batch, rest),
                x.permute(2, 0, 1).sum(-1).reshape(-1),
                t.clone().reshape(batch, rest),
                x.contiguous().view(batch, -1),
                (t + 1).transpose(1, 2).reshape(batch, rest))


class Matmuls(torch.nn.Module):
    """matmul folds a batch into mm when the strides allow it (or the matrix is a
    parameter); linear on a non-contiguous input is a batched matmul."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(4, 5))
        self.left = torch.nn.Parameter(torch.randn(3, 5))
        self.proj = torch.nn.Linear(4, 6)

    def forward(self, x, w):
        xt = x.transpose(0, 1)
        return (xt @ self.weight,
                xt @ w,
                x @ w,
                self.left @ x,
                x[0] @ x[0].transpose(1, 2),
                self.proj(xt),
                self.proj(x),
                x[:, 0] @ w,
                x @ w[:, 0])


class ChannelsLastLinear(torch.nn.Module):
    """ConvNeXt's channels-last MLP: permute, LayerNorm, Linear, permute back."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(4)
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(self.norm(x.permute(0, 2, 3, 1)))
        return x + y.permute(0, 3, 1, 2)


def cases():
    Dim = torch.export.Dim
    batch, seq = Dim("batch", min=2, max=16), Dim("seq", min=2, max=32)
    return [
        Case("qkv_attention", QKVAttention,
             inputs=lambda rng: (rng.standard_normal((2, 5, 3, 2, 4), dtype=np.float32),),
             dynamic_shapes={"qkv": {0: batch, 1: seq}},
             second=lambda rng: (rng.standard_normal((3, 7, 3, 2, 4), dtype=np.float32),)),
        Case("einsums", Einsums,
             inputs=lambda rng: (rng.standard_normal((2, 4, 5), dtype=np.float32),
                                 rng.standard_normal((2, 4, 6), dtype=np.float32)),
             dynamic_shapes={"x": {0: batch}, "y": {0: batch}},
             second=lambda rng: (rng.standard_normal((3, 4, 5), dtype=np.float32),
                                 rng.standard_normal((3, 4, 6), dtype=np.float32))),
        Case("reshapes", Reshapes,
             inputs=lambda rng: (rng.standard_normal((2, 6, 4), dtype=np.float32),),
             dynamic_shapes={"x": {0: batch}},
             second=lambda rng: (rng.standard_normal((5, 6, 4), dtype=np.float32),)),
        Case("layouts_after_ops", LayoutsAfterOps,
             inputs=lambda rng: (rng.standard_normal((2, 3, 4), dtype=np.float32),),
             dynamic_shapes={"x": {0: batch}},
             second=lambda rng: (rng.standard_normal((4, 3, 4), dtype=np.float32),)),
        Case("matmuls", Matmuls,
             inputs=lambda rng: (rng.standard_normal((3, 2, 5, 4), dtype=np.float32)[:, :, :, :],
                                 rng.standard_normal((4, 5), dtype=np.float32)),
             dynamic_shapes={"x": {1: batch}, "w": None},
             second=lambda rng: (rng.standard_normal((3, 6, 5, 4), dtype=np.float32),
                                 rng.standard_normal((4, 5), dtype=np.float32))),
        Case("channels_last_linear", ChannelsLastLinear,
             inputs=lambda rng: (rng.standard_normal((2, 4, 3, 5), dtype=np.float32),),
             dynamic_shapes={"x": {0: batch}},
             second=lambda rng: (rng.standard_normal((3, 4, 3, 5), dtype=np.float32),)),
    ]
