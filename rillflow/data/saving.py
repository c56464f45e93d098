"""`tf.data.experimental.save`, `load` and `snapshot`, in TensorFlow's
on-disk format (snapshot version 2), so that either library reads what the
other wrote:

    PATH/dataset_spec.pb       the element spec (a StructuredValue)
    PATH/snapshot.metadata     SnapshotMetadataRecord: run id, dtypes,
                               element count, finalized
    PATH/RUN_ID/NNNNNNNN.shard/00000000.snapshot
                               a TFRecord file (GZIP-compressed if asked)
                               per shard: each element is one record per
                               component, a TensorProto

Elements must be made of dense tensors (TensorFlow writes ragged and sparse
components as variants, which rillflow cannot encode as TensorFlow does);
others are refused with a clear error.

`snapshot` keeps a saved copy of a pipeline under
PATH/FINGERPRINT/: the first full iteration writes it, later ones read it.
TensorFlow names that directory by a hash of the dataset's graph; rillflow
hashes its own description of the pipeline (`_pipeline_fingerprint`: the
runtime datasets, their parameters and the graphs of their functions), so a
snapshot directory is shared between rillflow runs, not with TensorFlow.
A pipeline with Python state it cannot describe (a generator) gets a
fingerprint unique to the process: it is never read back by another one.
"""
import os
import random
import shutil
import time

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors, nest
from ..framework.api_export import export
from ..framework.tensor import EagerTensor
from ..framework.tensor_spec import TensorSpec
from ..io import proto_codec, snapshot_pb, tensor_pb, tfrecord
from ..ops.strings.hash_ops import fingerprint64
from ..saved_model import tf_values as TV
from . import dataset_ops as DS
from . import runtime as R
from . import structure as S

__all__ = ["save", "load", "snapshot"]

_SPEC_FILE = "dataset_spec.pb"
_METADATA_FILE = "snapshot.metadata"
_VERSION = 2


def _compression(value, auto=""):
    value = "" if value is None else str(value).upper()
    if value == "AUTO":
        value = auto
    if value not in ("", "GZIP"):
        raise errors.UnimplementedError(
            None, None, f"Compression {value!r} is not supported by rillflow's tf.data "
                        "snapshots: use None or 'GZIP'.")
    return value


def _dense_specs(spec, what):
    comps = S.leaf_specs(spec)
    for c in comps:
        if type(c) is not TensorSpec or c.dtype in (D.variant, D.resource):
            raise errors.UnimplementedError(
                None, None, f"{what}: rillflow writes tf.data snapshots of dense tensors "
                f"only; the element spec {spec} has a component {c}.")
    return comps


def _shard_dir(run_dir, shard):
    return os.path.join(run_dir, "%08d.shard" % shard)


class _Writer:
    """Writes the shards of one run and its metadata."""

    def __init__(self, path, spec, compression):
        self.path, self.spec, self.compression = path, spec, compression
        self.comps = _dense_specs(spec, "save")
        self.run_id = str(random.getrandbits(63))
        self.run_dir = os.path.join(path, self.run_id)
        self.files = {}
        self.count = 0

    def write(self, components, shard=0):
        w = self.files.get(shard)
        if w is None:
            os.makedirs(_shard_dir(self.run_dir, shard), exist_ok=True)
            w = self.files[shard] = tfrecord.TFRecordWriter(
                os.path.join(_shard_dir(self.run_dir, shard), "00000000.snapshot"),
                self.compression)
        for value, c in zip(components, self.comps):
            w.write(tensor_pb.encode_tensor(np.asarray(value), c.dtype, content=True))
        self.count += 1

    def finish(self):
        for w in self.files.values():
            w.close()
        os.makedirs(self.path, exist_ok=True)
        spec = proto_codec.encode(TV.structure_to_proto(self.spec), "tensorflow.StructuredValue")
        _write(os.path.join(self.path, _SPEC_FILE), spec)
        meta = snapshot_pb.SnapshotMetadataRecord(
            run_id=self.run_id, creation_timestamp=int(time.time() * 1e6), version=_VERSION,
            dtype=[c.dtype.as_datatype_enum for c in self.comps], num_elements=self.count,
            finalized=True)
        _write(os.path.join(self.path, _METADATA_FILE), meta.SerializeToString())


def _write(path, data):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _shard_index(k):
    """The shard a `shard_func` result names.

    Raises:
      InvalidArgumentError: unless it is an int64 scalar (or a Python int).
    """
    v = k.numpy() if hasattr(k, "numpy") else k
    ok = (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, (np.ndarray, np.generic)) and np.asarray(v).shape == () and
        np.asarray(v).dtype == np.int64)
    if not ok:
        raise errors.InvalidArgumentError(None, None, "`shard_func` must return a scalar "
                                                      "int64.")
    if int(v) < 0:
        raise errors.InvalidArgumentError(None, None, "`shard_func` must return a "
                                                      "non-negative int64 value.")
    return int(v)


@export("data.experimental.save")
def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """Writes the elements of `dataset` under directory `path` in
    TensorFlow's snapshot format (see the module docstring).

    Args:
      dataset: a finite `tf.data.Dataset` of dense tensors.
      path: the directory to write.
      compression: None or "GZIP".
      shard_func: maps an element (its tuple unpacked into arguments) to
        the int64 scalar index of the shard it is written to (default: all
        in shard 0).
      checkpoint_args: not supported (writing is not resumable here).

    Raises:
      InvalidArgumentError: if `shard_func` returns other than an int64 scalar.
      UnimplementedError: for composite components, another compression, or
        checkpoint_args.
    """
    DS._check_dataset(dataset, "save")
    if checkpoint_args is not None:
        raise errors.UnimplementedError(
            None, None, "save: `checkpoint_args` (resumable saving) is not supported by "
                        "rillflow.")
    if not _context.executing_eagerly():
        raise RuntimeError("tf.data.experimental.save runs eagerly only in rillflow: call it "
                           "outside tf.function.")
    path = os.fspath(path)
    writer = _Writer(path, dataset.element_spec, _compression(compression))
    for element in dataset:
        shard = 0
        if shard_func is not None:
            args = element if isinstance(element, tuple) else (element,)
            shard = _shard_index(shard_func(*args))
        writer.write([t.numpy() if hasattr(t, "numpy") else t
                      for t in nest.flatten(element, expand_composites=True)], shard)
    writer.finish()


# --- reading ------------------------------------------------------------------------------------

class _ShardNode(R.Node):
    """The elements of one shard's snapshot files, decoded."""

    __slots__ = ("files", "n", "compression")

    def __init__(self, files, n, compression):
        self.files, self.n, self.compression = files, n, compression

    def __iter__(self):
        pending = []
        for path in self.files:
            for record in tfrecord.iter_records(path, self.compression):
                try:
                    value, _ = tensor_pb.decode_tensor(record)
                except Exception:  # noqa: BLE001 - any undecodable record is corruption
                    raise errors.DataLossError(
                        None, None, f"{path}: a record is not a TensorProto") from None
                pending.append(value)
                if len(pending) == self.n:
                    yield tuple(pending)
                    pending = []
        if pending:
            raise errors.DataLossError(None, None, f"{self.files[-1]}: the last element is "
                                                   "missing components")


class _CountedNode(R.Node):
    """A runtime dataset with the element count the metadata records."""

    __slots__ = ("inner", "count")

    def __init__(self, inner, count):
        self.inner, self.count = inner, count

    def __iter__(self):
        return iter(self.inner)

    def cardinality(self):
        return self.count


def _read_snapshot_file(path, filename, kind, decode, what):
    """`decode` of the bytes of the snapshot file `path/filename`.

    Raises:
      NotFoundError: no such file ("tf.data snapshot `kind` file not found").
      DataLossError: `decode` failed on them ("... is not `what`.").
    """
    file_path = os.path.join(path, filename)
    if not os.path.isfile(file_path):
        raise errors.NotFoundError(None, None, f"tf.data snapshot {kind} file not found: "
                                               f"{file_path}.")
    with open(file_path, "rb") as f:
        try:
            return decode(f.read())
        except Exception:  # noqa: BLE001 - any undecodable file is corruption
            raise errors.DataLossError(None, None, f"{file_path} is not {what}.") from None


def _read_metadata(path):
    return _read_snapshot_file(path, _METADATA_FILE, "metadata",
                               snapshot_pb.SnapshotMetadataRecord.FromString,
                               "a SnapshotMetadataRecord")


def _read_spec(path):
    return _read_snapshot_file(
        path, _SPEC_FILE, "element_spec",
        lambda data: TV.structure_from_proto(proto_codec.decode(data,
                                                                "tensorflow.StructuredValue")),
        "a valid element spec")


def _shard_datasets(path, spec, compression, meta):
    run_dir = os.path.join(path, meta.run_id)
    if not meta.run_id or os.path.basename(meta.run_id) != meta.run_id or \
            not os.path.isdir(run_dir):
        shards = []
    else:
        shards = sorted(d for d in os.listdir(run_dir) if d.endswith(".shard"))
    n = len(_dense_specs(spec, "load"))
    out = []
    for d in shards:
        files = sorted(os.path.join(run_dir, d, f) for f in os.listdir(os.path.join(run_dir, d))
                       if f.endswith(".snapshot"))
        out.append(_dataset(_ShardNode(files, n, compression), spec))
    return out


def _dataset(node, spec):
    return DS.make_dataset("LoadDataset", EagerTensor(node), spec)


def _default_reader(datasets):
    # TensorFlow's default: interleave the shards, as many at a time as
    # there are CPU cores, one element from each in turn.
    return datasets.interleave(lambda x: x, cycle_length=os.cpu_count() or 1, block_length=1)


def _read(path, spec, compression, reader_func, meta):
    shards = _shard_datasets(path, spec, compression, meta)
    if not shards:
        ds = _dataset(_CountedNode([], 0), spec)
        return ds
    datasets = DS.Dataset.from_tensors(shards[0])
    for d in shards[1:]:
        datasets = datasets.concatenate(DS.Dataset.from_tensors(d))
    out = (reader_func or _default_reader)(datasets)
    if reader_func is None and meta.finalized:
        out = _dataset(_CountedNode(DS.runtime_node(out), meta.num_elements), out.element_spec)
    return out


@export("data.experimental.load")
def load(path, element_spec=None, compression=None, reader_func=None):
    """The dataset `save` (or TensorFlow's save) wrote under `path`.

    Args:
      path: the directory.
      element_spec: the element spec (default: read from dataset_spec.pb).
      compression: what the files were written with: None or "GZIP".
      reader_func: maps the dataset of per-shard datasets to the dataset to
        return (default: interleave them, as TensorFlow does).

    Raises:
      NotFoundError: if `path` holds no saved dataset.
      DataLossError: for corrupt files (when read).
    """
    path = os.fspath(path)
    spec = element_spec if element_spec is not None else _read_spec(path)
    return _read(path, spec, _compression(compression), reader_func, _read_metadata(path))


# --- snapshot -------------------------------------------------------------------------------------

def _describe(value, out, seen, depth=0):
    """Appends a description of a pipeline's parts to `out` (bytes)."""
    if depth > 200:
        out.append(b"deep")
        return
    if isinstance(value, (str, bytes, int, float, bool, type(None), np.generic)):
        out.append(repr(value).encode())
    elif isinstance(value, np.ndarray):
        out.append(repr((value.dtype.str, value.shape)).encode())
        out.append(value.tobytes() if value.dtype.kind != "O" else repr(value.tolist()).encode())
    elif isinstance(value, (list, tuple)):
        out.append(b"[")
        for v in value:
            _describe(v, out, seen, depth + 1)
        out.append(b"]")
    elif isinstance(value, dict):
        for k in sorted(value, key=repr):
            out.append(repr(k).encode())
            _describe(value[k], out, seen, depth + 1)
    elif id(value) in seen:
        out.append(b"seen%d" % seen[id(value)])
    elif isinstance(value, R.VariantValue) or hasattr(value, "get_operations"):
        seen[id(value)] = len(seen)
        out.append(type(value).__name__.encode())
        if hasattr(value, "get_operations"):         # a function's graph
            for op in value.get_operations():
                out.append(op.type.encode())
                _describe([t.name for t in op.inputs], out, seen, depth + 1)
                _describe({k: v for k, v in op.attrs.items()
                           if isinstance(v, (str, bytes, int, float, bool, np.ndarray,
                                             np.generic, list, tuple, D.DType))},
                          out, seen, depth + 1)
        for cls in type(value).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot != "__weakref__" and hasattr(value, slot):
                    out.append(slot.encode())
                    _describe(getattr(value, slot), out, seen, depth + 1)
    elif isinstance(value, D.DType):
        out.append(value.name.encode())
    elif hasattr(value, "graph") and hasattr(value.graph, "get_operations"):
        _describe(value.graph, out, seen, depth + 1)
    elif hasattr(value, "_v"):
        _describe(value._v, out, seen, depth + 1)
    else:
        # Python state rillflow cannot describe (a generator, a callable):
        # unique to this process, so never mistaken for another pipeline's.
        out.append(b"object%d:%d" % (os.getpid(), id(value)))


def _pipeline_fingerprint(dataset):
    out = [repr(dataset.element_spec).encode()]
    _describe(DS.runtime_node(dataset), out, {})
    return "%d" % int(fingerprint64([b"".join(out)])[0])


class _SnapshotNode(R.Node):
    """Reads the finalized snapshot under `directory`, or iterates `inner`
    and writes it (finalized when an iteration reaches the end)."""

    __slots__ = ("inner", "directory", "spec", "compression", "reader_func", "shard_func")

    def __init__(self, inner, directory, spec, compression, reader_func, shard_func):
        self.inner, self.directory, self.spec = inner, directory, spec
        self.compression, self.reader_func, self.shard_func = compression, reader_func, \
            shard_func

    def _finalized(self):
        try:
            meta = _read_metadata(self.directory)
        except (errors.NotFoundError, errors.DataLossError):
            return None
        return meta if meta.finalized and meta.version == _VERSION else None

    def __iter__(self):
        meta = self._finalized()
        if meta is not None:
            ds = _read(self.directory, self.spec, self.compression, self.reader_func, meta)
            yield from DS.runtime_node(ds)
            return
        writer = _Writer(self.directory, self.spec, self.compression)
        try:
            for element in self.inner:
                shard = 0
                if self.shard_func is not None:
                    packed = S.pack_tensors(self.spec, [EagerTensor(v) for v in element])
                    args = packed if isinstance(packed, tuple) else (packed,)
                    shard = _shard_index(self.shard_func(*args))
                writer.write(element, shard)
                yield element
        except GeneratorExit:
            # An unfinished pass leaves no snapshot behind (TensorFlow
            # resumes it; rillflow starts over next time).
            shutil.rmtree(writer.run_dir, ignore_errors=True)
            raise
        writer.finish()

    def cardinality(self):
        return self.inner.cardinality()


@export("data.experimental.snapshot")
def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation keeping a saved copy of the dataset under `path`:
    the first complete iteration writes it (TensorFlow's snapshot format),
    later iterations, in this run or another, read it instead of computing
    the pipeline again. See the module docstring for how the copy is
    named.

    Args:
      path: the directory holding snapshots.
      compression: "AUTO" (rillflow: none), None or "GZIP".
      reader_func, shard_func: as for `load` and `save`.

    Raises:
      UnimplementedError: for composite components or another compression.
    """
    comp = _compression(compression)

    def _apply(dataset):
        DS._check_dataset(dataset, "snapshot")
        _dense_specs(dataset.element_spec, "snapshot")
        directory = os.path.join(os.fspath(path), _pipeline_fingerprint(dataset))
        node = _SnapshotNode(DS.runtime_node(dataset), directory, dataset.element_spec, comp,
                             reader_func, shard_func)
        return _dataset(node, dataset.element_spec)
    return _apply
