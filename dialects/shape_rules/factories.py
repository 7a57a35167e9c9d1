"""Shape rules: factories."""
