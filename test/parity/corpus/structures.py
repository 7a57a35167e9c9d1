"""Program structure: nested dict/list/tuple outputs, keyword inputs with an
optional tensor, tied weights, einsum on permuted operands, a mixture-of-experts
layer (topk, scatter, gather, index_add), a switch-style top-1 router
(one_hot, cumsum capacity), derived input dims (4*h) read back through shapes,
reshape with an inferred dim over dynamic sizes, and a data-dependent count."""


class NestedOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1)})

    def forward(self, x):
        h = torch.tanh(self.body(x))
        return {"logits": self.heads["cls"](h),
                "aux": [self.heads["reg"](h).squeeze(-1), (h.mean(0), h.std(0))],
                "hidden": h}


class KeywordInputs(nn.Module):
    """Features with an optional mask and bias given by keyword."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(5, 5)

    def forward(self, features, *, mask=None, bias=None, scale=2.0):
        y = self.proj(features) * scale
        if mask is not None:
            y = y.masked_fill(~mask[..., None], 0.0)
        if bias is not None:
            y = y + bias
        return y.sum(1)


class TiedAutoencoder(nn.Module):
    """Encoder and decoder share one weight matrix (the decoder uses its transpose)
    and an embedding is tied to the output projection."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 6)
        self.encoder = nn.Linear(6, 4)
        self.output = nn.Linear(6, 20, bias=False)
        self.output.weight = self.embed.weight

    def forward(self, ids):
        h = torch.relu(self.encoder(self.embed(ids)))
        back = F.linear(h, self.encoder.weight.t())
        return self.output(back)


class EinsumOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.qk = nn.Linear(8, 16)
        self.bilinear = nn.Parameter(torch.randn(4, 4, 3) * 0.1)

    def forward(self, x):
        b, t, _ = x.shape
        q, k = self.qk(x).view(b, t, 2, 2, 4).permute(2, 0, 3, 1, 4)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1)
        mixed = torch.einsum("bhqk,bhkd->bqhd", scores, k)
        pair = torch.einsum("bqhd,dce,bqhc->bqe", mixed, self.bilinear, mixed)
        return pair, torch.einsum("bii->b", scores.flatten(0, 1).view(b, -1, t, t)[:, 0])


class MixtureOfExperts(nn.Module):
    """Top-2 routing: each (token, choice) pair is computed by its expert's
    weights gathered by index, then summed back per token with index_add."""

    def __init__(self, dim=8, hidden=12, experts=4, k=2):
        super().__init__()
        self.k = k
        self.router = nn.Linear(dim, experts, bias=False)
        self.w_in = nn.Parameter(torch.randn(experts, dim, hidden) * 0.2)
        self.w_out = nn.Parameter(torch.randn(experts, hidden, dim) * 0.2)

    def forward(self, x):
        tokens = x.reshape(-1, x.shape[-1])
        probs = self.router(tokens).softmax(-1)
        weights, chosen = probs.topk(self.k, dim=-1)
        weights = weights / weights.sum(-1, keepdim=True)
        gates = torch.zeros_like(probs).scatter(1, chosen, weights)
        flat = chosen.reshape(-1)
        owner = torch.arange(tokens.shape[0]).repeat_interleave(self.k)
        h = F.gelu(torch.bmm(tokens[owner].unsqueeze(1), self.w_in[flat]))
        y = torch.bmm(h, self.w_out[flat]).squeeze(1) * torch.gather(gates, 1, chosen).reshape(-1, 1)
        out = torch.zeros_like(tokens).index_add(0, owner, y)
        load = gates.gt(0).float().mean(0)
        return out.view_as(x), (load * probs.mean(0)).sum() * probs.shape[-1]


class SwitchRouter(nn.Module):
    """Top-1 routing with an expert capacity: tokens past it are dropped."""

    def __init__(self, dim=8, experts=3, capacity=3):
        super().__init__()
        self.experts, self.capacity = experts, capacity
        self.gate = nn.Linear(dim, experts)
        self.ffn = nn.ModuleList([nn.Linear(dim, dim) for _ in range(experts)])

    def forward(self, x):
        probs = self.gate(x).softmax(-1)
        top, expert = probs.max(-1)
        onehot = F.one_hot(expert, self.experts)
        position = onehot.cumsum(0) * onehot
        kept = (position <= self.capacity).all(-1) & (onehot.sum(-1) > 0)
        out = torch.stack([ffn(x) for ffn in self.ffn], dim=1)
        routed = torch.gather(out, 1, expert[:, None, None].expand(-1, 1, x.shape[-1])).squeeze(1)
        return torch.where(kept[:, None], routed * top[:, None], x), onehot.sum(0)


class DerivedDims(nn.Module):
    """x carries four h-long rows per sample; y is h wide."""

    def forward(self, x, y):
        b = x.shape[0]
        rows = x.reshape(b, 4, -1)
        flat = rows.reshape(b, rows.shape[1] * rows.shape[2])
        return rows * y[:, None, :], flat.sum(-1), F.interpolate(rows, size=y.shape[-1:], mode="linear")


class InferredReshape(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        b, t = x.shape[0], x.shape[1]
        y = self.proj(x.reshape(b, t, -1))
        return y.reshape(b * t, 4, -1).mean(1)


class DataDependentCount(nn.Module):
    def forward(self, x):
        positive = x[x > 0]
        return positive.sum(), x.nonzero().shape[0] * 2


def cases():
    Dim = torch.export.Dim
    batch, seq = Dim("batch", min=1, max=32), Dim("seq", min=2, max=32)
    h = Dim("h", min=2, max=16)
    return [
        Case("nested_dict_list_tuple_outputs", NestedOutputs, inputs=lambda rng: (randn(rng, 3, 6),),
             dynamic_shapes={"x": {0: Dim("batch", min=2, max=32)}}, second=lambda rng: (randn(rng, 7, 6),)),
        Case("keyword_inputs_optional_mask", KeywordInputs,
             inputs=lambda rng: {"features": randn(rng, 2, 4, 5), "mask": rng.random((2, 4)) > 0.4,
                                 "bias": randn(rng, 5)},
             dynamic_shapes={"features": {0: batch, 1: seq}, "mask": {0: batch, 1: seq}, "bias": None},
             second=lambda rng: {"features": randn(rng, 3, 6, 5), "mask": rng.random((3, 6)) > 0.4,
                                 "bias": randn(rng, 5)}),
        Case("tied_weights", TiedAutoencoder, inputs=lambda rng: (rng.integers(0, 20, (2, 5)),),
             dynamic_shapes={"ids": {0: batch, 1: seq}}, second=lambda rng: (rng.integers(0, 20, (3, 4)),)),
        Case("einsum_permuted_operands", EinsumOps, inputs=lambda rng: (randn(rng, 2, 5, 8),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 3, 7, 8),)),
        Case("moe_top2_scatter_gather_index_add", MixtureOfExperts, inputs=lambda rng: (randn(rng, 2, 5, 8),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 3, 3, 8),)),
        Case("switch_top1_router_capacity", SwitchRouter, inputs=lambda rng: (randn(rng, 7, 8),),
             dynamic_shapes={"x": {0: Dim("tokens", min=2, max=64)}}, second=lambda rng: (randn(rng, 12, 8),)),
        Case("derived_dims_4h", DerivedDims, inputs=lambda rng: (randn(rng, 2, 12), randn(rng, 2, 3)),
             dynamic_shapes={"x": {0: batch, 1: 4 * h}, "y": {0: batch, 1: h}},
             second=lambda rng: (randn(rng, 3, 20), randn(rng, 3, 5))),
        Case("reshape_inferred_dim", InferredReshape, inputs=lambda rng: (randn(rng, 2, 3, 4, 4),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 4, 5, 4, 4),)),
        Case("data_dependent_count", DataDependentCount, inputs=lambda rng: (randn(rng, 3, 4),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 6, 4),)),
    ]
