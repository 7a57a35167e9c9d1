"""Shape rules: indexing."""
