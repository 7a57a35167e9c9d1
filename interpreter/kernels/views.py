"""Kernels: views."""
