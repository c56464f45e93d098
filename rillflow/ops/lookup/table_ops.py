"""The lookup-table ops, under TensorFlow's names: creating a table
(`HashTableV2`, `MutableHashTableV2`, `MutableHashTableOfTensorsV2`,
`MutableDenseHashTableV2` and their `Anonymous*` forms), filling it
(`InitializeTableV2`, `InitializeTableFromTextFileV2`, `LookupTableImportV2`)
and using it (`LookupTableFindV2`, `LookupTableInsertV2`,
`LookupTableRemoveV2`, `LookupTableSizeV2`, `LookupTableExportV2`).

A table is a resource: the creation op's output is a handle tensor holding
the table object (table_kernels.py). Eagerly the kernels run at once; in a
`tf.function` or a `tf.data` function the handle is captured like a
variable's and the ops are stateful graph ops, ordered by automatic control
dependencies. The functions here are the `gen_lookup_ops` layer the
`tf.lookup` classes (lookup_ops.py, mutable_tables.py) call.
"""
import numpy as np

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework import errors
from ...framework.convert import convert_to_tensor
from ...framework.execute import apply, apply_op
from ...framework.op_registry import register
from ...framework.tensor_shape import TensorShape, as_shape
from . import table_kernels as K

_state = _context.state

# The (key, value) dtypes TensorFlow 2.21 registers CPU kernels for, in the
# order its "no kernel" error lists them.
_S, _I32, _I64, _F32, _F64, _B = "string", "int32", "int64", "float32", "float64", "bool"
_SCALAR_VALUES = [_I64, _I32, _F32, _F64, _B]
_KERNELS = {
    "HashTableV2": ([(_S, _S)] + [(_S, v) for v in _SCALAR_VALUES]
                    + [(_I64, v) for v in (_S, _I64, _I32, _F32, _F64)]
                    + [(_I32, v) for v in (_S, _I32, _F32, _F64)]),
    "MutableHashTableV2": ([(_S, v) for v in _SCALAR_VALUES]
                           + [(_I64, v) for v in ("variant", _S, _I64, _I32, _F32, _F64)]
                           + [(_I32, v) for v in (_I32, _F32, _F64)]),
    "MutableHashTableOfTensorsV2": ([(_S, v) for v in _SCALAR_VALUES]
                                    + [(_I64, v) for v in (_S, _I64, _I32, _F32, _F64)]
                                    + [(_I32, v) for v in (_I32, _F32, _F64)]),
    "MutableDenseHashTableV2": ([(_S, v) for v in ["resource"] + _SCALAR_VALUES]
                                + [(_I64, v) for v in ("variant", _I64, _I32, _F32, _F64, _B)]
                                + [(_I32, v) for v in (_I32, _F32, _F64)]),
}
_KERNELS["AnonymousHashTable"] = _KERNELS["HashTableV2"]
_KERNELS["AnonymousMutableHashTable"] = _KERNELS["MutableHashTableV2"]
_KERNELS["AnonymousMutableHashTableOfTensors"] = _KERNELS["MutableHashTableOfTensorsV2"]
_KERNELS["AnonymousMutableDenseHashTable"] = _KERNELS["MutableDenseHashTableV2"]

_DT_NAMES = {"string": "DT_STRING", "int32": "DT_INT32", "int64": "DT_INT64",
             "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "bool": "DT_BOOL",
             "variant": "DT_VARIANT", "resource": "DT_RESOURCE"}


def _dt(name):
    return _DT_NAMES.get(name, "DT_" + name.upper())


def _attr_value(v):
    if isinstance(v, D.DType):
        return _dt(v.name)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"%s"' % v
    if isinstance(v, (tuple, list, TensorShape)):
        return K.shape_text(as_shape(v).as_list())
    return str(v)


def _check_kernel(op_name, key_dtype, value_dtype, **attrs):
    """NotFoundError, listing the registered kernels, for a dtype pair
    TensorFlow has no kernel for (as TensorFlow's placer reports it)."""
    combos = _KERNELS[op_name]
    if (key_dtype.name, value_dtype.name) in combos:
        return
    attrs.update(container="", key_dtype=key_dtype, value_dtype=value_dtype,
                 use_node_name_sharing=False)
    text = ", ".join("%s=%s" % (k, _attr_value(attrs[k])) for k in sorted(attrs))
    lines = "".join(f"\n  device='CPU'; key_dtype in [{_dt(k)}]; value_dtype in [{_dt(v)}]"
                    for k, v in combos)
    raise errors.NotFoundError(
        None, None, f"Could not find device for node: {{{{node {op_name}}}}} = "
        f"{op_name}[{text}]\nAll kernels registered for op {op_name}:{lines}\n")


# --- creation ----------------------------------------------------------------

def _handle_infer(inputs, attrs):
    return [(TensorShape([]), D.resource)]


# The creation kernels take the op's name as the required attr `_op`: one kernel
# serves an op and its Anonymous form, and an internal attr keeps these ops
# (whose handles only the table ops take) out of the generic tf.raw_ops.
def _hash_table_kernel(key_dtype, value_dtype, _op, shared_name="", container="",
                       use_node_name_sharing=False):
    _check_kernel(_op, key_dtype, value_dtype, shared_name=shared_name)
    return [K.HashTable(key_dtype, value_dtype, shared_name or "hash_table")]


def _mutable_kernel(key_dtype, value_dtype, _op, shared_name="", container="",
                    use_node_name_sharing=False, value_shape=None):
    vshape = () if value_shape is None else tuple(as_shape(value_shape).as_list())
    extra = {} if value_shape is None else {"value_shape": vshape}
    _check_kernel(_op, key_dtype, value_dtype, shared_name=shared_name, **extra)
    if _op.startswith("MutableHashTableOfTensors") or _op == "AnonymousMutableHashTableOfTensors":
        if len(vshape) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Default value must be a vector, got shape {K.shape_text(vshape)}")
    return [K.MutableHashTable(key_dtype, value_dtype, shared_name or "MutableHashTable",
                               vshape)]


def _dense_kernel(empty_key, deleted_key, value_dtype, _op, key_dtype=None, value_shape=(),
                  initial_num_buckets=131072, max_load_factor=0.8, shared_name="", container="",
                  use_node_name_sharing=False):
    key_dtype = key_dtype or (D.string if empty_key.dtype == object
                              else D.as_dtype(empty_key.dtype))
    _check_kernel(_op, key_dtype, value_dtype, shared_name=shared_name,
                  initial_num_buckets=initial_num_buckets, max_load_factor=max_load_factor,
                  value_shape=value_shape)
    return [K.DenseHashTable(key_dtype, empty_key, deleted_key, value_dtype,
                             tuple(as_shape(value_shape).as_list()),
                             shared_name or "MutableDenseHashTable", initial_num_buckets,
                             max_load_factor)]


_HashTableV2 = register("HashTableV2", _hash_table_kernel, _handle_infer, stateful=True)
_AnonymousHashTable = register("AnonymousHashTable", _hash_table_kernel, _handle_infer,
                               stateful=True)
_MutableHashTableV2 = register("MutableHashTableV2", _mutable_kernel, _handle_infer,
                               stateful=True)
_MutableHashTableOfTensorsV2 = register("MutableHashTableOfTensorsV2", _mutable_kernel,
                                        _handle_infer, stateful=True)
_AnonymousMutableHashTable = register("AnonymousMutableHashTable", _mutable_kernel,
                                      _handle_infer, stateful=True)
_AnonymousMutableHashTableOfTensors = register("AnonymousMutableHashTableOfTensors",
                                               _mutable_kernel, _handle_infer, stateful=True)
_MutableDenseHashTableV2 = register("MutableDenseHashTableV2", _dense_kernel, _handle_infer,
                                    stateful=True)
_AnonymousMutableDenseHashTable = register("AnonymousMutableDenseHashTable", _dense_kernel,
                                           _handle_infer, stateful=True)


def _create(opdef, inputs, attrs, name):
    # Tables are resources of the outermost context: created eagerly even while
    # a function is traced (TensorFlow's classes call this under init_scope).
    attrs = dict(attrs, _op=opdef.name)
    return apply(opdef, inputs, attrs, name=name, multi=True)[0]


def hash_table(key_dtype, value_dtype, shared_name="", anonymous=False, name=None):
    """A new `HashTableV2` (or `AnonymousHashTable`) handle."""
    op = _AnonymousHashTable if anonymous else _HashTableV2
    return _create(op, [], {"key_dtype": key_dtype, "value_dtype": value_dtype,
                            "shared_name": shared_name or ""}, name)


def mutable_hash_table(key_dtype, value_dtype, value_shape=None, shared_name="",
                       anonymous=False, name=None):
    """A new `MutableHashTableV2` handle, or `MutableHashTableOfTensorsV2`
    when `value_shape` (a vector shape) is given."""
    if value_shape is None:
        op = _AnonymousMutableHashTable if anonymous else _MutableHashTableV2
        attrs = {}
    else:
        op = _AnonymousMutableHashTableOfTensors if anonymous else _MutableHashTableOfTensorsV2
        attrs = {"value_shape": value_shape}
    attrs.update(key_dtype=key_dtype, value_dtype=value_dtype, shared_name=shared_name or "")
    return _create(op, [], attrs, name)


def mutable_dense_hash_table(empty_key, deleted_key, value_dtype, value_shape,
                             initial_num_buckets=None, max_load_factor=None, shared_name="",
                             anonymous=False, name=None):
    """A new `MutableDenseHashTableV2` handle; `empty_key` and `deleted_key`
    are tensors of the key dtype and key shape."""
    op = _AnonymousMutableDenseHashTable if anonymous else _MutableDenseHashTableV2
    attrs = {"value_dtype": value_dtype, "key_dtype": empty_key.dtype,
             "value_shape": value_shape, "shared_name": shared_name or "",
             "initial_num_buckets": 131072 if initial_num_buckets is None
             else int(initial_num_buckets),
             "max_load_factor": 0.8 if max_load_factor is None else float(max_load_factor)}
    return _create(op, [empty_key, deleted_key], attrs, name)


# --- using a table -----------------------------------------------------------

def _no_outputs(inputs, attrs):
    return []


def _find_kernel(table, keys, default, _value_shape=None, **_):
    K.check_signature(table, "LookupTableFindV2", _dtype_of(keys), _dtype_of(default),
                      with_output=True)
    table.check_find(keys, default)
    return table.find(keys, default)


def _dtype_of(array):
    return D.string if array.dtype == object else D.as_dtype(array.dtype)


def _find_infer(inputs, attrs):
    keys, default = inputs[1], inputs[2]
    vshape = attrs.get("_value_shape")
    key_rank = attrs.get("_key_rank", 0)
    if vshape is None or keys.shape.rank is None:
        return [(TensorShape(None), default.dtype)]
    dims = keys.shape.as_list()
    return [(TensorShape(dims[:len(dims) - key_rank] + list(vshape)), default.dtype)]


def _insert_kernel(table, keys, values, **_):
    K.check_signature(table, "LookupTableInsertV2", _dtype_of(keys), _dtype_of(values))
    table.check_insert(keys, values)
    table.insert(keys, values)
    return []


def _remove_kernel(table, keys, **_):
    K.check_signature(table, "LookupTableRemoveV2", _dtype_of(keys))
    table.check_remove(keys)
    table.remove(keys)
    return []


def _size_kernel(table, **_):
    return np.int64(table.size())


def _export_kernel(table, Tkeys=None, Tvalues=None, **_):
    return table.export()


def _export_infer(inputs, attrs):
    ks = attrs.get("_key_shape")
    vs = attrs.get("_value_shape")
    return [(TensorShape([None] + list(ks)) if ks is not None else TensorShape(None),
             attrs["Tkeys"]),
            (TensorShape([None] + list(vs)) if vs is not None else TensorShape(None),
             attrs["Tvalues"])]


def _import_kernel(table, keys, values, **_):
    K.check_signature(table, "LookupTableImportV2", _dtype_of(keys), _dtype_of(values))
    table.check_import(keys, values)
    table.import_values(keys, values)
    return []


def _initialize_kernel(table, keys, values, **_):
    K.check_signature(table, "InitializeTableV2", _dtype_of(keys), _dtype_of(values))
    if keys.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Keys must be a vector, but received shape{K.shape_text(keys.shape)}")
    if keys.size != values.size:
        raise errors.InvalidArgumentError(
            None, None, f"Keys and values must have the same size {keys.size} vs {values.size}")
    if not hasattr(table, "initialize"):
        raise errors.InvalidArgumentError(
            None, None, "Table is not initializable (only HashTable tables are)")
    table.initialize(keys, values)
    return []


_LookupTableFindV2 = register("LookupTableFindV2", _find_kernel, _find_infer, stateful=True)
_LookupTableInsertV2 = register("LookupTableInsertV2", _insert_kernel, _no_outputs,
                                stateful=True)
_LookupTableRemoveV2 = register("LookupTableRemoveV2", _remove_kernel, _no_outputs,
                                stateful=True)
_LookupTableSizeV2 = register("LookupTableSizeV2", _size_kernel,
                              lambda i, a: [(TensorShape([]), D.int64)], stateful=True)
_LookupTableExportV2 = register("LookupTableExportV2", _export_kernel, _export_infer,
                                stateful=True)
_LookupTableImportV2 = register("LookupTableImportV2", _import_kernel, _no_outputs,
                                stateful=True)
_InitializeTableV2 = register("InitializeTableV2", _initialize_kernel, _no_outputs,
                              stateful=True)


def _run_no_output(opdef, inputs, attrs, name):
    """Runs an op without outputs: None eagerly, the Operation in a graph
    (for control dependencies), as TensorFlow's generated wrappers return."""
    if _state.graph is None:
        apply(opdef, inputs, attrs, name=name, multi=True)
        return None
    return apply_op(opdef, inputs, attrs, name=name)


def lookup_table_find(handle, keys, default_value, value_shape=None, key_rank=0, name=None):
    """`LookupTableFindV2`: the value of each key, `default_value` for
    missing ones. `value_shape`/`key_rank` give the static output shape in
    graphs (TensorFlow reads them from the handle's shape data)."""
    attrs = {}
    if value_shape is not None:
        attrs = {"_value_shape": tuple(value_shape), "_key_rank": key_rank}
    return apply(_LookupTableFindV2, [handle, keys, default_value], attrs,
                 name=name or "LookupTableFindV2")


def lookup_table_insert(handle, keys, values, name=None):
    """`LookupTableInsertV2`: sets each key's value."""
    return _run_no_output(_LookupTableInsertV2, [handle, keys, values], {},
                          name or "LookupTableInsertV2")


def lookup_table_remove(handle, keys, name=None):
    """`LookupTableRemoveV2`: removes the keys (missing keys are ignored)."""
    return _run_no_output(_LookupTableRemoveV2, [handle, keys], {},
                          name or "LookupTableRemoveV2")


def lookup_table_size(handle, name=None):
    """`LookupTableSizeV2`: the number of entries (int64 scalar)."""
    return apply(_LookupTableSizeV2, [handle], name=name or "LookupTableSizeV2")


def lookup_table_export(handle, key_dtype, value_dtype, key_shape=None, value_shape=None,
                        name=None):
    """`LookupTableExportV2`: (keys, values) of every entry."""
    attrs = {"Tkeys": D.as_dtype(key_dtype), "Tvalues": D.as_dtype(value_dtype)}
    if value_shape is not None:
        attrs["_value_shape"] = tuple(value_shape)
        attrs["_key_shape"] = tuple(key_shape or ())
    return apply(_LookupTableExportV2, [handle], attrs, name=name or "LookupTableExportV2",
                 multi=True)


def lookup_table_import(handle, keys, values, name=None):
    """`LookupTableImportV2`: replaces the contents (initializes a static table)."""
    return _run_no_output(_LookupTableImportV2, [handle, keys, values], {},
                          name or "LookupTableImportV2")


def initialize_table(handle, keys, values, name=None):
    """`InitializeTableV2`: fills a static table from key and value vectors."""
    return _run_no_output(_InitializeTableV2, [handle, keys, values], {},
                          name or "InitializeTableV2")


def as_handle(handle):
    """`handle` (an eager handle tensor) as an input of the current context:
    in a function graph, capturing it happens when an op uses it."""
    return handle if _state.graph is None else convert_to_tensor(handle)
