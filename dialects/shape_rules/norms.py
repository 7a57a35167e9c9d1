"""Shape rules: norms."""
