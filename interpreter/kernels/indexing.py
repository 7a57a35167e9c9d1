"""Kernels: indexing."""
