"""Parity tests that fail today, each with the reason (run as strict xfails:
a test that starts passing must leave this table). Keys are test ids as
pytest prints them, e.g. ``test_core_ops_equal_torchs[basics.conv_bn_train]``."""

# torch names each node when its retrace makes it, and with a dynamic size its
# fake tensors' storage sizes are computed as traced Python arithmetic (eq, sub,
# mul, add nodes, later eliminated): they take names from the ops that follow.
SIZE_ARITHMETIC_NAMES = "torch's retrace spends names on size arithmetic of dynamic shapes"
_CIA = ("torch's functional level decomposes reshape/flatten (CompositeImplicitAutograd) into view or "
        "clone + _unsafe_view; texport's keeps them, so the outputs' names differ")


def _counted(torch_name: str, texport_name: str) -> str:
    return f"torch names the output {torch_name}, texport {texport_name}: {SIZE_ARITHMETIC_NAMES}"


KNOWN_FAILURES: dict[str, str] = {
    "test_graph_signature_equals_torchs[basics.conv_bn_train-functional]": _counted("add_5", "add"),
    "test_graph_signature_equals_torchs[basics.conv_bn_train-core]": _counted("add_5", "add"),
    "test_graph_signature_equals_torchs[conv_pool.interpolate_linear1d-core]": _counted("add_18", "add_2"),
    "test_graph_signature_equals_torchs[conv_pool.interpolate_linear1d_align-core]": _counted("add_17", "add_1"),
    "test_graph_signature_equals_torchs[strides.channels_last_linear-functional]": _counted("add_20", "add"),
    "test_graph_signature_equals_torchs[strides.channels_last_linear-core]": _counted("add_36", "add"),
    "test_graph_signature_equals_torchs[strides.einsums-core]": _counted("mul_233", "mul"),
    "test_graph_signature_equals_torchs[strides.matmuls-core]": _counted("add_145", "add"),
    "test_graph_signature_equals_torchs[strides.layouts_after_ops-functional]": _CIA,
    "test_graph_signature_equals_torchs[strides.qkv_attention-functional]": _CIA,
    "test_graph_signature_equals_torchs[strides.reshapes-functional]": _CIA,
}
