"""`tf.io` and `tf.train`'s record formats, without protobuf: protocol
buffer wire format (`wire`, `message`, and `descriptor`: `DESCRIPTOR`s that
protobuf's own text_format can fill messages through), tf.train.Example (`example_pb`),
TensorProto (`tensor_pb`), CRC-32C and TFRecord framing (`crc32c`,
`tfrecord`), file access (`gfile`), and checkpoints' tensor bundle
(`tensor_bundle`, on the LevelDB table of `sstable` and the protos of
`checkpoint_pb`), the TensorProto message and `tf.make_tensor_proto`/`tf.make_ndarray`
(`tensor_proto`), and image files: PNG (`png`), GIF and BMP (`gif`), JPEG through Pillow
(`jpeg`). docs/file_formats.md describes the checkpoint formats.

This package is also the `tf.io` namespace: the parsing ops (in
rillflow/ops/io/parsing_ops.py) are set on it when the API is assembled.
"""
from . import wire, descriptor, containers, message, example_pb, crc32c, tfrecord, tensor_pb, gfile  # noqa: F401
from . import cluster_pb, test_log_pb, fingerprint_pb, snapshot_pb  # noqa: F401
from . import sstable, checkpoint_pb, tensor_bundle  # noqa: F401
from . import tensor_proto  # noqa: F401
from . import png, gif, jpeg  # noqa: F401
