"""Ops that read and write bytes: parsing tf.train.Example records (parsing_ops;
ragged_parsing assembles tf.io.RaggedFeature results) and
tensor serialization, files and base64 (io_ops), WAV audio (audio_ops: `tf.audio`),
CSV records (csv_ops), SparseTensors as strings (sparse_serialization) and
tf.train.SequenceExample records (sequence_parsing), Examples from JSON
(json_example) and fields of any protocol buffer message (proto_ops). The file formats themselves
(TFRecord, protocol buffers) are in rillflow/io/."""
