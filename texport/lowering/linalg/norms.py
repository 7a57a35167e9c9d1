"""Linalg lowerings: norms."""

from __future__ import annotations
