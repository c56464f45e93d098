"""`tf.lookup.experimental.MutableHashTable` and `DenseHashTable`: tables
whose entries change after creation (`insert`, `remove`, `import`), with
TensorFlow's argument conversion and dtype errors. Both save and restore
their contents through `_serialize_to_tensors`/`_restore_from_tensors`
(the `-keys`/`-values` entries of TensorFlow's checkpoints)."""
from ...framework import context as _context
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from . import table_ops as T
from .lookup_ops import LookupInterface, create_resource

_state = _context.state
_uids = iter(range(1, 1 << 62))


@export("lookup.experimental.MutableHashTable", "compat.v1.lookup.experimental.MutableHashTable")
class MutableHashTable(LookupInterface):
    """A generic mutable hash table: `insert`, `remove`, `lookup`, `export`.

    >>> table = tf.lookup.experimental.MutableHashTable(
    ...     key_dtype=tf.string, value_dtype=tf.int64, default_value=-1)
    >>> table.insert(tf.constant(['a', 'b']), tf.constant([7, 8], tf.int64))
    >>> table.lookup(tf.constant(['a', 'f'])).numpy()
    array([ 7, -1])

    Args:
      key_dtype, value_dtype: the dtypes of keys and values.
      default_value: the value of missing keys; a vector default makes a
        table of vector values of its shape.
      name: a name for the table.
      checkpoint: whether checkpoints save the contents.
      experimental_is_anonymous: use an anonymous table resource.
    """

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        with _context.init_scope():
            self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.shape
        self._checkpoint = checkpoint
        self._name = name
        self._is_anonymous = experimental_is_anonymous
        self._shared_name = None
        if not self._is_anonymous and _state.graph is None:
            self._shared_name = "table_%d" % next(_uids)
        super().__init__(key_dtype, value_dtype)
        self._table_name = None
        self._resource_handle = create_resource(self._create_resource)

    def _create_resource(self):
        vshape = None if self._value_shape.rank == 0 else self._value_shape
        return T.mutable_hash_table(self._key_dtype, self._value_dtype, value_shape=vshape,
                                    shared_name=self._shared_name,
                                    anonymous=self._is_anonymous, name=self._name)

    @property
    def name(self):
        """The table's name (None eagerly, as in TensorFlow)."""
        return self._table_name

    @property
    def default_value(self):
        """The value of missing keys."""
        return self._default_value

    def size(self, name=None):
        """The number of entries (an int64 scalar)."""
        return T.lookup_table_size(self.resource_handle, name=name)

    def remove(self, keys, name=None):
        """Removes `keys` (missing ones are ignored). Returns the op in graphs.

        Raises:
          TypeError: when `keys` do not have the key dtype.
        """
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, "
                            f"received: {keys.dtype}")
        return T.lookup_table_remove(self.resource_handle, keys, name=name)

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of `keys` (any shape): `dynamic_default_values` (the
        default's shape, or one per key) or `default_value` for missing keys."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        # Converted without the value dtype, as TensorFlow's op wrapper does: a
        # mismatch is the kernel's "Signature mismatch".
        default = (self._default_value if dynamic_default_values is None
                   else convert_to_tensor(dynamic_default_values))
        return T.lookup_table_find(self.resource_handle, keys, default,
                                   value_shape=self._value_shape.as_list(), name=name)

    def insert(self, keys, values, name=None):
        """Sets the value of each key (`values` has the keys' shape plus the
        value shape). Returns the op in graphs."""
        keys = convert_to_tensor(keys, self._key_dtype, name="keys")
        values = convert_to_tensor(values, self._value_dtype, name="values")
        return T.lookup_table_insert(self.resource_handle, keys, values, name=name)

    def export(self, name=None):
        """(keys, values) of every entry."""
        return tuple(T.lookup_table_export(self.resource_handle, self._key_dtype,
                                           self._value_dtype, (), self._value_shape.as_list(),
                                           name=name))

    def _serialize_to_tensors(self):
        keys, values = self.export()
        return {"-keys": keys, "-values": values}

    def _restore_from_tensors(self, restored_tensors):
        return T.lookup_table_import(self.resource_handle, restored_tensors["-keys"],
                                     restored_tensors["-values"])


@export("lookup.experimental.DenseHashTable", "compat.v1.lookup.experimental.DenseHashTable")
class DenseHashTable(LookupInterface):
    """A mutable hash table with open addressing (TensorFlow's
    `MutableDenseHashTable`): faster lookups, buckets allocated ahead.

    `empty_key` and `deleted_key` mark free and removed buckets; neither may
    be used as a key. `export` returns all buckets, as TensorFlow's does.

    Args:
      key_dtype, value_dtype: the dtypes of keys and values.
      default_value: the value of missing keys (a scalar or a vector).
      empty_key, deleted_key: two distinct reserved keys (scalars or vectors
        of the key shape).
      initial_num_buckets: a power of 2 >= 4 (default 2**17).
      name: a name for the table.
      checkpoint: whether checkpoints save the contents.
      experimental_is_anonymous: use an anonymous table resource.
    """

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        with _context.init_scope():
            self._default_value = convert_to_tensor(default_value, dtype=value_dtype,
                                                    name="default_value")
        self._key_dtype = key_dtype
        self._value_dtype = value_dtype
        self._initial_num_buckets = initial_num_buckets
        self._value_shape = self._default_value.shape
        self._checkpoint = checkpoint
        self._name = name
        self._empty_key = empty_key
        self._deleted_key = deleted_key
        self._is_anonymous = experimental_is_anonymous
        self._shared_name = None
        if not self._is_anonymous and _state.graph is None:
            self._shared_name = "table_%d" % next(_uids)
        super().__init__(key_dtype, value_dtype)
        self._table_name = None
        self._resource_handle = create_resource(self._create_resource)

    def _create_resource(self):
        empty_key = convert_to_tensor(self._empty_key, dtype=self._key_dtype, name="empty_key")
        deleted_key = convert_to_tensor(self._deleted_key, dtype=self._key_dtype,
                                        name="deleted_key")
        self._key_shape = empty_key.shape
        return T.mutable_dense_hash_table(
            empty_key, deleted_key, self._value_dtype, self._value_shape,
            initial_num_buckets=self._initial_num_buckets, shared_name=self._shared_name,
            anonymous=self._is_anonymous, name=self._name)

    @property
    def name(self):
        """The table's name (None eagerly, as in TensorFlow)."""
        return self._table_name

    def size(self, name=None):
        """The number of entries (an int64 scalar)."""
        return T.lookup_table_size(self.resource_handle, name=name)

    def lookup(self, keys, name=None):
        """The values of `keys`; `default_value` for missing ones."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        return T.lookup_table_find(self.resource_handle, keys, self._default_value,
                                   value_shape=self._value_shape.as_list(),
                                   key_rank=self._key_shape.rank, name=name)

    def insert_or_assign(self, keys, values, name=None):
        """Sets the value of each key. Returns the op in graphs."""
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        values = convert_to_tensor(values, dtype=self._value_dtype, name="values")
        return T.lookup_table_insert(self.resource_handle, keys, values, name=name)

    def insert(self, keys, values, name=None):
        """Sets the value of each key (`insert_or_assign`)."""
        return self.insert_or_assign(keys, values, name)

    def erase(self, keys, name=None):
        """Removes `keys` (missing ones are ignored).

        Raises:
          TypeError: when `keys` do not have the key dtype.
        """
        if keys.dtype != self._key_dtype:
            raise TypeError("Signature mismatch. Keys must be dtype %s, got %s." %
                            (self._key_dtype, keys.dtype))
        return T.lookup_table_remove(self.resource_handle, keys, name=name)

    def remove(self, keys, name=None):
        """Removes `keys` (`erase`)."""
        return self.erase(keys, name)

    def export(self, name=None):
        """(keys, values) of all buckets: `[buckets, key size]` and
        `[buckets, value size]`, free buckets holding `empty_key`."""
        return tuple(T.lookup_table_export(self.resource_handle, self._key_dtype,
                                           self._value_dtype, name=name))

    def _serialize_to_tensors(self):
        keys, values = self.export()
        return {"-keys": keys, "-values": values}

    def _restore_from_tensors(self, restored_tensors):
        return T.lookup_table_import(self.resource_handle, restored_tensors["-keys"],
                                     restored_tensors["-values"])

