"""What an op IS: the tensor type, the op registry, shape rules, the dialects."""
