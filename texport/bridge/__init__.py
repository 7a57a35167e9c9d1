"""The bridge with real torch: from_torch and to_torch (imported only when used)."""
