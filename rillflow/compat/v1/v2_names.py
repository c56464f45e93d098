"""The names `tf.compat.v1` shares with `tf`: in TensorFlow 2.21 each
`tf.compat.v1.<name>` here is the function or object `tf.<name>` is (at most
under another dispatch wrapper: `tf.compat.v1.print` is `tf.print`), so
rillflow publishes its TensorFlow 2 object under both names. Names whose
TensorFlow 1 version differs (`tf.compat.v1.constant`, ...) are exported
where they are defined.

Keyed by namespace ("" is the top level); limited to the names rillflow has.
"""

SAME_AS_V2 = {
    "": (
        "Assert DType GradientTape Graph IndexedSlices IndexedSlicesSpec Module "
        "Operation RaggedTensor SparseTensor SparseTensorSpec Tensor TensorArray "
        "TensorShape TensorSpec UnconnectedGradients VariableSynchronization abs acos "
        "acosh add add_n argsort as_dtype as_string asin asinh atan atan2 atanh "
        "bfloat16 bitcast bool broadcast_dynamic_shape broadcast_static_shape "
        "broadcast_to cast clip_by_global_norm clip_by_norm clip_by_value complex "
        "complex128 complex64 concat control_dependencies cos cosh cumsum "
        "custom_gradient divide double dynamic_partition dynamic_stitch einsum "
        "ensure_shape equal exp eye fill float16 float32 float64 floor function "
        "get_logger get_static_value greater greater_equal group half "
        "histogram_fixed_width identity identity_n init_scope int16 int32 int64 int8 "
        "is_tensor less less_equal linspace logical_and logical_not logical_or matmul "
        "maximum meshgrid minimum multiply negative newaxis no_op not_equal "
        "numpy_function one_hot ones pow print py_function range rank realdiv "
        "recompute_grad register_tensor_conversion_function repeat reshape resource "
        "reverse roll round saturate_cast scatter_nd searchsorted sequence_mask "
        "shape_n sigmoid sign sin sinh slice sort split sqrt square stack "
        "stop_gradient strided_slice string subtract switch_case tan tanh "
        "tensor_scatter_nd_add tensor_scatter_nd_max tensor_scatter_nd_min "
        "tensor_scatter_nd_sub tensor_scatter_nd_update tensordot tile truediv "
        "truncatediv truncatemod type_spec_from_value uint16 uint32 uint64 uint8 "
        "unique unique_with_counts unravel_index unstack variant vectorized_map zeros"
    ),
    "autograph": "set_verbosity trace",
    "autograph.experimental": "Feature do_not_convert set_loop_options",
    "bitwise": "bitwise_and bitwise_or bitwise_xor invert",
    "config": (
        "experimental_functions_run_eagerly experimental_run_functions_eagerly "
        "functions_run_eagerly get_visible_devices list_logical_devices "
        "list_physical_devices run_functions_eagerly set_visible_devices"
    ),
    "config.experimental": (
        "get_memory_growth get_visible_devices list_logical_devices "
        "list_physical_devices set_memory_growth set_visible_devices"
    ),
    "data": (
        "AUTOTUNE DatasetSpec INFINITE_CARDINALITY Options ThreadingOptions "
        "UNKNOWN_CARDINALITY"
    ),
    "data.experimental": (
        "AUTOTUNE DistributeOptions INFINITE_CARDINALITY OptimizationOptions Optional "
        "ThreadingOptions UNKNOWN_CARDINALITY assert_cardinality "
        "bucket_by_sequence_length cardinality enumerate_dataset get_next_as_optional "
        "get_single_element group_by_window ignore_errors scan take_while unbatch"
    ),
    "debugging": (
        "Assert assert_proper_iterable assert_same_float_dtype check_numerics "
        "is_numeric_tensor"
    ),
    "dtypes": (
        "DType QUANTIZED_DTYPES as_dtype bfloat16 bool cast complex complex128 "
        "complex64 double float16 float32 float64 half int16 int32 int64 int8 "
        "resource saturate_cast string uint16 uint32 uint64 uint8 variant"
    ),
    "errors": (
        "ABORTED ALREADY_EXISTS AbortedError AlreadyExistsError CANCELLED "
        "CancelledError DATA_LOSS DEADLINE_EXCEEDED DataLossError "
        "DeadlineExceededError FAILED_PRECONDITION FailedPreconditionError INTERNAL "
        "INVALID_ARGUMENT InternalError InvalidArgumentError NOT_FOUND NotFoundError "
        "OK OUT_OF_RANGE OpError OutOfRangeError PERMISSION_DENIED "
        "PermissionDeniedError RESOURCE_EXHAUSTED ResourceExhaustedError "
        "UNAUTHENTICATED UNAVAILABLE UNIMPLEMENTED UNKNOWN UnauthenticatedError "
        "UnavailableError UnimplementedError UnknownError"
    ),
    "experimental": "Optional",
    "image": (
        "adjust_brightness adjust_contrast adjust_gamma adjust_hue adjust_saturation "
        "central_crop convert_image_dtype crop_to_bounding_box extract_patches "
        "flip_left_right flip_up_down grayscale_to_rgb hsv_to_rgb image_gradients "
        "pad_to_bounding_box per_image_standardization psnr random_brightness "
        "random_contrast random_crop random_flip_left_right random_flip_up_down "
        "random_hue random_saturation resize_with_crop_or_pad rgb_to_grayscale "
        "rgb_to_hsv rgb_to_yuv rot90 ssim total_variation transpose yuv_to_rgb"
    ),
    "io": (
        "FixedLenFeature FixedLenSequenceFeature RaggedFeature SparseFeature "
        "TFRecordOptions TFRecordWriter VarLenFeature decode_base64 encode_base64 "
        "parse_tensor read_file serialize_tensor write_file"
    ),
    "io.gfile": (
        "GFile copy exists glob isdir join listdir makedirs mkdir remove rename "
        "rmtree stat walk"
    ),
    "linalg": (
        "adjoint band_part cholesky cross det diag diag_part einsum eye global_norm "
        "inv l2_normalize logdet matmul matrix_transpose matvec qr set_diag slogdet "
        "solve svd tensordot trace triangular_solve"
    ),
    "math": (
        "abs accumulate_n acos acosh add add_n angle asin asinh atan atan2 atanh "
        "bessel_i0e ceil conj cos cosh cumprod cumsum cumulative_logsumexp digamma "
        "divide divide_no_nan equal erf erfc exp expm1 floor floordiv floormod "
        "greater greater_equal imag invert_permutation is_finite is_inf is_nan "
        "l2_normalize less less_equal lgamma log log1p log_sigmoid logical_and "
        "logical_not logical_or logical_xor maximum minimum mod multiply "
        "multiply_no_nan negative not_equal polygamma pow real reciprocal "
        "reciprocal_no_nan reduce_euclidean_norm reduce_std reduce_variance rint "
        "round rsqrt segment_max segment_mean segment_min segment_prod segment_sum "
        "sigmoid sign sin sinh softplus softsign sqrt square squared_difference "
        "subtract tan tanh top_k truediv unsorted_segment_max unsorted_segment_mean "
        "unsorted_segment_min unsorted_segment_prod unsorted_segment_sqrt_n "
        "unsorted_segment_sum xdivy xlogy zero_fraction zeta"
    ),
    "math.special": "bessel_i0e",
    "nest": "assert_same_structure flatten is_nested map_structure pack_sequence_as",
    "nn": (
        "avg_pool1d batch_normalization bias_add compute_average_loss elu l2_loss "
        "l2_normalize leaky_relu log_poisson_loss max_pool1d max_pool2d "
        "normalize_moments relu relu6 scale_regularization_loss selu sigmoid silu "
        "softplus softsign swish tanh top_k zero_fraction"
    ),
    "random": (
        "Algorithm Generator categorical create_rng_state fold_in gamma "
        "get_global_generator normal set_global_generator shuffle split "
        "stateless_categorical stateless_normal stateless_truncated_normal "
        "stateless_uniform truncated_normal uniform"
    ),
    "random.experimental": (
        "Algorithm Generator create_rng_state get_global_generator "
        "set_global_generator stateless_fold_in stateless_split"
    ),
    "saved_model": (
        "ASSETS_DIRECTORY ASSETS_KEY DEBUG_DIRECTORY DEBUG_INFO_FILENAME_PB "
        "DEFAULT_SERVING_SIGNATURE_DEF_KEY GPU SAVED_MODEL_FILENAME_PB "
        "SAVED_MODEL_FILENAME_PBTXT SAVED_MODEL_SCHEMA_VERSION SERVING SaveOptions "
        "TPU TRAINING VARIABLES_DIRECTORY VARIABLES_FILENAME save"
    ),
    "signal": (
        "dct fft fft2d fft3d fftshift frame hamming_window hann_window idct ifft "
        "ifft2d ifft3d ifftshift inverse_stft inverse_stft_window_fn irfft irfft2d "
        "irfft3d kaiser_bessel_derived_window kaiser_window "
        "linear_to_mel_weight_matrix mfccs_from_log_mel_spectrograms overlap_and_add "
        "rfft rfft2d rfft3d stft vorbis_window"
    ),
    "sparse": (
        "SparseTensor expand_dims eye fill_empty_rows from_dense maximum minimum "
        "reorder reset_shape reshape retain slice softmax sparse_dense_matmul "
        "to_dense to_indicator transpose"
    ),
    "strings": (
        "as_string format join lower regex_full_match regex_replace strip "
        "unicode_decode unicode_encode unicode_split upper"
    ),
    "test": (
        "TestCase gpu_device_name is_built_with_cuda is_built_with_gpu_support "
        "is_built_with_rocm is_built_with_xla is_gpu_available main"
    ),
    "train": (
        "BytesList CheckpointManager Example Feature FeatureList FeatureLists "
        "Features FloatList Int64List SequenceExample get_checkpoint_state "
        "latest_checkpoint list_variables load_checkpoint"
    ),
}


def add_aliases(exports):
    """Adds `compat.v1.<name>` to the export table for each shared name that
    rillflow exports as `<name>` and that has no TensorFlow 1 version of its own."""
    for ns, leaves in SAME_AS_V2.items():
        for leaf in leaves.split():
            name = f"{ns}.{leaf}" if ns else leaf
            if name in exports:
                exports.setdefault("compat.v1." + name, exports[name])
