"""AutoGraph: converts Python control flow in traced functions into graph
control flow (see api.py and conversion.py)."""
from . import api  # noqa: F401
