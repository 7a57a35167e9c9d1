"""draft"""
from typing import Any


def draft_export(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError
