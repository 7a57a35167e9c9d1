"""Kernels: factories."""
