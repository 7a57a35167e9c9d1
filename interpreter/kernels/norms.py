"""Kernels: norms."""
