"""A pytest plugin that stands rillflow in for TensorFlow in every pytest
process, xdist's workers included: `rillflow run -m pytest` names it in
PYTEST_PLUGINS, which the workers inherit (they do not run through
`rillflow run` themselves). Loading it runs compat/run.py's preparation.
"""
from . import run as _run

_run.prepare()
