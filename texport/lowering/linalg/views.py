"""Linalg lowerings: views."""

from __future__ import annotations
