"""Shape rules: reductions."""
