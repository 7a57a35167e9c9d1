"""placeholder"""
from xdsl.ir import Dialect
CONTROL = Dialect("control", [], [])
