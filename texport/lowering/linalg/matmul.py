"""Linalg lowerings: matmul."""

from __future__ import annotations
