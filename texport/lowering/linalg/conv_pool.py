"""Linalg lowerings: conv_pool."""

from __future__ import annotations
