"""AdaptiveLogSoftmaxWithLoss: a head over the frequent classes and one
cluster per tail, each tail a low-rank projection (Grave et al., 2016).

Its forward picks rows by their targets (``nonzero``): torch.export cannot
trace it (a data-dependent branch), so it runs eagerly; ``log_prob`` exports."""

from __future__ import annotations

import itertools
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from texport.dialects.dtypes import DType

from ..factories import full_like
from ..tensor import Tensor
from . import functional as F
from .containers import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])  # noqa: PYI024 - torch's type


class AdaptiveLogSoftmaxWithLoss(Module):
    """``head``: Linear(in_features, cutoffs[0] + n_clusters); ``tail[i]``:
    Linear(in, in // div_value**(i+1)) then Linear(that, cluster size), no biases."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: DType | None = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, dtype=dtype),
                                        Linear(hidden, size, bias=False, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        _check_batch(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)  # noqa: A001
        target = target_ if batched else target_.unsqueeze(0)
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)
        used_rows = 0
        bounds = [0, *self.cutoffs]
        for i, (low, high) in enumerate(itertools.pairwise(bounds)):
            target_mask = (target >= low) & (target < high)
            rows = target_mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, rows, target[target_mask])
            else:
                relative_target = target[target_mask] - low
                cluster_output = self.tail[i - 1](input.index_select(0, rows))
                # torch's index_fill_(0, rows, cluster): the same rows, all set to the cluster's head column
                gather_inds.index_copy_(0, rows, full_like(rows, self.shortlist_size + i - 1))
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, rows, local_logprob.squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:  # noqa: A002
        """log p(class) for every class: the head's for the shortlist, the
        cluster's plus its head column for each tail."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:  # noqa: A002
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:  # noqa: A002
        """The most likely class of each row (the full distribution only for
        rows whose head picks a cluster)."""
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not bool(not_in_shortlist.any()):
            return output
        if bool(not_in_shortlist.all()):
            return self._get_full_log_prob(input, head_output).argmax(dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        output[not_in_shortlist] = log_prob.argmax(dim=1)
        return output


def _check_batch(input_: Tensor, target_: Tensor) -> None:
    """A 1-D target with a 2-D input of as many rows, or a 0-D target with a 1-D input."""
    if target_.dim() == 1:
        if input_.size(0) != target_.size(0):
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input_.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                               f"{input_.size()}")
    elif target_.dim() == 0:
        if input_.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                               f"{input_.size()}")
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
