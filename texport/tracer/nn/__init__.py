"""``texport.nn``: torch-compatible Module, Parameter and layers.

Layers compute only through ``functional`` (op calls), so a model runs
eagerly and traces to the ops torch.export records. Each layer file names its
public classes in its ``__all__``; this package's ``__all__`` is theirs.
"""

from . import (
    activations,
    adaptive,
    attention,
    channelshuffle,
    containers,
    conv,
    cross_map_lrn,
    distance,
    dropout,
    embedding,
    flatten,
    fold,
    functional,
    init,
    lazy,
    linear,
    loss,
    module,
    norms,
    padding,
    parallel,
    pixelshuffle,
    pooling,
    response_norm,
    rnn,
    transformer,
    upsampling,
)
from .activations import *  # noqa: F403
from .adaptive import *  # noqa: F403
from .attention import *  # noqa: F403
from .channelshuffle import *  # noqa: F403
from .containers import *  # noqa: F403
from .conv import *  # noqa: F403
from .cross_map_lrn import *  # noqa: F403
from .distance import *  # noqa: F403
from .dropout import *  # noqa: F403
from .embedding import *  # noqa: F403
from .flatten import *  # noqa: F403
from .fold import *  # noqa: F403
from .lazy import *  # noqa: F403
from .linear import *  # noqa: F403
from .loss import *  # noqa: F403
from .module import *  # noqa: F403
from .norms import *  # noqa: F403
from .padding import *  # noqa: F403
from .parallel import *  # noqa: F403
from .pixelshuffle import *  # noqa: F403
from .pooling import *  # noqa: F403
from .response_norm import *  # noqa: F403
from .rnn import *  # noqa: F403
from .transformer import *  # noqa: F403
from .upsampling import *  # noqa: F403

_LAYER_FILES = (activations, adaptive, attention, channelshuffle, containers, conv, cross_map_lrn, distance,
                dropout, embedding, flatten, fold, lazy, linear, loss, module, norms, padding, parallel,
                pixelshuffle, pooling, response_norm, rnn, transformer, upsampling)
__all__ = [*(name for layer_file in _LAYER_FILES for name in layer_file.__all__), "functional", "init"]
