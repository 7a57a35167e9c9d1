"""Kernels: linalg."""
