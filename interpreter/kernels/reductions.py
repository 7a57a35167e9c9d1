"""Kernels: reductions."""
