"""Runs the code cells of TensorFlow's "Extension types" guide
(tensorflow/docs site/en/guide/extension_type.ipynb) with TensorFlow and with rillflow and
compares their outputs cell by cell (tools/guide_cells.py).

    python tools/guide_extension_type.py --notebook extension_type.ipynb
    python tools/guide_extension_type.py --show-diff       # the cells that differ
"""
import guide_cells

if __name__ == "__main__":
    guide_cells.main("site/en/guide/extension_type.ipynb", __doc__)
