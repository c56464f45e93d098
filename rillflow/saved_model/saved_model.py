"""`tf.saved_model.save`, `load` and `contains_saved_model`, in rillflow's
own safe format.

A SavedModel directory holds

  saved_model.json              the object graph (user objects, variables,
                                functions and their attributes), the
                                function graphs (graph_io.py) and signatures
  variables/variables.index     the variable values (TensorFlow's tensor
  variables/variables.data-*    bundle, io/tensor_bundle.py, keyed as
                                TensorFlow keys them:
                                `path/to/v/.ATTRIBUTES/VARIABLE_VALUE`, with
                                the object graph a checkpoint reads)
  assets/                       the files of the `tf.saved_model.Asset`s

Loading needs none of the Python code that built the model: functions are
rebuilt op by op from the op registry, variables from their saved values.
Nothing is unpickled or evaluated.

Not saved, as Python code: a tf.py_function's function (the restored op
raises when it runs, as in TensorFlow), a Dataset.from_generator generator,
and custom gradients that cannot be traced.
"""
import hashlib
import json
import os
import shutil

import numpy as np

from ..framework import context as _context
from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.func_graph import trace_function
from ..framework.tensor import Tensor
from ..framework.tensor_spec import TensorSpec
from ..function.concrete_function import ConcreteFunction
from ..function.polymorphic_function import Function
from . import options as _options  # noqa: F401  (SaveOptions, LoadOptions, constants)
from .graph_io import FormatError, GraphReader, GraphWriter
from .saved_objects import ObjectGraphWriter, restore_objects
from .restored import RestoredFunction, SignatureFunction, SignatureMap
from ..framework import nest
from ..io import tensor_bundle
from . import checkpoint_graph
from . import tf_load, tf_save

__all__ = ["save", "load", "contains_saved_model"]

_FORMAT = "rillflow-saved-model"
_VERSION = 1
_FILENAME = "saved_model.json"
_VARIABLES = os.path.join("variables", "variables")
_DEFAULT_SIGNATURE = "serving_default"
# Where tf.train.Checkpoint reads the object graph of a tensor file.
_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


@export("saved_model.contains_saved_model")
def contains_saved_model(export_dir):
    """Whether `export_dir` holds a SavedModel (its `saved_model.pb`, or
    rillflow's `saved_model.json`)."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, f))
               for f in (tf_load.PB_FILENAME, _FILENAME))


# --- saving ------------------------------------------------------------------------------

@export("saved_model.save")
def save(obj, export_dir, signatures=None, options=None):
    """Saves `obj` (a `tf.Module`, or a `tf.function`) with its variables and
    the traced graphs of its tf.functions to `export_dir`.

    Functions with an `input_signature` are traced if they have not been
    called; other functions keep the traces of earlier calls. `signatures`
    is a tf.function with an input_signature, a ConcreteFunction, or a dict
    of them by signature key; without it, the one root-level function with
    an input_signature (if exactly one) becomes `"serving_default"`.

    Raises:
      ValueError: for an object that cannot be saved or an invalid signature.
      AssertionError: when a function uses a variable the object does not
        track (as TensorFlow raises).
    """
    if _context.state.graph is not None:
        raise AssertionError("`tf.saved_model.save` is not supported inside a traced "
                             "@tf.function. Move the call to the outer eagerly-executed "
                             "context.")
    if not ObjectGraphWriter.is_trackable(obj):
        raise ValueError("Expected an object of type `Trackable`, such as `tf.Module` or a "
                         f"subclass of the `Trackable` class, for export. Got {obj!r} with "
                         f"type {type(obj)}.")
    export_dir = os.fspath(export_dir)
    objects = ObjectGraphWriter(obj)
    writer = GraphWriter(objects.variable_key)
    writer.asset_names = objects.asset_captures()
    object_nodes = objects.encode(writer)
    sig_fns = _signature_functions(obj, signatures, objects)
    wrappers = {key: _signature_wrapper(cf) for key, cf in sig_fns.items()}
    sig_names = {key: writer.add_function(w) for key, w in wrappers.items()}
    pb = tf_save.saved_model_bytes(objects, wrappers,
                                   getattr(options, "function_aliases", None))
    doc = {"format": _FORMAT, "version": _VERSION, "objects": object_nodes,
           "signatures": sig_names, "library": writer.to_json(),
           "saved_model_pb_sha256": hashlib.sha256(pb).hexdigest()}
    text = json.dumps(doc, allow_nan=False, separators=(",", ":"))
    os.makedirs(os.path.join(export_dir, "assets"), exist_ok=True)
    for i, name in objects.asset_files.items():
        _copy_asset(objects.objects[i]._path, os.path.join(export_dir, "assets", name))
    _write_atomically(os.path.join(export_dir, tf_load.PB_FILENAME), pb)
    tensors = objects.variable_values()
    tensors[_OBJECT_GRAPH_KEY] = np.array(
        checkpoint_graph.to_bytes(objects.checkpoint_graph()["nodes"]), dtype=object)
    _write_variables(os.path.join(export_dir, _VARIABLES), tensors)
    _write_atomically(os.path.join(export_dir, _FILENAME), text.encode("utf-8"))


def _copy_asset(source, target):
    """Copies an asset's file into assets/ (a no-op when saving over itself).

    Raises:
      NotFoundError: if the asset's file does not exist.
    """
    if not os.path.isfile(source):
        raise errors.NotFoundError(None, None, f"{source}; No such file or directory")
    if os.path.abspath(source) != os.path.abspath(target):
        shutil.copyfile(source, target)


def _write_atomically(path, data):
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _write_variables(prefix, tensors):
    """Writes variable values (a dict key -> array) as tensor files."""
    tensor_bundle.write_tensors(prefix, tensors)


def _read_variables(prefix):
    """The variable values written by `_write_variables`."""
    return tensor_bundle.read_tensors(prefix)


def _signature_functions(root, signatures, objects):
    """The ConcreteFunctions to export as signatures, by key."""
    if signatures is None and isinstance(getattr(root, "signatures", None), SignatureMap):
        signatures = dict(root.signatures)  # a loaded SavedModel saved again
    if signatures is None:
        # As TensorFlow: a root function named `_default_save_signature`
        # (Keras models have one), else the one root function with an
        # input signature.
        default = objects.root_function("_default_save_signature")
        if default is not None:
            signatures = default
        else:
            found = [c for c in map(_as_signature, objects.root_functions())
                     if c is not None and _valid_signature(c)]
            if len(found) != 1:
                return {}
            signatures = found[0]
    if not isinstance(signatures, dict):
        signatures = {_DEFAULT_SIGNATURE: signatures}
    out = {}
    for key, fn in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Signature keys must be strings, got {key!r}.")
        if isinstance(fn, (Function, RestoredFunction)) and fn.input_signature is not None:
            fn = fn.get_concrete_function()
        if not isinstance(fn, ConcreteFunction):
            raise ValueError(
                f"Expected a TensorFlow function for which to generate a signature, but got "
                f"{fn!r}. Only `tf.functions` with an input signature or concrete functions "
                "can be used as a signature.")
        out[key] = fn
    return out


def _as_signature(fn):
    """The ConcreteFunction a function gives as a signature: itself, or the
    trace of a tf.function with an input_signature; else None."""
    if isinstance(fn, (Function, RestoredFunction)) and fn.input_signature is not None:
        try:
            return fn.get_concrete_function()
        except (TypeError, ValueError):
            return None
    return fn if isinstance(fn, ConcreteFunction) else None


def _valid_signature(cf):
    """Whether `cf` can serve as a signature, as TensorFlow decides when it
    picks one itself: it has outputs, all tensors, and takes no variables."""
    if not cf.graph.outputs:
        return False
    try:
        _named_outputs(cf.graph.structured_outputs)
    except ValueError:
        return False
    return all(t.dtype is not D.resource for t in cf.graph.inputs[:cf._num_args])


def _signature_wrapper(cf):
    """A function of keyword tensor arguments returning a dict of named
    outputs that calls `cf`, as TensorFlow exports signatures."""
    inputs = cf.graph.inputs[:cf._num_args]
    names = [t.op.name for t in inputs]
    for t in inputs:
        if t.dtype is D.resource:
            raise ValueError(f"Signature function {cf.graph.name} takes a variable argument; "
                             "signatures take only tensors.")
    specs = {n: TensorSpec(t.shape, t.dtype, name=n) for n, t in zip(names, inputs)}

    def wrapper(**kwargs):
        return _named_outputs(cf._call_flat([kwargs[n] for n in names]))
    with _context.eager_mode():
        fg = trace_function("signature_wrapper_" + cf.graph.name, wrapper, (),
                            dict(sorted(specs.items())))
    return ConcreteFunction(fg, [])


def _named_outputs(out):
    """A signature's outputs: the function's dict of tensors, or its flat
    outputs named `output_0`, `output_1`, ..."""
    if isinstance(out, dict) and all(isinstance(k, str) for k in out) and \
            all(isinstance(v, Tensor) for v in out.values()):
        return dict(out)
    flat = nest.flatten(out)
    for v in flat:
        if not isinstance(v, Tensor):
            raise ValueError(f"Got a non-Tensor value {v!r} for the output of a signature "
                             "function; signatures must return tensors.")
    return {"output_%d" % i: v for i, v in enumerate(flat)}


# --- loading -----------------------------------------------------------------------------

@export("saved_model.load", "saved_model.load_v2")
def load(export_dir, tags=None, options=None):
    """Loads a SavedModel written by `tf.saved_model.save`.

    Returns the restored root object: its variables are Variables holding
    the saved values, its functions call the saved traces, and
    `.signatures` maps signature keys to ConcreteFunctions.

    Raises:
      OSError: if there is no SavedModel at `export_dir`, or its file cannot
        be parsed.
    """
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, _FILENAME)
    pb_path = os.path.join(export_dir, tf_load.PB_FILENAME)
    aliases = bool(getattr(options, "experimental_load_function_aliases", False))
    # Function aliases are recorded in saved_model.pb only.
    doc = None if aliases else _rillflow_document(path, pb_path)
    if doc is None:
        proto = tf_load.read_saved_model(export_dir)
        with _context.eager_mode():
            return tf_load.load_objects(export_dir, proto, tags, load_aliases=aliases)
    values = _read_variables(os.path.join(export_dir, _VARIABLES))
    with _context.eager_mode():
        try:
            return _restore(doc, values, export_dir)
        except (FormatError, RecursionError) as e:
            # RecursionError: values nested deeper than any rillflow writes.
            raise OSError(f"Cannot parse file {os.fsencode(path)!r}: {e}") from None


def _rillflow_document(path, pb_path):
    """rillflow's own description of the SavedModel (saved_model.json), or
    None to read TensorFlow's saved_model.pb: when there is no such file,
    or when saved_model.pb is not the one it was written with (a
    SavedModel written again by TensorFlow in the same place).

    Raises:
      OSError: for a saved_model.json that cannot be parsed.
      OSError: when neither file exists (TensorFlow's error).
    """
    if not os.path.isfile(path):
        if not os.path.isfile(pb_path):
            raise OSError(f"SavedModel file does not exist at: "
                          f"{os.path.dirname(path)}/{{saved_model.pbtxt|saved_model.pb}}")
        return None
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
            raise FormatError("not a rillflow SavedModel")
        if doc.get("version") != _VERSION:
            raise FormatError(f"unsupported version {doc.get('version')!r}")
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise OSError(f"Cannot parse file {os.fsencode(path)!r}: {e}") from None
    digest = doc.get("saved_model_pb_sha256")
    if os.path.isfile(pb_path) and digest is not None:
        h = hashlib.sha256()
        with open(pb_path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        if h.hexdigest() != digest:
            return None
    return doc


def _restore(doc, values, export_dir):
    nodes = doc.get("objects")
    if not isinstance(nodes, list) or not nodes:
        raise FormatError("malformed object graph")
    variables = {}

    def resolve(key):
        v = variables.get(key) if isinstance(key, str) else None
        if v is None:
            raise FormatError(f"no saved variable {key!r}")
        return v
    reader = GraphReader(doc.get("library"), resolve)
    root = restore_objects(nodes, values, variables, reader, export_dir)
    reader.finish()
    sigs = doc.get("signatures")
    if not isinstance(sigs, dict):
        raise FormatError("malformed signatures")
    signature_map = SignatureMap({k: reader.function(n, SignatureFunction)
                                  for k, n in sigs.items()})
    try:
        root.signatures = signature_map
    except AttributeError:  # a restored variable
        pass
    return root
