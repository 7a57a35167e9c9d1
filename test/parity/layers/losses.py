"""Losses, one call each: cross entropy with class indices (2-D and sequence
3-D inputs, weights, ignore_index, label smoothing), with class probabilities,
nll, mse, smooth l1, binary cross entropy; and the loss modules (torch's
loss.py), with their weight buffers and constructor options."""


class Loss(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn
        self.register_buffer("weight", torch.ones(5) + torch.arange(5) / 4)

    def forward(self, x, target):
        return self.fn(x, target, self.weight)


def _logits(rng):
    return rng.standard_normal((4, 5), dtype=np.float32)


def _classes(rng):
    return np.array([0, 3, -100, 4])


def cases():
    losses = {
        "cross_entropy": (lambda x, t, w: F.cross_entropy(x, t), _classes),
        "cross_entropy_weighted": (lambda x, t, w: F.cross_entropy(x, t, weight=w), _classes),
        "cross_entropy_sum": (lambda x, t, w: F.cross_entropy(x, t, reduction="sum"), _classes),
        "cross_entropy_none": (lambda x, t, w: F.cross_entropy(x, t, reduction="none"), _classes),
        "cross_entropy_smoothing": (lambda x, t, w: F.cross_entropy(x, t, label_smoothing=0.1), _classes),
        "cross_entropy_weighted_smoothing": (lambda x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2),
                                             _classes),
        "cross_entropy_probabilities": (lambda x, t, w: F.cross_entropy(x, t.softmax(-1)),
                                        lambda rng: rng.standard_normal((4, 5), dtype=np.float32)),
        "nll": (lambda x, t, w: F.nll_loss(F.log_softmax(x, -1), t), _classes),
        "mse": (lambda x, t, w: F.mse_loss(x, t), lambda rng: rng.standard_normal((4, 5), dtype=np.float32)),
        "smooth_l1": (lambda x, t, w: F.smooth_l1_loss(x, t), lambda rng: rng.standard_normal((4, 5), dtype=np.float32)),
        "bce_with_logits": (lambda x, t, w: F.binary_cross_entropy_with_logits(x, t),
                            lambda rng: rng.random((4, 5), dtype=np.float32)),
    }
    cases = [Case(name, (lambda fn=fn: Loss(fn)), inputs=(lambda rng, target=target: (_logits(rng), target(rng))))
             for name, (fn, target) in losses.items()]
    cases += _module_cases()
    cases.append(Case(
        "cross_entropy_sequence", lambda: Loss(lambda x, t, w: F.cross_entropy(x.transpose(1, 2), t)),
        inputs=lambda rng: (rng.standard_normal((2, 6, 5), dtype=np.float32), rng.integers(0, 5, (2, 6))),
        dynamic_shapes=_sequence_dims(),
        second=lambda rng: (rng.standard_normal((2, 9, 5), dtype=np.float32), rng.integers(0, 5, (2, 9)))))
    return cases


def _sequence_dims():
    seq = torch.export.Dim("seq", min=2, max=64)
    return {"x": {1: seq}, "target": {1: seq}}


def _normal(rng):
    return rng.standard_normal((4, 5), dtype=np.float32)


def _unit(rng):
    return rng.random((4, 5), dtype=np.float32) * 0.98 + 0.01


def _module_cases():
    """Each loss module: (name, build, input maker, target maker)."""
    def weight():
        return torch.ones(5) + torch.arange(5) / 4

    modules = {
        "L1Loss": (lambda: torch.nn.L1Loss(), _normal, _normal),
        "L1Loss_sum": (lambda: torch.nn.L1Loss(reduction="sum"), _normal, _normal),
        "MSELoss": (lambda: torch.nn.MSELoss(), _normal, _normal),
        "MSELoss_none": (lambda: torch.nn.MSELoss(reduction="none"), _normal, _normal),
        "SmoothL1Loss": (lambda: torch.nn.SmoothL1Loss(beta=0.5), _normal, _normal),
        "HuberLoss": (lambda: torch.nn.HuberLoss(delta=0.7), _normal, _normal),
        "BCELoss": (lambda: torch.nn.BCELoss(), _unit, _unit),
        "BCELoss_weighted": (lambda: torch.nn.BCELoss(weight=weight(), reduction="sum"), _unit, _unit),
        "BCEWithLogitsLoss": (lambda: torch.nn.BCEWithLogitsLoss(), _normal, _unit),
        "BCEWithLogitsLoss_weights": (lambda: torch.nn.BCEWithLogitsLoss(weight=weight(), pos_weight=weight() * 2),
                                      _normal, _unit),
        "CrossEntropyLoss": (lambda: torch.nn.CrossEntropyLoss(), _normal, _classes),
        "CrossEntropyLoss_options": (lambda: torch.nn.CrossEntropyLoss(weight=weight(), ignore_index=3,
                                                                       reduction="sum", label_smoothing=0.1),
                                     _normal, lambda rng: np.array([0, 3, 1, 3])),
        "NLLLoss": (lambda: torch.nn.NLLLoss(), _normal, _classes),
        "NLLLoss_weighted": (lambda: torch.nn.NLLLoss(weight=weight(), reduction="none"), _normal, _classes),
    }
    cases = [Case(f"module_{name}", build, inputs=(lambda rng, x=x, t=t: (x(rng), t(rng))))
             for name, (build, x, t) in modules.items()]
    cases += [
        Case("module_SoftMarginLoss", lambda: torch.nn.SoftMarginLoss(), inputs=lambda rng: (_normal(rng), _signs(rng))),
        Case("module_SoftMarginLoss_none", lambda: torch.nn.SoftMarginLoss(reduction="none"),
             inputs=lambda rng: (_normal(rng), _signs(rng))),
        Case("module_KLDivLoss", lambda: torch.nn.KLDivLoss(), inputs=lambda rng: (_normal(rng), _unit(rng))),
        Case("module_KLDivLoss_batchmean", lambda: torch.nn.KLDivLoss(reduction="batchmean"),
             inputs=lambda rng: (_normal(rng), _unit(rng))),
        Case("module_KLDivLoss_log_target", lambda: torch.nn.KLDivLoss(reduction="sum", log_target=True),
             inputs=lambda rng: (_normal(rng), _normal(rng))),
        Case("module_KLDivLoss_zero_target", lambda: torch.nn.KLDivLoss(reduction="none"),
             inputs=lambda rng: (_normal(rng), np.where(_unit(rng) < 0.3, 0, _unit(rng)).astype(np.float32))),
        Case("module_PoissonNLLLoss", lambda: torch.nn.PoissonNLLLoss(), inputs=lambda rng: (_normal(rng), _counts(rng))),
        Case("module_PoissonNLLLoss_full", lambda: torch.nn.PoissonNLLLoss(log_input=False, full=True, reduction="sum"),
             inputs=lambda rng: (_unit(rng) * 4, _counts(rng))),
        Case("module_PoissonNLLLoss_none", lambda: torch.nn.PoissonNLLLoss(full=True, reduction="none"),
             inputs=lambda rng: (_normal(rng), _counts(rng))),
        Case("module_GaussianNLLLoss_float_var", lambda: _FixedVar(torch.nn.GaussianNLLLoss(full=True), 0.5),
             inputs=lambda rng: (_normal(rng), _normal(rng))),
        Case("module_GaussianNLLLoss_small_var", lambda: _FixedVar(torch.nn.GaussianNLLLoss(eps=0.1, reduction="none"),
                                                                   0.01),
             inputs=lambda rng: (_normal(rng), _normal(rng))),
        Case("module_MarginRankingLoss", lambda: torch.nn.MarginRankingLoss(margin=0.3),
             inputs=lambda rng: (_normal(rng), _normal(rng), _signs(rng))),
        Case("module_MarginRankingLoss_sum", lambda: torch.nn.MarginRankingLoss(reduction="sum"),
             inputs=lambda rng: (_normal(rng), _normal(rng), _signs(rng))),
    ]
    return cases


def _signs(rng):
    return np.where(rng.random((4, 5)) < 0.5, -1.0, 1.0).astype(np.float32)


def _counts(rng):
    return rng.integers(0, 6, (4, 5)).astype(np.float32)


class _FixedVar(torch.nn.Module):
    """GaussianNLLLoss with a float variance (a tensor one is data-dependent: torch.export
    cannot guard its any(var < 0) check)."""

    def __init__(self, loss, var) -> None:
        super().__init__()
        self.loss = loss
        self.var = var

    def forward(self, x, target):
        return self.loss(x, target, self.var)
