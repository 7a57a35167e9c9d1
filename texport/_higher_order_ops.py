"""``texport._higher_order_ops``: torch's higher-order control-flow operators."""

from texport.tracer.control_flow import associative_scan, cond, map, scan, while_loop  # noqa: A004

__all__ = ["associative_scan", "cond", "map", "scan", "while_loop"]
