"""Shape rules: linalg."""
