"""``texport.utils``: torch.utils's pytree modules (``_pytree`` and the public ``pytree``)."""

from texport.utils import _pytree, pytree  # noqa: F401 - the public submodules
