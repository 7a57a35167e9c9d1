"""Generative models: a convolutional VAE (reparameterised with given noise,
dict output), a diffusion UNet block (sinusoidal timestep embedding, GroupNorm,
SiLU, spatial self-attention), a DCGAN generator in train mode (transposed
convolutions, BatchNorm), and a sub-pixel super-resolution net (PixelShuffle)."""


class ConvVAE(nn.Module):
    def __init__(self, latent=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 4, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(4, 8, 3, 2, 1),
                                     nn.LeakyReLU(0.2), nn.Flatten())
        self.to_stats = nn.Linear(8 * 4 * 4, 2 * latent)
        self.from_latent = nn.Linear(latent, 8 * 4 * 4)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(8, 4, 4, 2, 1), nn.ReLU(),
                                     nn.ConvTranspose2d(4, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, x, noise):
        mu, logvar = self.to_stats(self.encoder(x)).chunk(2, dim=-1)
        z = mu + noise * torch.exp(0.5 * logvar)
        recon = self.decoder(self.from_latent(z).view(-1, 8, 4, 4))
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)
        return {"recon": recon, "mu": mu, "logvar": logvar, "kl": kl.mean()}


def timestep_embedding(t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-torch.log(torch.tensor(float(max_period))) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(4, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.time = nn.Linear(tdim, cout)
        self.norm2, self.conv2 = nn.GroupNorm(4, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1)

    def forward(self, x, temb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.time(F.silu(temb))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


class SpatialSelfAttention(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.GroupNorm(4, channels)
        self.qkv = nn.Conv2d(channels, 3 * channels, 1)
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, 3, c, h * w).transpose(-1, -2).unbind(1)
        y = F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None])[:, 0]
        return x + self.proj(y.transpose(-1, -2).reshape(b, c, h, w))


class DiffusionBlock(nn.Module):
    def __init__(self, cin=4, cout=8, tdim=16):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, 2 * tdim), nn.SiLU(), nn.Linear(2 * tdim, tdim))
        self.res = ResBlock(cin, cout, tdim)
        self.attn = SpatialSelfAttention(cout)
        self.down = nn.Conv2d(cout, cout, 3, stride=2, padding=1)

    def forward(self, x, t):
        temb = self.time_mlp(timestep_embedding(t, self.tdim))
        h = self.attn(self.res(x, temb))
        return h, self.down(h)


class DCGANGenerator(nn.Module):
    def __init__(self, latent=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(latent, 16, 4, 1, 0, bias=False), nn.BatchNorm2d(16), nn.ReLU(True),
            nn.ConvTranspose2d(16, 8, 4, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True),
            nn.ConvTranspose2d(8, 3, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, z):
        return self.net(z[:, :, None, None])


class SubPixelSR(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 16, 5, padding=2), nn.Tanh(), nn.Conv2d(16, 8, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(8, 3 * scale ** 2, 3, padding=1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        base = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return base + self.shuffle(self.body(x))


def cases():
    Dim = torch.export.Dim
    batch = Dim("batch", min=1, max=16)
    h, w = Dim("h", min=2, max=32), Dim("w", min=2, max=32)
    return [
        Case("vae_dict_output", ConvVAE, inputs=lambda rng: (randn(rng, 2, 1, 16, 16), randn(rng, 2, 4)),
             dynamic_shapes={"x": {0: batch}, "noise": {0: batch}},
             second=lambda rng: (randn(rng, 5, 1, 16, 16), randn(rng, 5, 4))),
        Case("diffusion_unet_block", DiffusionBlock,
             inputs=lambda rng: (randn(rng, 2, 4, 6, 6), np.array([3.0, 250.0], dtype=np.float32)),
             dynamic_shapes={"x": {0: batch, 2: 2 * h, 3: 2 * w}, "t": {0: batch}},
             second=lambda rng: (randn(rng, 3, 4, 4, 8), np.array([0.0, 17.0, 999.0], dtype=np.float32))),
        Case("dcgan_generator_train", DCGANGenerator, train=True, inputs=lambda rng: (randn(rng, 3, 8),),
             dynamic_shapes={"z": {0: Dim("batch", min=2, max=16)}}, second=lambda rng: (randn(rng, 6, 8),)),
        Case("pixel_shuffle_super_resolution", SubPixelSR, inputs=lambda rng: (randn(rng, 2, 3, 6, 6),),
             dynamic_shapes={"x": {0: batch, 2: h, 3: w}}, second=lambda rng: (randn(rng, 1, 3, 5, 9),)),
    ]
