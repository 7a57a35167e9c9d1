"""Shape rules: conv_pool."""
