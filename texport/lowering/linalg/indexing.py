"""Linalg lowerings: indexing."""

from __future__ import annotations
