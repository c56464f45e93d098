"""framework/allocator.py: malloc keeps large freed arrays for reuse, unless
the user chose malloc's settings or turned it off."""
import subprocess
import sys

import pytest

SNIPPET = ("import rillflow\nfrom rillflow.framework import allocator\n"
           "print(allocator.status())\n")


def _status(env_extra, monkeypatch):
    env = {k: v for k, v in __import__("os").environ.items()
           if not k.startswith("MALLOC_") and k not in ("GLIBC_TUNABLES", "RILLFLOW_MALLOC")}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", SNIPPET], env=env, capture_output=True,
                         text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_tuned_on_import_unless_the_user_chose(monkeypatch):
    import ctypes
    try:
        ctypes.CDLL(None).mallopt
    except AttributeError:
        pytest.skip("no mallopt in this C library")
    assert _status({}, monkeypatch) == "tuned"
    assert _status({"RILLFLOW_MALLOC": "system"}, monkeypatch) == "RILLFLOW_MALLOC=system"
    assert _status({"MALLOC_TRIM_THRESHOLD_": "1000"}, monkeypatch) == \
        "the environment sets malloc's parameters"
