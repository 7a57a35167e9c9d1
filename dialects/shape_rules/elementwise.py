"""Shape rules: elementwise."""
