"""Text models: a BERT-style encoder (padding mask, token types, pooler, called
with keywords), a GPT-style decoder (causal mask buffer, tied lm_head), a
left-padded decoder (positions from the mask's cumsum, fully masked rows),
Llama-style blocks (RoPE, SwiGLU, grouped-query heads; RMSNorm written by hand
and nn.RMSNorm), a text classifier (masked mean pooling), and an EmbeddingBag
classifier with offsets."""


class BertLayer(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.query, self.key, self.value = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
        self.attn_out = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.ln2 = nn.LayerNorm(dim, eps=1e-12)

    def split_heads(self, x):
        b, t, c = x.shape
        return x.view(b, t, self.heads, c // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, extended_mask):
        q, k, v = self.split_heads(self.query(x)), self.split_heads(self.key(x)), self.split_heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / (q.shape[-1] ** 0.5) + extended_mask
        context = torch.matmul(nn.functional.softmax(scores, dim=-1), v)
        context = context.permute(0, 2, 1, 3).contiguous()
        context = context.view(*context.shape[:-2], -1)
        x = self.ln1(x + self.attn_out(context))
        return self.ln2(x + self.ffn(x))


class BertEncoder(nn.Module):
    def __init__(self, vocab=50, dim=16, heads=2, layers=1, max_len=32):
        super().__init__()
        self.word = nn.Embedding(vocab, dim, padding_idx=0)
        self.position = nn.Embedding(max_len, dim)
        self.token_type = nn.Embedding(2, dim)
        self.ln = nn.LayerNorm(dim, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(dim, heads) for _ in range(layers)])
        self.pooler = nn.Linear(dim, dim)
        self.register_buffer("position_ids", torch.arange(max_len).expand((1, -1)), persistent=False)

    def forward(self, input_ids, attention_mask, token_type_ids):
        t = input_ids.shape[1]
        x = self.word(input_ids) + self.token_type(token_type_ids) + self.position(self.position_ids[:, :t])
        x = self.ln(x)
        extended = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, extended)
        return {"last_hidden_state": x, "pooler_output": torch.tanh(self.pooler(x[:, 0]))}


class GPTBlock(nn.Module):
    def __init__(self, dim, heads, block_size):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"), nn.Linear(4 * dim, dim))
        mask = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)
        self.register_buffer("bias", mask)

    def attention(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=64, dim=16, heads=2, layers=1, block_size=32):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(block_size, dim)
        self.blocks = nn.ModuleList([GPTBlock(dim, heads, block_size) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class LeftPaddedDecoder(nn.Module):
    """Batched generation's prefill: left padding, positions counted from the
    first real token, a causal-and-padding additive mask built with finfo.min."""

    def __init__(self, vocab=40, dim=16, heads=2, max_len=32):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, attention_mask):
        b, t = input_ids.shape
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        x = self.embed(input_ids) + self.pos(position_ids)
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool))
        allowed = causal[None, None] & attention_mask[:, None, None, :].bool()
        mask = torch.zeros(b, 1, t, t).masked_fill(~allowed, torch.finfo(torch.float32).min)
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = self.norm(x + self.out(y.transpose(1, 2).reshape(b, t, -1)))
        return self.head(x[:, -1])


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class RMSNorm(nn.Module):
    """The hand-written RMSNorm of Llama ports (statistics in float32)."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return self.weight * (x.float() * torch.rsqrt(variance + self.eps)).to(x.dtype)


class LlamaBlock(nn.Module):
    def __init__(self, norm, dim=32, heads=4, kv_heads=2, hidden=48):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.input_norm = norm(dim, eps=1e-6)
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.post_norm = norm(dim, eps=1e-6)
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)
        inv_freq = 1.0 / (10000 ** (torch.arange(0, self.head_dim, 2, dtype=torch.int64).float() / self.head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def rope(self, position_ids):
        freqs = (self.inv_freq[None, :, None] @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos()[:, None], emb.sin()[:, None]

    def attention(self, x, position_ids):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        cos, sin = self.rope(position_ids)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(self.heads // self.kv_heads, dim=1)
        v = v.repeat_interleave(self.heads // self.kv_heads, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, -1))

    def forward(self, x, position_ids):
        x = x + self.attention(self.input_norm(x), position_ids)
        h = self.post_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class TextClassifier(nn.Module):
    """Embedding (padding index 0), masked mean over tokens, MLP, log-probabilities."""

    def __init__(self, vocab=60, dim=16, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.fc = nn.Linear(dim, 32)
        self.out = nn.Linear(32, classes)

    def forward(self, tokens):
        mask = (tokens != 0).unsqueeze(-1).float()
        pooled = (self.embed(tokens) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return F.log_softmax(self.out(F.relu(self.fc(pooled))), dim=-1)


class BagClassifier(nn.Module):
    """The torch text tutorial's model: a flat token stream with bag offsets."""

    def __init__(self, vocab=60, dim=16, classes=4):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.fc = nn.Linear(dim, classes)

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


def tokens(rng, batch, length, vocab, pad=True):
    ids = rng.integers(1, vocab, (batch, length), dtype=np.int64)
    if pad:
        for row in range(1, batch):
            ids[row, rng.integers(1, length):] = 0
    return ids


def bert_inputs(rng, batch, length):
    ids = tokens(rng, batch, length, 50)
    return {"input_ids": ids, "attention_mask": (ids != 0).astype(np.int64),
            "token_type_ids": (np.arange(length)[None, :] >= length // 2).repeat(batch, 0).astype(np.int64)}


def left_padded(rng, batch, length, vocab):
    mask = np.ones((batch, length), dtype=np.int64)
    for row in range(1, batch):
        mask[row, : rng.integers(1, length)] = 0
    return tokens(rng, batch, length, vocab, pad=False) * mask, mask


def bag_inputs(rng, bags):
    lengths = rng.integers(1, 5, bags)
    return rng.integers(0, 60, lengths.sum(), dtype=np.int64), np.concatenate([[0], lengths.cumsum()[:-1]])


def llama_inputs(rng):
    return randn(rng, 2, 6, 32), np.arange(6)[None].repeat(2, 0)


def llama_second(rng):
    return randn(rng, 1, 9, 32), np.arange(3, 12)[None]


def cases():
    Dim = torch.export.Dim
    batch, seq = Dim("batch", min=1, max=16), Dim("seq", min=2, max=16)
    llama_dims = {"x": {0: batch, 1: seq}, "position_ids": {0: batch, 1: seq}}
    bert_dims = {name: {0: batch, 1: seq} for name in ("input_ids", "attention_mask", "token_type_ids")}
    return [
        Case("bert_encoder_padding_kwargs", BertEncoder, inputs=lambda rng: bert_inputs(rng, 3, 7),
             dynamic_shapes=bert_dims, second=lambda rng: bert_inputs(rng, 2, 11)),
        Case("gpt_decoder_tied_head", GPT, inputs=lambda rng: (tokens(rng, 2, 8, 64, pad=False),),
             dynamic_shapes={"idx": {0: batch, 1: seq}}, second=lambda rng: (tokens(rng, 3, 5, 64, pad=False),)),
        Case("left_padded_decoder", LeftPaddedDecoder, inputs=lambda rng: left_padded(rng, 3, 6, 40),
             dynamic_shapes={"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
             second=lambda rng: left_padded(rng, 4, 9, 40)),
        Case("llama_block_rmsnorm_rope_swiglu", lambda: LlamaBlock(RMSNorm), inputs=llama_inputs,
             dynamic_shapes=llama_dims, second=llama_second),
        Case("llama_block_nn_rmsnorm", lambda: LlamaBlock(nn.RMSNorm), inputs=llama_inputs,
             dynamic_shapes=llama_dims, second=llama_second),
        Case("text_classifier_masked_mean", TextClassifier, inputs=lambda rng: (tokens(rng, 4, 7, 60),),
             dynamic_shapes={"tokens": {0: batch, 1: seq}}, second=lambda rng: (tokens(rng, 2, 12, 60),)),
        Case("embedding_bag_offsets", BagClassifier, inputs=lambda rng: bag_inputs(rng, 3),
             dynamic_shapes={"text": {0: Dim("tokens", min=2, max=64)}, "offsets": {0: Dim("bags", min=2, max=16)}},
             second=lambda rng: bag_inputs(rng, 5)),
    ]
