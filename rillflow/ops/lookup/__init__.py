"""Lookup tables (`tf.lookup`): the table objects a resource handle holds, with
TensorFlow's kernels' behaviour (table_kernels), the table ops under TensorFlow's
names (table_ops: create, find, insert, remove, size, export, import, initialize;
text_file_ops: InitializeTableFromTextFileV2), and the public classes: static tables
and initializers (lookup_ops: StaticHashTable, StaticVocabularyTable,
KeyValueTensorInitializer, TextFileInitializer) and mutable tables (mutable_tables:
MutableHashTable, DenseHashTable)."""
