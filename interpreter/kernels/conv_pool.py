"""Kernels: conv_pool."""
