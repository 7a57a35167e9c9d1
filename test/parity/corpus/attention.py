"""Attention: F.scaled_dot_product_attention with boolean and additive masks,
is_causal, fully masked query rows (on given heads, and from left padding)
and grouped-query heads; nn.MultiheadAttention with a key padding mask and
returned weights, and as cross-attention with other key/value widths; a
learned relative-position bias; rotary position embeddings (RoPE)."""


class QKVAttention(nn.Module):
    """Packed QKV projection split the way ViTs do (permute + unbind), then SDPA."""

    def __init__(self, dim=16, heads=2, is_causal=False):
        super().__init__()
        self.heads = heads
        self.is_causal = is_causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        b, t, c = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=self.is_causal)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class LeftPaddedAttention(QKVAttention):
    """Left-padded batch: a padded query sees no key at all (a fully masked row)."""

    def forward(self, x, attention_mask):
        keep = attention_mask.bool()
        t = x.shape[1]
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        mask = keep[:, None, None, :] & keep[:, None, :, None] & causal
        return super().forward(x, mask)


class MaskedRows(nn.Module):
    """SDPA on given heads; the mask hides every key from some queries."""

    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


class GroupedQueryAttention(nn.Module):
    def __init__(self, dim=32, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim, bias=False)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.head_dim, bias=False)
        self.o = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2 * self.kv_heads, self.head_dim).transpose(1, 2).chunk(2, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5, enable_gqa=True)
        return self.o(y.transpose(1, 2).flatten(2))


class PaddedSelfAttention(nn.Module):
    """nn.MultiheadAttention with a key padding mask, returning the averaged weights."""

    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)

    def forward(self, x, key_padding_mask):
        out, weights = self.attn(x, x, x, key_padding_mask=key_padding_mask)
        return out, weights


class CrossAttention(nn.Module):
    """Sequence-first cross-attention; keys and values narrower than queries."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, kdim=12, vdim=8, bias=False)

    def forward(self, query, key, value, attn_mask):
        out, _ = self.attn(query, key, value, attn_mask=attn_mask, need_weights=False)
        return out


class RelativePositionEncoder(nn.Module):
    """Self-attention plus a learned bias per head for each clipped offset j - i."""

    def __init__(self, dim=16, heads=2, max_distance=4):
        super().__init__()
        self.heads, self.max_distance = heads, max_distance
        self.qkv = nn.Linear(dim, 3 * dim)
        self.bias = nn.Embedding(2 * max_distance + 1, heads)
        self.out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3 * self.heads, c // self.heads).transpose(1, 2).split(self.heads, 1)
        positions = torch.arange(t)
        offsets = (positions[None, :] - positions[:, None]).clamp(-self.max_distance, self.max_distance)
        bias = self.bias(offsets + self.max_distance).permute(2, 0, 1)
        scores = q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5 + bias
        y = scores.softmax(-1) @ v
        return self.norm(x + self.out(y.transpose(1, 2).reshape(b, t, c)))


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class RotaryAttention(nn.Module):
    """RoPE on queries and keys (cos/sin computed for the sequence's length)."""

    def __init__(self, dim=16, heads=2, base=10000.0):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        inv_freq = 1.0 / base ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.head_dim).transpose(1, 3).unbind(2)
        freqs = torch.outer(torch.arange(t, dtype=torch.float32), self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, c))


def left_padding(rng, batch, length):
    """A 0/1 int64 mask with each row's padding on the left (row 0 unpadded)."""
    mask = np.ones((batch, length), dtype=np.int64)
    for row in range(1, batch):
        mask[row, : rng.integers(1, length)] = 0
    return mask


def bool_mask(rng, batch, length):
    mask = rng.random((batch, 1, length, length)) > 0.3
    mask[..., 0] = True  # every query keeps a key
    return mask


def masked_rows(rng, batch, length):
    """Heads (batch, 2, length, 4) and a padding mask: the padded queries see no key."""
    keep = left_padding(rng, batch, length).astype(bool)
    mask = keep[:, None, None, :] & keep[:, None, :, None]
    return (*(randn(rng, batch, 2, length, 4) for _ in range(3)), mask)


def cases():
    Dim = torch.export.Dim
    batch, seq = Dim("batch", min=1, max=16), Dim("seq", min=2, max=32)
    memory = Dim("memory", min=2, max=32)
    return [
        Case("sdpa_bool_mask", QKVAttention, inputs=lambda rng: (randn(rng, 2, 6, 16), bool_mask(rng, 2, 6)),
             dynamic_shapes={"x": {0: batch, 1: seq}, "mask": {0: batch, 2: seq, 3: seq}},
             second=lambda rng: (randn(rng, 3, 9, 16), bool_mask(rng, 3, 9))),
        Case("sdpa_additive_mask", QKVAttention,
             inputs=lambda rng: (randn(rng, 2, 6, 16), randn(rng, 6, 6)),
             dynamic_shapes={"x": {0: batch, 1: seq}, "mask": {0: seq, 1: seq}},
             second=lambda rng: (randn(rng, 3, 4, 16), randn(rng, 4, 4))),
        Case("sdpa_causal", lambda: QKVAttention(is_causal=True), inputs=lambda rng: (randn(rng, 2, 6, 16),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 1, 11, 16),)),
        Case("sdpa_left_padding_masked_rows", LeftPaddedAttention,
             inputs=lambda rng: (randn(rng, 3, 6, 16), left_padding(rng, 3, 6)),
             dynamic_shapes={"x": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
             second=lambda rng: (randn(rng, 4, 8, 16), left_padding(rng, 4, 8))),
        Case("sdpa_fully_masked_rows", MaskedRows, inputs=lambda rng: masked_rows(rng, 3, 5),
             dynamic_shapes={name: {0: batch, 2: seq} for name in ("q", "k", "v")} | {
                 "mask": {0: batch, 2: seq, 3: seq}},
             second=lambda rng: masked_rows(rng, 2, 7)),
        Case("sdpa_grouped_query_causal", GroupedQueryAttention, inputs=lambda rng: (randn(rng, 2, 5, 32),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 3, 7, 32),)),
        Case("mha_key_padding_weights", PaddedSelfAttention,
             inputs=lambda rng: (randn(rng, 3, 5, 16), left_padding(rng, 3, 5) == 0),
             dynamic_shapes={"x": {0: batch, 1: seq}, "key_padding_mask": {0: batch, 1: seq}},
             second=lambda rng: (randn(rng, 2, 7, 16), left_padding(rng, 2, 7) == 0)),
        Case("mha_cross_kdim_vdim", CrossAttention,
             inputs=lambda rng: (randn(rng, 4, 2, 16), randn(rng, 6, 2, 12), randn(rng, 6, 2, 8), randn(rng, 4, 6)),
             dynamic_shapes={"query": {0: seq, 1: batch}, "key": {0: memory, 1: batch},
                             "value": {0: memory, 1: batch}, "attn_mask": {0: seq, 1: memory}},
             second=lambda rng: (randn(rng, 3, 1, 16), randn(rng, 8, 1, 12), randn(rng, 8, 1, 8),
                                 randn(rng, 3, 8))),
        Case("relative_position_encoder", RelativePositionEncoder, inputs=lambda rng: (randn(rng, 2, 6, 16),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 1, 11, 16),)),
        Case("rope_causal_attention", RotaryAttention, inputs=lambda rng: (randn(rng, 2, 6, 16),),
             dynamic_shapes={"x": {0: batch, 1: seq}}, second=lambda rng: (randn(rng, 3, 9, 16),)),
    ]
