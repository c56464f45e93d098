"""The public ops, one module per family; importing this registers them all
and installs the Tensor operators."""
from . import (array_ops, control_ops, creation_ops, linalg_ops, logging_ops,  # noqa: F401
               math_ops, module, nn_ops, random_ops, reduction_ops, scatter_ops,
               slicing, sort_ops, string_ops, unary_ops, variables, check_ops,
               script_ops, cond, while_loop, list_ops, tensor_array, functional_ops,
               conv_ops, bucket_ops, bitcast_ops, partition_ops, image_resize,
               image_scale_translate,
               image_ops, image_color, image_metrics)
from . import fft_ops, window_ops, signal_ops  # noqa: F401
from . import parsing_ops, io_ops  # noqa: F401
from . import sparse_ops, sparse_array_ops, sparse_math_ops  # noqa: F401
from . import tensor_operators

tensor_operators.install()
