"""Shape rules: views."""
