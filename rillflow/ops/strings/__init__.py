"""String ops (`tf.strings`) on tensors of Python bytes: join, case, conversions, substr,
regular expressions and split (string_ops), the Unicode ops (unicode_ops), hashing into
buckets (hash_ops: FarmHash Fingerprint64, SipHash-2-4), unsorted_segment_join
(segment_join_ops), n-grams (ngram_ops: `tf.strings.ngrams`), bytes_split with the StringSplit
op (bytes_ops); string_util holds what they share."""
