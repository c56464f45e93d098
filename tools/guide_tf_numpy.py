"""Runs the code cells of TensorFlow's "NumPy API on TensorFlow" guide
(tensorflow/docs site/en/guide/tf_numpy.ipynb) with TensorFlow and with rillflow and
compares their outputs cell by cell (tools/guide_cells.py).

    python tools/guide_tf_numpy.py --notebook tf_numpy.ipynb
    python tools/guide_tf_numpy.py --show-diff       # the cells that differ

The guide plots with matplotlib; where it is not installed, both runs get the
same stand-in `matplotlib.pyplot`, whose functions read their array
arguments (`np.asarray`) and draw nothing. The timing cells print times,
which differ from run to run.
"""
import sys
import types

import guide_cells


def _matplotlib_stand_in():
    import numpy as np

    def consume(*args, **kwargs):
        for a in args:
            if not isinstance(a, str):
                np.asarray(a)

    mpl = types.ModuleType("matplotlib", "Stand-in: matplotlib is not installed.")
    plt = types.ModuleType("matplotlib.pyplot", "Stand-in: draws nothing.")
    for name in ("hist", "plot", "xlabel", "ylabel", "title", "legend", "show", "figure"):
        setattr(plt, name, consume)
    mpl.pyplot = plt
    sys.modules["matplotlib"] = mpl
    sys.modules["matplotlib.pyplot"] = plt


try:
    import matplotlib.pyplot  # noqa: F401
except ImportError:
    _matplotlib_stand_in()

if __name__ == "__main__":
    guide_cells.main("site/en/guide/tf_numpy.ipynb", __doc__)
