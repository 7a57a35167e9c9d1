"""State: buffers updated in forward (lerp_, an EMA through mul_/add_, copy_,
indexed writes into a ring buffer and a KV cache), BatchNorm in train mode
(with and without affine parameters), in-place ops on intermediates
and slice assignment, and a user input mutated in place."""


class LerpEMA(nn.Module):
    """Tracks the mean of the batches it sees; centres its input with it."""

    def __init__(self, dim=6):
        super().__init__()
        self.register_buffer("ema", torch.zeros(dim))
        self.register_buffer("steps", torch.tensor(0))

    def forward(self, x):
        self.ema.lerp_(x.mean(0), 0.1)
        self.steps += 1
        return x - self.ema, self.ema.lerp(x.amax(0), 0.5)


class LerpCopyEMA(LerpEMA):
    """The same average, written out of place and copied into the buffer."""

    def forward(self, x):
        self.ema.copy_(torch.lerp(self.ema, x.mean(0), 0.1))
        self.steps.add_(1)
        return x - self.ema


class RunningMoments(nn.Module):
    def __init__(self, dim=5, momentum=0.2):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.register_buffer("last", torch.zeros(dim))

    def forward(self, x):
        mean, var = x.mean(0), x.var(0, unbiased=False)
        self.mean.mul_(1 - self.momentum).add_(mean, alpha=self.momentum)
        self.var.mul_(1 - self.momentum).add_(self.momentum * var)
        self.last.copy_(x[-1].detach())
        return (x - self.mean) / torch.sqrt(self.var + 1e-5)


class RingBuffer(nn.Module):
    """Writes each call's summary at a pointer kept in a buffer."""

    def __init__(self, slots=4, dim=3):
        super().__init__()
        self.slots = slots
        self.register_buffer("history", torch.zeros(slots, dim))
        self.register_buffer("pointer", torch.zeros(1, dtype=torch.long))

    def forward(self, x):
        self.history.index_copy_(0, self.pointer, x.mean(0, keepdim=True))
        self.history[:, 0] += 1.0
        self.pointer.copy_((self.pointer + 1) % self.slots)
        return self.history.sum(0) + x


class KVCacheAttention(nn.Module):
    """One decoding step: writes this token's key and value at `position`
    into the cache buffers, then attends over the cache up to it."""

    def __init__(self, dim=8, max_batch=4, max_len=6):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.register_buffer("k_cache", torch.zeros(max_batch, max_len, dim))
        self.register_buffer("v_cache", torch.zeros(max_batch, max_len, dim))

    def forward(self, x, position):
        b = x.shape[0]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k_cache[:b, position] = k
        self.v_cache[:b, position] = v
        keys, values = self.k_cache[:b], self.v_cache[:b]
        scores = q @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5
        visible = torch.arange(keys.shape[1]) <= position
        scores = scores.masked_fill(~visible, float("-inf"))
        return scores.softmax(-1) @ values


class InplaceIntermediates(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 12)

    def forward(self, x):
        y = self.fc(x)
        y.relu_()
        y[:, :4] = 0.0
        y[:, 4:8] *= 2.0
        y.add_(1.0).clamp_(max=3.0)
        flat = y.view(-1)
        flat[0] = 5.0
        y[y > 2.5] = 2.5
        z = y.clone()
        z.masked_fill_(z < 1.2, -1.0)
        z[:, -1:] = x[:, :1]
        return y, z


class InputMutation(nn.Module):
    """Normalises its input in place (the caller sees the change) and returns a sum."""

    def forward(self, x, counts):
        x.sub_(x.mean(-1, keepdim=True))
        x[:, 0] = 0.0
        counts.add_(1)
        return x.sum(-1)


class BatchNormMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.bn1 = nn.Linear(6, 10), nn.BatchNorm1d(10)
        self.fc2, self.bn2 = nn.Linear(10, 4), nn.BatchNorm1d(4, momentum=0.3, affine=False)

    def forward(self, x):
        return self.bn2(self.fc2(F.relu(self.bn1(self.fc1(x)))))


class ConvBNResidual(nn.Module):
    """A ResNet basic block with a 1x1 strided shortcut, in train mode."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(4, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8)
        self.shortcut = nn.Sequential(nn.Conv2d(4, 8, 1, 2, bias=False), nn.BatchNorm2d(8))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


def cases():
    Dim = torch.export.Dim
    batch = Dim("batch", min=2, max=16)
    return [
        Case("ema_lerp_buffer", LerpEMA, inputs=lambda rng: (randn(rng, 4, 6),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 7, 6),)),
        Case("ema_lerp_out_of_place_copy", LerpCopyEMA, inputs=lambda rng: (randn(rng, 4, 6),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 7, 6),)),
        Case("running_moments_copy", RunningMoments, inputs=lambda rng: (randn(rng, 4, 5),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 9, 5),)),
        Case("ring_buffer_index_copy", RingBuffer, inputs=lambda rng: (randn(rng, 2, 3),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 5, 3),)),
        Case("kv_cache_indexed_write", KVCacheAttention,
             inputs=lambda rng: (randn(rng, 2, 1, 8), np.array([3])),
             dynamic_shapes={"x": {0: Dim("batch", min=1, max=4)}, "position": None},
             second=lambda rng: (randn(rng, 3, 1, 8), np.array([5]))),
        Case("inplace_intermediates_slice_assign", InplaceIntermediates, inputs=lambda rng: (randn(rng, 3, 8),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 6, 8),)),
        Case("user_input_mutation", InputMutation,
             inputs=lambda rng: (randn(rng, 3, 4), np.zeros(3, dtype=np.int64)),
             dynamic_shapes={"x": {0: batch}, "counts": {0: batch}},
             second=lambda rng: (randn(rng, 5, 4), np.arange(5))),
        Case("batchnorm1d_train", BatchNormMLP, train=True, inputs=lambda rng: (randn(rng, 5, 6),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 8, 6),)),
        Case("resnet_block_train", ConvBNResidual, train=True, inputs=lambda rng: (randn(rng, 2, 4, 8, 8),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 3, 4, 8, 8),)),
    ]
