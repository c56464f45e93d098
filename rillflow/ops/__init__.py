"""The ops, one subpackage per family (core, nn, linalg, image, signal, sparse,
strings, random, control_flow, debugging, state, io, gradients, ragged, lookup, numpy;
numeric kernels in kernels). Importing this registers every op and installs the Tensor
operators; the order below is the order the families register in."""
from .core import shape_ops, constant_ops, join_ops, dim_ops, broadcast_ops  # noqa: F401
from .control_flow import control_ops  # noqa: F401
from .core import creation_ops  # noqa: F401
from .linalg import matmul_ops, structure_ops, einsum_ops  # noqa: F401
from .linalg import solve_ops, decomposition_ops, norm_ops, eig_ops  # noqa: F401
from .linalg import lu_ops, matrix_functions, linalg_extra_ops  # noqa: F401
from .debugging import logging_ops  # noqa: F401
from .core import math_ops, math_lowering  # noqa: F401
from .state import module, scatter_variable_ops, moving_averages  # noqa: F401
from .nn import nn_util, activations, softmax_losses, layer_ops  # noqa: F401
from .nn import normalization, dropout_embedding  # noqa: F401
from .random import seeding, random_util, stateful_ops, stateless_ops, generator  # noqa: F401
from .random import random_lowering  # noqa: F401
from .random import initializers, sobol_ops, stateful_raw_ops  # noqa: F401
from .core import reduction_ops, scan_ops, segment_ops, add_n_ops  # noqa: F401
from .core import scatter_ops, split_pad_ops, repeat_unique_roll_ops  # noqa: F401
from .core import slicing, gather_ops, sort_ops  # noqa: F401
from .strings import string_util, string_ops, unicode_ops, hash_ops  # noqa: F401
from .strings import segment_join_ops, ngram_ops, bytes_ops  # noqa: F401
from .core import unary_ops, special_math_ops, special_functions, clip_ops  # noqa: F401
from .core import elementwise_grad_ops  # noqa: F401
from .core import special_composites, incomplete_special  # noqa: F401
from .state import variables  # noqa: F401
from .debugging import check_ops, numerics_callback, dump_debug_info  # noqa: F401
from .control_flow import script_ops, cond, while_loop, list_ops, while_gradient  # noqa: F401
from .control_flow import tensor_array, list_raw_ops  # noqa: F401
from .control_flow import functional_ops  # noqa: F401
from .nn import conv_ops, batch_norm_ops, conv_nd_ops, pool_nd_ops, conv_lowering  # noqa: F401
from .nn import rearrange_ops, ctc_kernels, ctc_beam_search, ctc_ops  # noqa: F401
from .nn import ctc_lowering  # noqa: F401  (the XLA lowering of CTCLossDense)
from .control_flow import critical_section  # noqa: F401
from .core import bucket_ops, bitcast_ops, partition_ops, shift_ops  # noqa: F401
from .image import image_scale_translate, image_resize, image_ops  # noqa: F401
from .image import image_color, image_metrics, image_transform  # noqa: F401
from .image import image_codecs, image_nms, image_nms_padded, image_boxes  # noqa: F401
from .image import image_random, image_sample_box  # noqa: F401
from .image import image_proposals  # noqa: F401
from .signal import fft_ops, window_ops, signal_ops, mdct_ops  # noqa: F401
from .io import ragged_parsing, parsing_ops, io_ops, audio_ops, csv_ops  # noqa: F401
from .io import sparse_serialization, sequence_parsing, json_example, proto_ops  # noqa: F401
from .sparse import sparse_ops, sparse_array_ops, sparse_math_ops, sparse_dispatch  # noqa: F401
from .sparse import set_ops  # noqa: F401
from .nn import embedding_sparse  # noqa: F401
from .sparse import sparse_cross_ops  # noqa: F401
from .sparse import csr_matrix_ops  # noqa: F401
from .random import candidate_sampling, shuffle_ops, parameterized_truncated  # noqa: F401
from .nn import sampled_losses, conv_extras, fractional_pool, isotonic_ops  # noqa: F401
from .nn import rnn_cell_wrappers  # noqa: F401
from .nn import space_batch_ops, nn_extra_ops, fake_quant_ops, quantization_ops  # noqa: F401
from .ragged import ragged_tensor, ragged_spec, ragged_factory, ragged_conversion  # noqa: F401
from .ragged import ragged_getitem, ragged_math_ops, ragged_array_ops, ragged_tile  # noqa: F401
from .ragged import dynamic_ragged_shape, ragged_map_fn, ragged_gather  # noqa: F401
from .ragged import ragged_dispatch, ragged_cross_ops  # noqa: F401
from .sparse import bincount_ops  # noqa: F401
from .lookup import table_kernels, table_ops, text_file_ops, lookup_ops  # noqa: F401
from .lookup import mutable_tables  # noqa: F401
from .queue import queue_kernels, queue_ops, queues  # noqa: F401
from .sparse import edit_distance_ops, sparse_mask_ops  # noqa: F401
from .numpy import np_dtypes, np_utils, np_array_core, np_math_unary  # noqa: F401
from .numpy import np_array_manip, np_indexing, np_reductions, np_math_binary  # noqa: F401
from .numpy import np_linalg, np_spacing, np_random, np_weak, np_behavior  # noqa: F401
# The linear operators compose the linalg, signal and debugging ops: after them.
from .linalg import linear_operator, linear_operator_basic, linear_operator_wrappers  # noqa: F401
from .linalg import linear_operator_block, linear_operator_structured  # noqa: F401
from .linalg import conjugate_gradient  # noqa: F401
from . import tensor_operators

tensor_operators.install()
