"""Vision models: a ViT with a class token and nn.MultiheadAttention, UNets
(interpolate to the skip's size, cat; spatial dims derived as 4*h, and AUTO),
MobileNetV2/V3 blocks (depthwise conv, ReLU6, hardswish, squeeze-excite),
a ConvNeXt stage (7x7 depthwise, channels-last LayerNorm through permute),
GroupNorm/InstanceNorm, and a fast style-transfer net (reflection padding,
instance norm, nearest upsampling)."""


class ViTBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class ViT(nn.Module):
    def __init__(self, image=16, patch=4, dim=32, depth=1, heads=4, classes=10):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, dim) * 0.02)
        self.blocks = nn.ModuleList([ViTBlock(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    """Two downsamplings; each decoder stage upsamples to its skip's size."""

    def __init__(self, cin=3, base=4, classes=2):
        super().__init__()
        self.enc1 = DoubleConv(cin, base)
        self.enc2 = DoubleConv(base, 2 * base)
        self.bottleneck = DoubleConv(2 * base, 4 * base)
        self.pool = nn.MaxPool2d(2)
        self.dec2 = DoubleConv(6 * base, 2 * base)
        self.dec1 = DoubleConv(3 * base, base)
        self.out = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottleneck(self.pool(e2))
        u2 = F.interpolate(b, size=e2.shape[-2:], mode="bilinear", align_corners=False)
        d2 = self.dec2(torch.cat([u2, e2], dim=1))
        u1 = F.interpolate(d2, size=e1.shape[-2:], mode="nearest")
        d1 = self.dec1(torch.cat([u1, e1], dim=1))
        return self.out(d1)


class InvertedResidual(nn.Module):
    """MobileNetV2: 1x1 expand, 3x3 depthwise, 1x1 linear projection, residual."""

    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_residual = stride == 1 and cin == cout
        self.conv = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU6(inplace=True),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return x + self.conv(x) if self.use_residual else self.conv(x)


class SqueezeExcite(nn.Module):
    def __init__(self, channels, reduced):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, reduced, 1)
        self.fc2 = nn.Conv2d(reduced, channels, 1)

    def forward(self, x):
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = F.hardsigmoid(self.fc2(F.relu(self.fc1(scale))))
        return x * scale


class MobileNetV3Block(nn.Module):
    def __init__(self, cin, hidden, cout, kernel, stride):
        super().__init__()
        self.use_residual = stride == 1 and cin == cout
        self.expand = nn.Sequential(nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.Hardswish())
        self.depthwise = nn.Sequential(
            nn.Conv2d(hidden, hidden, kernel, stride, kernel // 2, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), nn.Hardswish())
        self.se = SqueezeExcite(hidden, hidden // 4)
        self.project = nn.Sequential(nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.project(self.se(self.depthwise(self.expand(x))))
        return x + y if self.use_residual else y


class MobileNetV3Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.Hardswish())
        self.blocks = nn.Sequential(MobileNetV3Block(8, 24, 12, 5, 2), MobileNetV3Block(12, 36, 12, 3, 1))
        self.classifier = nn.Sequential(nn.Linear(12, 32), nn.Hardswish(), nn.Linear(32, 5))

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.classifier(F.adaptive_avg_pool2d(x, 1).flatten(1))


class ChannelsFirstLayerNorm(nn.LayerNorm):
    """LayerNorm over channels of an NCHW tensor, through a permute as ConvNeXt does."""

    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.full((dim,), 0.5))

    def forward(self, x):
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.pwconv2(self.act(self.pwconv1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


class ConvNeXtStage(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 2, stride=2), ChannelsFirstLayerNorm(8, eps=1e-6))
        self.blocks = nn.Sequential(ConvNeXtBlock(8), ConvNeXtBlock(8))
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(x.mean([-2, -1]))


class NormZoo(nn.Module):
    """GroupNorm and InstanceNorm (with and without running statistics)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.group = nn.GroupNorm(4, 8)
        self.instance = nn.InstanceNorm2d(8, affine=True)
        self.tracked = nn.InstanceNorm2d(8, track_running_stats=True)

    def forward(self, x):
        y = F.silu(self.group(self.conv(x)))
        return self.tracked(self.instance(y) + y)


class StyleConv(nn.Module):
    def __init__(self, cin, cout, kernel, stride=1, upsample=False):
        super().__init__()
        self.upsample = upsample
        self.pad = nn.ReflectionPad2d(kernel // 2)
        self.conv = nn.Conv2d(cin, cout, kernel, stride)
        self.norm = nn.InstanceNorm2d(cout, affine=True)

    def forward(self, x):
        if self.upsample:
            x = F.interpolate(x, scale_factor=2, mode="nearest")
        return F.relu(self.norm(self.conv(self.pad(x))))


class StyleTransfer(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Sequential(StyleConv(3, 8, 5), StyleConv(8, 16, 3, stride=2))
        self.res = StyleConv(16, 16, 3)
        self.up = StyleConv(16, 8, 3, upsample=True)
        self.out = nn.Conv2d(8, 3, 5, padding=2, padding_mode="reflect")

    def forward(self, x):
        y = self.down(x)
        y = y + self.res(y)
        return torch.sigmoid(self.out(self.up(y)))


def cases():
    Dim = torch.export.Dim
    batch = Dim("batch", min=1, max=32)
    h, w = Dim("h", min=2, max=64), Dim("w", min=2, max=64)
    return [
        Case("vit_cls_token_mha", ViT, inputs=lambda rng: (randn(rng, 2, 3, 16, 16),),
             dynamic_shapes={"x": {0: batch}}, second=lambda rng: (randn(rng, 3, 3, 16, 16),)),
        Case("unet_spatial_4h", UNet, train=True, inputs=lambda rng: (randn(rng, 2, 3, 16, 12),),
             dynamic_shapes={"x": {0: batch, 2: 4 * h, 3: 4 * w}},
             second=lambda rng: (randn(rng, 1, 3, 8, 20),)),
        Case("unet_odd_sizes_auto", UNet, inputs=lambda rng: (randn(rng, 1, 3, 13, 10),),
             dynamic_shapes={"x": {0: Dim.STATIC, 2: Dim.AUTO, 3: Dim.AUTO}},
             second=lambda rng: (randn(rng, 1, 3, 11, 17),)),
        Case("mobilenetv2_blocks_train", lambda: nn.Sequential(InvertedResidual(8, 8, 1, 4),
                                                               InvertedResidual(8, 12, 2, 4)),
             train=True, inputs=lambda rng: (randn(rng, 2, 8, 8, 8),),
             dynamic_shapes={"input": {0: batch}}, second=lambda rng: (randn(rng, 5, 8, 8, 8),)),
        Case("mobilenetv3_small_eval", MobileNetV3Small, inputs=lambda rng: (randn(rng, 2, 3, 16, 16),),
             dynamic_shapes={"x": {0: batch, 2: 4 * h, 3: 4 * w}},
             second=lambda rng: (randn(rng, 3, 3, 12, 20),)),
        Case("convnext_stage", ConvNeXtStage, inputs=lambda rng: (randn(rng, 2, 3, 12, 12),),
             dynamic_shapes={"x": {0: batch, 2: 2 * h, 3: 2 * w}},
             second=lambda rng: (randn(rng, 1, 3, 10, 16),)),
        Case("group_and_instance_norm_train", NormZoo, train=True, inputs=lambda rng: (randn(rng, 2, 3, 6, 6),),
             dynamic_shapes={"x": {0: batch, 2: h, 3: w}}, second=lambda rng: (randn(rng, 3, 3, 5, 7),)),
        Case("style_transfer", StyleTransfer, inputs=lambda rng: (randn(rng, 1, 3, 12, 12),),
             dynamic_shapes={"x": {2: 2 * h, 3: 2 * w}}, second=lambda rng: (randn(rng, 1, 3, 8, 16),)),
    ]
