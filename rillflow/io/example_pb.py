"""`tf.train.Example` and the messages it is made of (TensorFlow's
example.proto and feature.proto), declared on the small message runtime in
`message.py`; their bytes are the bytes TensorFlow's protos serialize."""
from ..framework.api_export import export
from .message import Field, Message

__all__ = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
           "FeatureLists", "Example", "SequenceExample"]


@export("train.BytesList")
class BytesList(Message):
    """A list of byte strings: `BytesList(value=[b"a", b"b"])`."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.BytesList"
    _FIELDS = (Field("value", 1, "bytes", repeated=True),)


@export("train.FloatList")
class FloatList(Message):
    """A list of float32 values (written packed): `FloatList(value=[1.5])`."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.FloatList"
    _FIELDS = (Field("value", 1, "float", repeated=True),)


@export("train.Int64List")
class Int64List(Message):
    """A list of int64 values (written packed): `Int64List(value=[1, 2])`."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.Int64List"
    _FIELDS = (Field("value", 1, "int64", repeated=True),)


@export("train.Feature")
class Feature(Message):
    """One feature: exactly one of `bytes_list`, `float_list`, `int64_list`
    (the oneof `kind`)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.Feature"
    _FIELDS = (Field("bytes_list", 1, "message", cls=BytesList, oneof="kind"),
               Field("float_list", 2, "message", cls=FloatList, oneof="kind"),
               Field("int64_list", 3, "message", cls=Int64List, oneof="kind"))


@export("train.Features")
class Features(Message):
    """Named features: `Features(feature={"name": Feature(...)})`."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.Features"
    _FIELDS = (Field("feature", 1, "map", cls=Feature),)


@export("train.FeatureList")
class FeatureList(Message):
    """A sequence of features (one per time step)."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.FeatureList"
    _FIELDS = (Field("feature", 1, "message", repeated=True, cls=Feature),)


@export("train.FeatureLists")
class FeatureLists(Message):
    """Named feature lists: `FeatureLists(feature_list={"name": FeatureList(...)})`."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.FeatureLists"
    _FIELDS = (Field("feature_list", 1, "map", cls=FeatureList),)


@export("train.Example")
class Example(Message):
    """One record of named features: `Example(features=Features(...))`."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.Example"
    _FIELDS = (Field("features", 1, "message", cls=Features),)


@export("train.SequenceExample")
class SequenceExample(Message):
    """Context features plus named feature lists."""
    __slots__ = ()
    _FULL_NAME = "tensorflow.SequenceExample"
    _FIELDS = (Field("context", 1, "message", cls=Features),
               Field("feature_lists", 2, "message", cls=FeatureLists))
