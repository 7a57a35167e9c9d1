"""``texport.utils.pytree`` (torch.utils.pytree, the public spelling): the same
names as ``texport.utils._pytree``."""

from texport.utils._pytree import *  # noqa: F403 - the public spelling of the same module
