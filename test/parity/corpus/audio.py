"""1-D signal models over a dynamic time axis: a Conv1d audio classifier
(strided convolutions, BatchNorm1d in train mode, average and adaptive average
pooling) and a WaveNet-style stack (causal dilated convolutions through left
padding, gated tanh/sigmoid units, residual and skip sums, avg_pool1d)."""


class AudioClassifier(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 8, 9, stride=2, padding=4), nn.BatchNorm1d(8), nn.ReLU(),
            nn.AvgPool1d(2),
            nn.Conv1d(8, 16, 5, stride=2, padding=2), nn.BatchNorm1d(16), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1))
        self.head = nn.Linear(16, classes)

    def forward(self, wave):
        return self.head(self.features(wave).squeeze(-1))


class GatedResidual(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.dilation = dilation
        self.filter = nn.Conv1d(channels, channels, 2, dilation=dilation)
        self.gate = nn.Conv1d(channels, channels, 2, dilation=dilation)
        self.residual = nn.Conv1d(channels, channels, 1)
        self.skip = nn.Conv1d(channels, channels, 1)

    def forward(self, x):
        padded = F.pad(x, (self.dilation, 0))
        h = torch.tanh(self.filter(padded)) * torch.sigmoid(self.gate(padded))
        return x + self.residual(h), self.skip(h)


class WaveNetStack(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.layers = nn.ModuleList([GatedResidual(channels, d) for d in (1, 2, 4)])
        self.out = nn.Conv1d(channels, 4, 1)

    def forward(self, wave):
        x = self.inp(wave)
        skips = 0
        for layer in self.layers:
            x, skip = layer(x)
            skips = skips + skip
        logits = self.out(F.relu(skips))
        return logits, F.avg_pool1d(logits, 4)


def cases():
    Dim = torch.export.Dim
    batch = Dim("batch", min=2, max=16)
    return [
        Case("conv1d_audio_classifier_train", AudioClassifier, train=True,
             inputs=lambda rng: (randn(rng, 2, 1, 64),),
             dynamic_shapes={"wave": {0: batch, 2: 8 * Dim("frames", min=2, max=512)}},
             second=lambda rng: (randn(rng, 3, 1, 96),)),
        Case("wavenet_gated_dilated", WaveNetStack, inputs=lambda rng: (randn(rng, 2, 1, 32),),
             dynamic_shapes={"wave": {0: batch, 2: 4 * Dim("frames", min=2, max=512)}},
             second=lambda rng: (randn(rng, 3, 1, 20),)),
    ]
