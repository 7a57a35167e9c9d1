"""Embedding bags: each mode, offsets or 2-D input, padding_idx, per-sample weights."""


class Bag(torch.nn.Module):
    def __init__(self, bag) -> None:
        super().__init__()
        self.bag = bag

    def forward(self, indices, offsets):
        return self.bag(indices, offsets)


class WeightedBag(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="sum")

    def forward(self, indices, offsets, weights):
        return self.bag(indices, offsets, per_sample_weights=weights)


class FixedLengthBag(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="max")

    def forward(self, indices):
        return self.bag(indices)


def _bags(rng):
    return rng.integers(0, 10, (9,)), np.array([0, 3, 3, 7])


def _bags_with_end(rng):
    """include_last_offset: the last offset is the count of indices (torch's contract)."""
    return rng.integers(0, 10, (9,)), np.array([0, 3, 3, 7, 9])


def cases():
    nn = torch.nn
    bags = {
        "embedding_bag_mean": lambda: nn.EmbeddingBag(10, 4),
        "embedding_bag_max": lambda: nn.EmbeddingBag(10, 4, mode="max"),
        "embedding_bag_padding_idx": lambda: nn.EmbeddingBag(10, 4, padding_idx=-3),
    }
    cases = [Case(name, (lambda make=make: Bag(make())), inputs=_bags) for name, make in bags.items()]
    cases.append(Case("embedding_bag_sum_last_offset",
                      lambda: Bag(nn.EmbeddingBag(10, 4, mode="sum", include_last_offset=True)),
                      inputs=_bags_with_end))
    cases.append(Case("embedding_bag_per_sample_weights", WeightedBag,
                      inputs=lambda rng: (*_bags(rng), rng.standard_normal(9, dtype=np.float32))))
    cases.append(Case("embedding_bag_2d_input", FixedLengthBag, inputs=lambda rng: (rng.integers(0, 10, (3, 4)),)))
    return cases
