"""Linalg lowerings: reductions."""

from __future__ import annotations
