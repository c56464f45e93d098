"""Runs the code cells of TensorFlow's "Ragged tensors" guide
(tensorflow/docs site/en/guide/ragged_tensor.ipynb) with TensorFlow and with rillflow and
compares their outputs cell by cell (tools/guide_cells.py).

    python tools/guide_ragged.py --notebook ragged_tensor.ipynb
    python tools/guide_ragged.py --show-diff       # the cells that differ
"""
import guide_cells

if __name__ == "__main__":
    guide_cells.main("site/en/guide/ragged_tensor.ipynb", __doc__)
