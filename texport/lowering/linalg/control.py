"""Linalg lowerings: control."""

from __future__ import annotations
