"""The lookup tables themselves: the Python objects a table's resource handle
holds, with TensorFlow's kernels' behaviour and error messages.

- `HashTable` (`HashTableV2`): filled once by an initializer, then
  read-only (`tf.lookup.StaticHashTable`).
- `MutableHashTable` (`MutableHashTableV2` / `MutableHashTableOfTensorsV2`):
  insert, remove, import, scalar or vector values.
- `DenseHashTable` (`MutableDenseHashTableV2`): open addressing with
  TensorFlow's quadratic probing, bucket arrays, growth and hash (the key
  itself for integers, TensorFlow's `Hash64` for strings), so `export`
  returns TensorFlow's buckets in TensorFlow's order.

Keys live in a dict under their Python value (`ndarray.tolist()`: ints and
bytes), so a NumPy int32 and int64 key of equal value are the same key.

Export order: TensorFlow's `HashTable` is an absl map seeded per process (its
order changes between runs), so ours is insertion order. Its
`MutableHashTable` is a libstdc++ `unordered_map`, which for small tables
iterates newest first; ours is reverse insertion order.
"""
import numpy as np

from ...framework import dtypes as D
from ...framework import errors
from ..core.op_util import tf_type_name
from ..state.variables import HandleTensor

_U = np.uint64
_M = _U(0xc6a4a7935bd1e995)


def shape_text(shape):
    """A shape as TensorFlow's `TensorShape::DebugString` writes it: `[2,3]`."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _signature(types):
    return ", ".join(["resource"] + [tf_type_name(t) for t in types])


def check_signature(table, op_name, keys_dtype, values_dtype=None, with_output=False):
    """TensorFlow's `MatchSignature` check of a table op's inputs against the
    table's key and value dtypes (InvalidArgumentError)."""
    have = [keys_dtype] + ([values_dtype] if values_dtype is not None else [])
    want = [table.key_dtype] + ([table.value_dtype] if values_dtype is not None else [])
    if have != want:
        out_have = tf_type_name(values_dtype) if with_output else ""
        out_want = tf_type_name(table.value_dtype) if with_output else ""
        raise errors.InvalidArgumentError(
            None, None, f"Signature mismatch, have: {_signature(have)}->{out_have} expected: "
            f"{_signature(want)}->{out_want}")


def _value_text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, (float, np.floating)):
        return str(v)
    return str(v)


class LookupTable:
    """What every table kind shares: dtypes, shapes, the argument checks of
    TensorFlow's `LookupInterface` and the resource-handle plumbing."""

    # Tensors of dtype resource holding a table print and behave as a
    # variable's handle does.
    _eager_tensor_class = HandleTensor
    key_shape = ()
    value_shape = ()

    def __init__(self, key_dtype, value_dtype, name):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.name = name
        # What `dtype` and `shape` of a variable's handle mean: unused by tables.
        self.dtype = D.resource
        self.shape = None
        self.value = None

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, self.name)

    # --- TensorFlow's argument checks (lookup_interface.cc) ------------------
    def _check_key_shape(self, shape):
        ks = tuple(self.key_shape)
        if ks and tuple(shape[len(shape) - len(ks):]) != ks:
            raise errors.InvalidArgumentError(
                None, None, f"Input key shape {shape_text(shape)} must end with the table's key "
                f"shape {shape_text(ks)}")

    def _fullsize_value_shape(self, key_shape):
        return tuple(key_shape[:len(key_shape) - len(self.key_shape)]) + tuple(self.value_shape)

    def check_find(self, keys, default):
        """The default must have the value shape or one value per key."""
        self._check_key_shape(keys.shape)
        full = self._fullsize_value_shape(keys.shape)
        if default.shape != tuple(self.value_shape) and default.shape != full:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {shape_text(self.value_shape)} or {shape_text(full)} "
                f"for default value, got {shape_text(default.shape)}")

    def check_insert(self, keys, values):
        """Values must have the keys' shape followed by the value shape."""
        self._check_key_shape(keys.shape)
        full = self._fullsize_value_shape(keys.shape)
        if values.shape != full:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {shape_text(full)} for value, got "
                f"{shape_text(values.shape)}")

    check_import = check_insert

    def check_remove(self, keys):
        """Keys must end with the key shape."""
        self._check_key_shape(keys.shape)

    # --- operations a kind may not support ------------------------------------
    def insert(self, keys, values):
        raise NotImplementedError

    def remove(self, keys):
        raise NotImplementedError

    def _out_array(self, values, shape):
        """An array of the table's value dtype and `shape` from a list."""
        if self.value_dtype == D.string:
            out = np.empty(len(values), dtype=object)
            out[:] = values if values else []
            return out.reshape(shape)
        return np.asarray(values, dtype=self.value_dtype._np).reshape(shape)


class _DictTable(LookupTable):
    """A table in a Python dict from key to value (a Python scalar, or an
    array of the value shape)."""

    def __init__(self, key_dtype, value_dtype, name, value_shape=()):
        super().__init__(key_dtype, value_dtype, name)
        self.value_shape = tuple(value_shape)
        self.table = {}

    def size(self):
        return len(self.table)

    def _lookup(self, keys, default):
        get = self.table.get
        flat = keys.reshape(-1).tolist()
        out_shape = self._fullsize_value_shape(keys.shape)
        if not self.value_shape:
            if default.size == len(flat) and default.ndim:
                # One default per key (TensorFlow's "full size" default).
                vals = [get(k, d) for k, d in zip(flat, default.reshape(-1).tolist())]
            else:
                d = default.reshape(-1)[0]
                d = d.item() if hasattr(d, "item") else d
                vals = [get(k, d) for k in flat]
            return self._out_array(vals, out_shape)
        rows = default.reshape(-1, *self.value_shape)
        if rows.shape[0] == len(flat) and default.shape != self.value_shape:
            vals = [get(k, rows[i]) for i, k in enumerate(flat)]
        else:
            vals = [get(k, rows[0]) for k in flat]
        if not vals:
            return np.zeros(out_shape, dtype=object if self.value_dtype == D.string
                            else self.value_dtype._np)
        return np.stack([np.asarray(v) for v in vals]).astype(
            object if self.value_dtype == D.string else self.value_dtype._np).reshape(out_shape)

    def _rows(self, values, n):
        if not self.value_shape:
            return values.reshape(-1).tolist()
        return list(values.reshape(n, *self.value_shape))

    def _export_items(self):
        return list(self.table.items())

    def export(self):
        items = self._export_items()
        keys = [k for k, _ in items]
        if self.key_dtype == D.string:
            karr = np.empty(len(keys), dtype=object)
            karr[:] = keys
        else:
            karr = np.asarray(keys, dtype=self.key_dtype._np).reshape(len(keys))
        vals = [v for _, v in items]
        if self.value_shape:
            vshape = (len(vals),) + self.value_shape
            varr = (np.stack(vals).astype(self.value_dtype._np if self.value_dtype != D.string
                                          else object) if vals
                    else self._out_array([], vshape))
            return karr, varr.reshape(vshape)
        return karr, self._out_array(vals, (len(vals),))


class HashTable(_DictTable):
    """`HashTableV2`: initialized once (later initializations are ignored, as
    in TensorFlow), then read-only."""

    def __init__(self, key_dtype, value_dtype, name):
        super().__init__(key_dtype, value_dtype, name)
        self.initialized = False

    def find(self, keys, default):
        if not self.initialized:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")
        return self._lookup(keys, default)

    def insert(self, keys, values):
        raise errors.UnimplementedError(
            None, None, "Insert not supported by InitializableLookupTable implementations")

    def remove(self, keys):
        raise errors.UnimplementedError(
            None, None, "Remove not supported by InitializableLookupTable implementations")

    def initialize(self, keys, values):
        """Fills the table from vectors `keys` and `values` (no-op once filled).

        Raises:
          FailedPreconditionError: for a key given twice with different values.
        """
        if self.initialized:
            return
        table = {}
        for k, v in zip(keys.reshape(-1).tolist(), values.reshape(-1).tolist()):
            old = table.setdefault(k, v)
            if old != v:
                raise errors.FailedPreconditionError(
                    None, None, f"HashTable has different value for same key. Key "
                    f"{_value_text(k)} has {_value_text(old)} and trying to add value "
                    f"{_value_text(v)}")
        self.table = table
        self.initialized = True

    def import_values(self, keys, values):
        self.initialize(keys, values)


class MutableHashTable(_DictTable):
    """`MutableHashTableV2` (scalar values) and `MutableHashTableOfTensorsV2`
    (vector values)."""

    def find(self, keys, default):
        return self._lookup(keys, default)

    def insert(self, keys, values):
        n = keys.size
        self.table.update(zip(keys.reshape(-1).tolist(), self._rows(values, n)))

    def remove(self, keys):
        pop = self.table.pop
        for k in keys.reshape(-1).tolist():
            pop(k, None)

    def import_values(self, keys, values):
        self.table = {}
        self.insert(keys, values)

    def _export_items(self):
        return list(reversed(self.table.items()))


# --- MutableDenseHashTable ----------------------------------------------------

def hash64(data):
    """TensorFlow's `Hash64` (a MurmurHash64A variant, seed 0xDECAFCAFFE) of
    bytes `data`, as a Python int."""
    mask = (1 << 64) - 1
    m, r = 0xc6a4a7935bd1e995, 47
    n = len(data)
    h = (0xDECAFCAFFE ^ (n * m)) & mask
    full = n - n % 8
    for i in range(0, full, 8):
        k = (int.from_bytes(data[i:i + 8], "little") * m) & mask
        k ^= k >> r
        k = (k * m) & mask
        h = ((h ^ k) * m) & mask
    tail = data[full:]
    if tail:
        for j in range(len(tail) - 1, -1, -1):
            h ^= tail[j] << (8 * j)
        h = (h * m) & mask
    h ^= h >> r
    h = (h * m) & mask
    return h ^ (h >> r)


def _hash_scalar(k):
    if isinstance(k, bytes):
        return hash64(k)
    return int(k) & ((1 << 64) - 1)   # static_cast<uint64>(key)


def _hash64_combine(a, b):
    mask = (1 << 64) - 1
    return (a ^ ((b + 0x9e3779b97f4a7800 + (a << 10) + (a >> 4)) & mask)) & mask


class DenseHashTable(LookupTable):
    """`MutableDenseHashTableV2`: TensorFlow's open-addressing table (bucket
    index = hash & (buckets - 1), then +1, +2, +3... probes), grown to twice
    its buckets whenever an insert would pass `max_load_factor`."""

    def __init__(self, key_dtype, empty_key, deleted_key, value_dtype, value_shape, name,
                 initial_num_buckets=131072, max_load_factor=0.8):
        super().__init__(key_dtype, value_dtype, name)
        if not 0 < max_load_factor < 1:
            raise errors.InvalidArgumentError(
                None, None, f"max_load_factor must be between 0 and 1, got: {max_load_factor}")
        self.value_shape = tuple(value_shape)
        if len(self.value_shape) > 1:
            raise errors.InvalidArgumentError(
                None, None, "Empty value must be a scalar or a vector, got shape "
                f"{shape_text(self.value_shape)}")
        self.key_shape = tuple(empty_key.shape)
        if len(self.key_shape) > 1:
            raise errors.InvalidArgumentError(
                None, None, f"Empty key must be a scalar or a vector, got shape "
                f"{shape_text(self.key_shape)}")
        if tuple(deleted_key.shape) != self.key_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Empty and deleted keys must have same shape, got shapes: "
                f"{shape_text(self.key_shape)} and {shape_text(deleted_key.shape)}")
        self.empty = tuple(empty_key.reshape(-1).tolist())
        self.deleted = tuple(deleted_key.reshape(-1).tolist())
        if self.empty == self.deleted:
            raise errors.InvalidArgumentError(None, None, "Empty and deleted keys cannot be equal")
        self.key_size = len(self.empty)
        self.value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self.max_load_factor = np.float32(max_load_factor)
        self._allocate(int(initial_num_buckets))

    def _allocate(self, n):
        if n < 4 or n & (n - 1):
            raise errors.InvalidArgumentError(
                None, None, f"Number of buckets must be at least 4 and a power of 2, got: {n}")
        self.num_buckets = n
        self.num_entries = 0
        self.keys = [self.empty] * n
        vdefault = b"" if self.value_dtype == D.string else self.value_dtype._np.type(0).item()
        self.values = [(vdefault,) * self.value_size for _ in range(n)]

    def _hash(self, key):
        if self.key_size == 1:
            return _hash_scalar(key[0])
        h = 0
        for k in key:
            h = _hash64_combine(h, _hash_scalar(k))
        return h

    def _key_rows(self, keys, what="key"):
        n = 1 if keys.ndim == 0 else keys.shape[0]
        if keys.size != n * self.key_size:
            raise errors.InvalidArgumentError(
                None, None, f"Expected {what} shape {shape_text((n,) + self.key_shape)} got "
                f"{shape_text(keys.shape)}")
        return [tuple(r) for r in keys.reshape(n, self.key_size).tolist()]

    def _check_special(self, key):
        if key == self.empty:
            raise errors.InvalidArgumentError(
                None, None, "Using the empty_key as a table key is not allowed")
        if key == self.deleted:
            raise errors.InvalidArgumentError(
                None, None, "Using the deleted_key as a table key is not allowed")

    def _probe(self, key, what):
        """The bucket holding `key` or the first empty one on its probe path
        (a lookup or removal stops there)."""
        mask = self.num_buckets - 1
        b = self._hash(key) & mask
        probes = 0
        keys = self.keys
        while True:
            if keys[b] == key or keys[b] == self.empty:
                return b
            probes += 1
            b = (b + probes) & mask
            if probes >= self.num_buckets:
                raise errors.InternalError(
                    None, None, f"Internal error in MutableDenseHashTable {what}")

    def size(self):
        return self.num_entries

    def find(self, keys, default):
        rows = self._key_rows(keys)
        n = len(rows)
        full = default.reshape(-1).tolist()
        per_key = default.size == n * self.value_size and default.shape != self.value_shape
        out = []
        for i, key in enumerate(rows):
            self._check_special(key)
            b = self._probe(key, "lookup")
            if self.keys[b] == key:
                out.extend(self.values[b])
            elif per_key:
                out.extend(full[i * self.value_size:(i + 1) * self.value_size])
            else:
                out.extend(full[:self.value_size])
        shape = tuple(keys.shape[:keys.ndim - len(self.key_shape)]) + self.value_shape
        return self._out_array(out, shape)

    def insert(self, keys, values):
        rows = self._key_rows(keys)
        pending = self.num_entries + len(rows)
        if pending > self.num_buckets * self.max_load_factor:
            # TensorFlow grows assuming every key is new, then reinserts the
            # old buckets in bucket order (dropping deleted ones).
            n = self.num_buckets
            while True:
                n <<= 1
                if not pending > n * self.max_load_factor:
                    break
            old = [(k, v) for k, v in zip(self.keys, self.values)]
            self._allocate(n)
            for k, v in old:
                if k != self.empty and k != self.deleted:
                    self._insert_one(k, v)
        vals = values.reshape(len(rows), self.value_size).tolist()
        for key, v in zip(rows, vals):
            self._check_special(key)
            self._insert_one(key, tuple(v))

    def _insert_one(self, key, value):
        mask = self.num_buckets - 1
        b = self._hash(key) & mask
        probes = 0
        keys = self.keys
        while True:
            if keys[b] == key:
                self.values[b] = value
                return
            if keys[b] == self.empty or keys[b] == self.deleted:
                self.num_entries += 1
                keys[b] = key
                self.values[b] = value
                return
            probes += 1
            b = (b + probes) & mask
            if probes >= self.num_buckets:
                raise errors.InternalError(
                    None, None, "Internal error in MutableDenseHashTable insert")

    def remove(self, keys):
        for key in self._key_rows(keys):
            self._check_special(key)
            b = self._probe(key, "remove")
            if self.keys[b] == key:
                self.num_entries -= 1
                self.keys[b] = self.deleted

    def check_import(self, keys, values):
        self._check_key_shape(keys.shape)
        # Buckets are stored as matrices even for scalar keys and values.
        ks = self.key_shape or (1,)
        vs = self.value_shape or (1,)
        expected = tuple(keys.shape[:keys.ndim - len(ks)]) + vs
        if values.shape != expected:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {shape_text(expected)} for value, got "
                f"{shape_text(values.shape)}")

    def import_values(self, keys, values):
        n = keys.shape[0]
        self.num_buckets = n
        self.keys = [tuple(r) for r in keys.reshape(n, self.key_size).tolist()]
        self.values = [tuple(r) for r in values.reshape(n, self.value_size).tolist()]
        self.num_entries = sum(1 for k in self.keys if k != self.empty and k != self.deleted)

    def export(self):
        n = self.num_buckets
        kflat = [x for k in self.keys for x in k]
        vflat = [x for v in self.values for x in v]
        if self.key_dtype == D.string:
            karr = np.empty(len(kflat), dtype=object)
            karr[:] = kflat
            karr = karr.reshape(n, self.key_size)
        else:
            karr = np.asarray(kflat, dtype=self.key_dtype._np).reshape(n, self.key_size)
        return karr, self._out_array(vflat, (n, self.value_size))
