"""Kernels: elementwise."""
