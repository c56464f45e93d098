"""The public functions TensorFlow counts as unary and binary elementwise
APIs: `tf.experimental.dispatch_for_unary_elementwise_apis` and
`dispatch_for_binary_elementwise_apis` register a handler on each.

The names are TensorFlow 2.21's lists (its `register_unary_elementwise_api`
and `register_binary_elementwise_api` registrations), written as rillflow's
export names; a name rillflow does not export yet is skipped, and
`dispatch.apply_pending` registers handlers on names exported later.
"""
from .api_export import EXPORTS

__all__ = ["UNARY", "BINARY", "apis"]

UNARY = (
    "zeros_like", "compat.v1.zeros_like", "ones_like", "compat.v1.ones_like",
    "debugging.check_numerics", "math.abs", "math.softplus", "math.sign", "math.real",
    "math.imag", "math.angle", "math.round", "cast", "dtypes.saturate_cast",
    "compat.v1.to_float", "compat.v1.to_double", "compat.v1.to_int32", "compat.v1.to_int64",
    "compat.v1.to_bfloat16", "compat.v1.to_complex64", "compat.v1.to_complex128",
    "math.sigmoid", "math.log_sigmoid", "math.conj", "math.reciprocal_no_nan",
    "math.erfinv", "math.ndtri", "math.erfcinv", "math.ceil", "math.sqrt", "math.exp",
    "math.rsqrt", "math.acos", "math.floor", "bitwise.invert", "math.acosh", "math.asin",
    "math.asinh", "math.atan", "math.atanh", "math.cos", "math.cosh", "math.digamma",
    "math.erf", "math.erfc", "math.expm1", "math.is_finite", "math.is_inf", "math.is_nan",
    "math.lgamma", "math.log", "math.log1p", "math.logical_not", "math.negative",
    "math.nextafter", "math.reciprocal", "math.rint", "math.sin", "math.sinh",
    "math.square", "math.tan", "math.tanh", "nn.relu6", "nn.leaky_relu", "nn.gelu",
    "nn.log_softmax", "compat.v1.nn.log_softmax", "nn.elu", "nn.relu", "nn.selu",
    "nn.softsign", "strings.regex_full_match", "strings.regex_replace", "strings.length",
    "compat.v1.strings.length", "compat.v1.substr", "strings.substr",
    "compat.v1.strings.substr", "strings.to_number", "strings.to_hash_bucket",
    "compat.v1.strings.to_hash_bucket", "strings.as_string", "io.decode_base64",
    "io.encode_base64", "strings.lower", "strings.upper", "strings.unicode_transcode",
    "strings.strip", "strings.to_hash_bucket_fast", "strings.to_hash_bucket_strong",
    "strings.unicode_script", "math.special.dawsn", "math.special.expint",
    "math.special.fresnel_cos", "math.special.fresnel_sin", "math.special.spence",
    "math.bessel_i0", "math.bessel_i0e", "math.bessel_i1", "math.bessel_i1e",
    "math.special.bessel_k0", "math.special.bessel_k0e", "math.special.bessel_k1",
    "math.special.bessel_k1e", "math.special.bessel_j0", "math.special.bessel_j1",
    "math.special.bessel_y0", "math.special.bessel_y1", "clip_by_value", "nn.silu",
    "image.random_brightness", "image.stateless_random_brightness",
    "image.adjust_brightness", "image.adjust_gamma", "image.convert_image_dtype",
    "io.decode_compressed",
)

BINARY = (
    "math.divide", "math.multiply", "math.subtract", "math.scalar_mul",
    "compat.v1.scalar_mul", "math.pow", "dtypes.complex", "math.truediv",
    "compat.v1.div", "math.divide_no_nan", "math.multiply_no_nan", "math.floordiv",
    "math.logical_xor", "math.equal", "math.not_equal", "math.add", "math.xdivy",
    "math.xlog1py", "bitwise.bitwise_and", "bitwise.bitwise_or", "bitwise.bitwise_xor",
    "bitwise.left_shift", "bitwise.right_shift", "math.atan2", "compat.v1.floor_div",
    "math.floormod", "math.greater", "math.greater_equal", "math.less", "math.less_equal",
    "math.logical_and", "math.logical_or", "math.maximum", "math.minimum", "realdiv",
    "math.squared_difference", "truncatediv", "truncatemod", "math.xlogy", "math.zeta",
    "nn.sigmoid_cross_entropy_with_logits",
)


def apis(kind):
    """The distinct exported functions of the `kind` ("unary" or "binary")
    list, as the original functions (never a dispatch wrapper)."""
    out = []
    for name in UNARY if kind == "unary" else BINARY:
        fn = EXPORTS.get(name)
        if fn is None or isinstance(fn, type) or not callable(fn):
            continue
        fn = getattr(fn, "_tf_dispatch_target", fn)
        if not any(f is fn for f in out):
            out.append(fn)
    return out
