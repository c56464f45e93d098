"""`tf.lookup`: static tables and their initializers.

`StaticHashTable` (filled once by a `KeyValueTensorInitializer` or a
`TextFileInitializer`), `StaticVocabularyTable` (a static table of ids plus
Fingerprint64 buckets for the keys it lacks), `TextFileIndex`, and
`tf.compat.v1.tables_initializer`. The mutable tables are in
mutable_tables.py; both build on the ops of table_ops.py.

As in TensorFlow, a table's resource is created in the outermost context
(`init_scope`), while its initialization runs where the table is built:
eagerly at once, or as an op of the function being traced (initializing an
initialized table does nothing). Keys may be dense, `SparseTensor` or
`RaggedTensor`; the result has the same structure.
"""
import uuid

from ...framework import context as _context
from ...framework import dtypes as D
from ...framework.api_export import export
from ...framework.convert import convert_to_tensor
from ...framework.sparse_tensor import SparseTensor
from ...framework.tensor_shape import TensorShape
from ..control_flow.control_ops import group, no_op
from ..core import math_ops
from ..core.broadcast_ops import where
from ..ragged.ragged_tensor import RaggedTensor
from ..strings.hash_ops import to_hash_bucket_fast
from ..strings.string_ops import as_string
from . import table_ops as T
from . import text_file_ops

_state = _context.state
_uids = iter(range(1, 1 << 62))

# The graph collection of table initializer ops (TensorFlow's
# GraphKeys.TABLE_INITIALIZERS), which `tables_initializer` groups.
TABLE_INITIALIZERS = "table_initializer"


def _uid():
    return next(_uids)


def _add_initializer(op):
    g = _state.graph
    if g is not None and op is not None:
        g.add_to_collection(TABLE_INITIALIZERS, op)


def create_resource(create):
    """Runs `create()` (which makes a table handle) in the outermost context.
    In a v1 graph the table is made at once, as a variable's storage is, so
    it lives as long as the Python object rather than one `Session.run`."""
    with _context.init_scope():
        if _state.graph is not None:
            with _context.eager_mode():
                return create()
        return create()


def check_table_dtypes(table, key_dtype, value_dtype):
    """Checks that `key_dtype` and `value_dtype` match the table's dtypes.

    Raises:
      TypeError: when either does not match.
    """
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} "
                        f"but got {key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError("Invalid value dtype for table, expected "
                        f"{table.value_dtype} but got {value_dtype}.")


def split_composite(keys):
    """(the keys' flat values tensor, a function rebuilding the keys'
    structure around new values) for a dense, sparse or ragged `keys`."""
    if isinstance(keys, SparseTensor):
        return keys.values, lambda v: SparseTensor(keys.indices, v, keys.dense_shape)
    if isinstance(keys, RaggedTensor):
        return keys.values, keys.with_values
    return keys, lambda v: v


class LookupInterface:
    """A lookup table that persists across steps: its key and value dtypes,
    `size`, `lookup` and `table[keys]`."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = D.as_dtype(key_dtype)
        self._value_dtype = D.as_dtype(value_dtype)

    def _create_resource(self):
        raise NotImplementedError

    @property
    def resource_handle(self):
        """The table's resource handle tensor."""
        h = self.__dict__.get("_resource_handle")
        if h is None:
            h = self._resource_handle = create_resource(self._create_resource)
        return h

    @property
    def key_dtype(self):
        """The table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The table value dtype."""
        return self._value_dtype

    @property
    def name(self):
        """The name of the table."""
        return NotImplementedError

    def size(self, name=None):
        """Compute the number of elements in this table."""
        raise NotImplementedError

    def lookup(self, keys, name=None):
        """Looks up `keys` in a table, outputs the corresponding values."""
        raise NotImplementedError

    def __getitem__(self, keys):
        """Looks up `keys` in a table, outputs the corresponding values."""
        return self.lookup(keys)


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by an initializer (`TableInitializerBase`), with a
    scalar default value for missing keys."""

    def __init__(self, default_value, initializer):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        with _context.init_scope():
            self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.shape.merge_with(TensorShape([]))
        self._initializer = initializer
        self._resource_handle = create_resource(self._create_resource)
        self._init_op = self._initialize()

    def _initialize(self):
        return self._initializer.initialize(self)

    @property
    def default_value(self):
        """The default value of the table."""
        return self._default_value

    def size(self, name=None):
        """The number of elements in this table (an int64 scalar)."""
        return T.lookup_table_size(self.resource_handle, name=name)

    def lookup(self, keys, name=None):
        """Looks up `keys` (a dense, sparse or ragged tensor of the key dtype);
        `default_value` for missing keys. The result has the keys' structure.

        Raises:
          TypeError: when `keys` do not have the table's key dtype.
        """
        key_tensor, rebuild = split_composite(keys)
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, "
                            f"received: {keys.dtype}")
        values = T.lookup_table_find(self.resource_handle, key_tensor, self._default_value,
                                     value_shape=(), name=name)
        return rebuild(values)


@export("lookup.StaticHashTable")
class StaticHashTable(InitializableLookupTableBase):
    """A generic hash table that is immutable once initialized.

    >>> table = tf.lookup.StaticHashTable(
    ...     tf.lookup.KeyValueTensorInitializer(['a', 'b', 'c'], [7, 8, 9]), -1)
    >>> table.lookup(tf.constant(['a', 'f'])).numpy()
    array([ 7, -1], dtype=int32)

    Args:
      initializer: a `KeyValueTensorInitializer` or `TextFileInitializer`,
        which also gives the key and value dtypes.
      default_value: the (scalar) value of missing keys.
      name: a name for the table.
      experimental_is_anonymous: use an anonymous table resource.
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._default_value = default_value
        self._is_anonymous = experimental_is_anonymous
        if not self._is_anonymous:
            self._shared_name = initializer._shared_name
            if not self._shared_name:
                self._shared_name = "hash_table_%s" % (str(uuid.uuid4()),)
        self._name = name or "hash_table"
        self._table_name = None
        super().__init__(default_value, initializer)
        self._value_shape = self._default_value.shape

    def _create_resource(self):
        # The dtypes as DTypes: Keras' placeholder initializer gives names.
        return T.hash_table(self._key_dtype, self._value_dtype,
                            shared_name=None if self._is_anonymous else self._shared_name,
                            anonymous=self._is_anonymous, name=self._name)

    @property
    def name(self):
        """The table's name (None eagerly, as in TensorFlow)."""
        return self._table_name

    def export(self, name=None):
        """(keys, values): tensors of all keys and all values in the table."""
        return tuple(T.lookup_table_export(self.resource_handle, self._key_dtype,
                                           self._value_dtype, (), (), name=name))

    def _serialize_to_proto(self, **unused_kwargs):
        return None


@export("compat.v1.lookup.StaticHashTable")
class StaticHashTableV1(StaticHashTable):
    """`tf.compat.v1.lookup.StaticHashTable`: a StaticHashTable with
    `initializer`, the op that fills it (for `Session.run`)."""

    @property
    def initializer(self):
        """The op that initializes the table (None eagerly)."""
        return self._init_op


class HashTable(StaticHashTableV1):
    """The TF1 name of StaticHashTableV1 (`init` is its `initializer`)."""

    @property
    def init(self):
        """The op that initializes the table."""
        return self.initializer


class TableInitializerBase:
    """Base class for lookup table initializers: the key and value dtypes and
    `initialize(table)`."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = D.as_dtype(key_dtype)
        self._value_dtype = D.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        """The expected table key dtype."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The expected table value dtype."""
        return self._value_dtype

    def initialize(self, table):
        """Returns the table initialization op."""
        raise NotImplementedError

    @property
    def _shared_name(self):
        # Eagerly a unique name, so tables never share a resource by accident.
        return str(_uid()) if _state.graph is None else ""


@export("lookup.KeyValueTensorInitializer", "compat.v1.lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(TableInitializerBase):
    """Table initializer from `keys` and `values` tensors (vectors of equal
    length; a key given twice must have the same value).

    Args:
      keys: the keys (a tensor or Python/NumPy values).
      values: the values.
      key_dtype, value_dtype: dtypes for Python values.
      name: a name for the initialization.
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        if _state.graph is None:
            self._name += str(_uid())
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """Fills `table` with the keys and values (`LookupTableImportV2`).

        Raises:
          TypeError: when the dtypes do not match the table's.
        """
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        op = T.lookup_table_import(table.resource_handle, self._keys, self._values,
                                   name=self._name)
        _add_initializer(op)
        return op


@export("lookup.TextFileIndex", "compat.v1.lookup.TextFileIndex")
class TextFileIndex:
    """Which part of each line is the key or value: `WHOLE_LINE` (-2), the
    `LINE_NUMBER` (-1, int64), or a column index >= 0 split by the delimiter."""
    WHOLE_LINE = text_file_ops.WHOLE_LINE
    LINE_NUMBER = text_file_ops.LINE_NUMBER


@export("lookup.TextFileInitializer", "compat.v1.lookup.TextFileInitializer")
class TextFileInitializer(TableInitializerBase):
    """Table initializer from a text file: one entry per line.

    >>> init = tf.lookup.TextFileInitializer(
    ...     "vocab.txt", tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
    ...     tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)

    Args:
      filename: the file (a path or a string tensor).
      key_dtype, key_index: the key's dtype and where it is in a line.
      value_dtype, value_index: the value's dtype and where it is.
      vocab_size: the number of lines to read (all by default); the file
        must have at least that many.
      delimiter: the column separator (one character).
      name: a name for the initialization.
      value_index_offset: added to line numbers used as keys or values.

    Raises:
      ValueError: for an empty filename, an index below -2, a dtype that does
        not suit its index, or `vocab_size <= 0`.
    """

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        if not hasattr(filename, "dtype") and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        self._filename_arg = filename
        key_dtype = D.as_dtype(key_dtype)
        value_dtype = D.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"`key_index` should be >= -2, received: {key_index}.")
        if key_index == TextFileIndex.LINE_NUMBER and key_dtype != D.int64:
            raise ValueError("`key_dtype` must be int64 if `key_index` is "
                             f"{TextFileIndex.LINE_NUMBER}, received: {key_dtype}")
        if (key_index == TextFileIndex.WHOLE_LINE and not key_dtype.is_integer
                and key_dtype != D.string):
            raise ValueError("`key_dtype` should be either integer or string for `key_index` "
                             f"{TextFileIndex.WHOLE_LINE}, received: {key_dtype}")
        if value_index < -2:
            raise ValueError(f"`value_index` should be >= -2, received: {value_index}")
        if value_index == TextFileIndex.LINE_NUMBER and value_dtype != D.int64:
            raise ValueError("`value_dtype` must be int64 for `value_index` "
                             f"{TextFileIndex.LINE_NUMBER}, received: {value_dtype}")
        if (value_index == TextFileIndex.WHOLE_LINE and not value_dtype.is_integer
                and value_dtype != D.string):
            raise ValueError("`value_dtype` should be either integer or string for "
                             f"`value_index` {TextFileIndex.WHOLE_LINE}, received: "
                             f"{value_dtype}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._filename = filename
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        """Fills `table` from the file (`InitializeTableFromTextFileV2`).

        Raises:
          TypeError: when the dtypes do not match the table's.
        """
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        filename = convert_to_tensor(self._filename, D.string, name="asset_filepath")
        op = text_file_ops.initialize_table_from_text_file(
            table.resource_handle, filename, self._key_index, self._value_index,
            -1 if self._vocab_size is None else self._vocab_size, self._delimiter,
            self._offset, name=self._name)
        _add_initializer(op)
        return op

    @property
    def _shared_name(self):
        # TensorFlow names a file's table after the file and the indices.
        parts = [str(self._filename_arg)]
        if self._vocab_size:
            parts.append("%d" % self._vocab_size)
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "hash_table_" + "_".join(parts)


def _as_string(tensor):
    if tensor.dtype.base_dtype == D.string:
        return tensor
    return as_string(tensor)


@export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(LookupInterface):
    """Keys to int64 ids: those of the initializer's table, and for other keys
    `vocab_size + Fingerprint64(key) % num_oov_buckets` (integer keys hashed
    as their decimal text), as TensorFlow assigns them.

    Args:
      initializer: a table initializer with int64 values and string or int64
        keys, or None for buckets only (string keys).
      num_oov_buckets: the number of buckets for missing keys (> 0).
      lookup_key_dtype: the dtype of keys passed to `lookup` (default: the
        initializer's key dtype), cast to the table's.
      name: a name for the table.
      experimental_is_anonymous: use an anonymous table resource.

    Raises:
      ValueError: when `num_oov_buckets` is not positive.
      TypeError: for key dtypes other than integers and string, or values
        other than int64.
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            lookup_key_dtype = D.as_dtype(lookup_key_dtype)
            supported = (D.int64, D.string)
            if initializer.key_dtype not in supported:
                raise TypeError("Invalid `key_dtype`, expected one of (tf.int64, tf.string), "
                                f"but got {initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(
                    "Invalid `key_dtype`, expected %s but got %s." %
                    ("integer" if lookup_key_dtype.is_integer else "non-integer",
                     initializer.key_dtype))
            if initializer.value_dtype != D.int64:
                raise TypeError("Invalid `value_dtype`, expected %s but got %s." %
                                (D.int64, initializer.value_dtype))
            self._initializer = initializer
            self._table = HashTable(initializer, default_value=-1,
                                    experimental_is_anonymous=experimental_is_anonymous)
            name = name or self._table.name
        else:
            lookup_key_dtype = D.string
            self._table = None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != D.string:
            raise TypeError("Invalid `key_dtype`, expected integer or string, got "
                            f"{lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = None
        if name is not None:
            self._table_name = name.split("/")[-1]
        super().__init__(lookup_key_dtype, D.int64)

    def _create_resource(self):
        if self._table is not None:
            return self._table._create_resource()
        return None

    def _initialize(self):
        if self._table is not None:
            return self._table._initialize()
        return no_op() if _state.graph is not None else None

    @property
    def resource_handle(self):
        """The inner table's handle (None without an initializer)."""
        if self._table is not None:
            return self._table.resource_handle
        return None

    @property
    def name(self):
        """The table's name."""
        return self._table_name

    def size(self, name=None):
        """The number of ids: the table's size plus the buckets (int64)."""
        if self._table:
            tsize = self._table.size()
        else:
            tsize = convert_to_tensor(0, dtype=D.int64)
        return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """The id of each key (dense, sparse or ragged; same structure back).

        Raises:
          TypeError: when `keys` do not have the lookup key dtype.
        """
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, "
                            f"received: {keys.dtype}")
        values, rebuild = split_composite(keys)
        if self._table and self._table.key_dtype.base_dtype == D.int64:
            values = math_ops.cast(values, D.int64)
        buckets = to_hash_bucket_fast(_as_string(values), num_buckets=self._num_oov_buckets,
                                      name="hash_bucket")
        if self._table:
            ids = self._table.lookup(values)
            buckets = math_ops.add(buckets, self._table.size())
            is_id_non_default = math_ops.not_equal(ids, self._table.default_value)
            ids = where(is_id_non_default, ids, buckets)
        else:
            ids = buckets
        return rebuild(ids)


@export("compat.v1.lookup.StaticVocabularyTable")
class StaticVocabularyTableV1(StaticVocabularyTable):
    """`tf.compat.v1.lookup.StaticVocabularyTable`, with `initializer`."""

    @property
    def initializer(self):
        """The op that initializes the table."""
        if self._table is not None:
            return self._table._init_op
        return no_op()


@export("compat.v1.initializers.tables_initializer", "compat.v1.tables_initializer")
def tables_initializer(name="init_all_tables"):
    """An op that initializes every table of the default graph (a no-op
    eagerly, where tables initialize when created)."""
    g = _state.graph
    inits = g.get_collection(TABLE_INITIALIZERS) if g is not None else []
    if inits:
        return group(*inits, name=name)
    return no_op(name=name)


@export("compat.v1.initialize_all_tables")
def initialize_all_tables(name="init_all_tables"):
    """The deprecated name of `tables_initializer`."""
    return tables_initializer(name)
