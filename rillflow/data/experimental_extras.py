"""More of `tf.data.experimental`: `rejection_resample`,
`make_batched_features_dataset`, `make_saveable_from_iterator` and
`get_model_proto`.

`rejection_resample` and `make_batched_features_dataset` are compositions
of Dataset transformations, the same as TensorFlow's; `rejection_resample`
keeps TensorFlow's distributions (acceptance probabilities, the streaming
class estimate, the mix with the original stream), but its random choices
are not TensorFlow's stream: the mix is drawn with one uniform number per
element, where TensorFlow uses `sample_from_datasets` with a dataset of
weights.
"""
import numpy as np

from ..framework import dtypes as D
from ..framework import errors
from ..framework.api_export import export
from ..framework.convert import convert_to_tensor
from ..framework.tensor import EagerTensor
from ..ops.core.constant_ops import fill
from ..ops.core.creation_ops import one_hot
from ..ops.core.dim_ops import expand_dims
from ..ops.core.broadcast_ops import tile
from ..ops.core.gather_ops import gather
from ..ops.core.math_ops import add, cast, greater_equal, less, truediv
from ..ops.core.reduction_ops import reduce_max, reduce_min, reduce_sum
from ..ops.random.stateful_ops import uniform as random_uniform
from . import dataset_ops as DS
from . import iterator_ops
from .experimental import parse_example_dataset
from .tfrecord_dataset import TFRecordDataset

__all__ = ["rejection_resample", "make_batched_features_dataset",
           "make_saveable_from_iterator", "get_model_proto"]


# --- rejection_resample ---------------------------------------------------------------------------

def _target_to_initial_ratio(initial, target):
    # The smallest positive float keeps a class never seen from dividing by 0.
    tiny = np.finfo(initial.dtype.as_numpy_dtype).tiny
    return target / (initial + tiny)


def _acceptance_and_original_prob(initial, target):
    """Per class, the probability of keeping an element of the filtered
    stream, and the probability of taking an element of the original
    stream instead: with r = target / initial, a = (r - min r) / (max r -
    min r) and min r (rejection sampling mixed with the original data)."""
    ratio = _target_to_initial_ratio(initial, target)
    low = reduce_min(ratio)
    return (ratio - low) / (reduce_max(ratio) - low), low


def _estimate_initial_dist(target, class_values, batch_size=32, smoothing=10):
    """The class distribution seen so far, one estimate per element: class
    counts (starting at `smoothing` each) updated every `batch_size` elements."""
    num_classes = target.shape[0]
    start = fill([num_classes], np.int64(smoothing))

    def update(seen, classes):
        seen = add(seen, reduce_sum(one_hot(classes, num_classes, dtype=D.int64), 0))
        dist = cast(truediv(seen, reduce_sum(seen)), D.float32)
        return seen, tile(expand_dims(dist, 0), [batch_size, 1])
    return class_values.batch(batch_size).scan(start, update).unbatch()


def _static_prob_original(initial, target):
    i, t = getattr(initial, "_v", None), getattr(target, "_v", None)
    if not isinstance(initial, EagerTensor) or not isinstance(target, EagerTensor):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.min(t / i)


@export("data.experimental.rejection_resample")
def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation resampling a dataset to the class distribution
    `target_dist`: elements are dropped at random (rejection sampling, mixed
    with the original stream where that suffices), and each comes out as
    `(class, element)`.

    Args:
      class_func: maps an element to its class, a scalar int32 in
        `[0, num_classes)`.
      target_dist: the wanted class probabilities, `[num_classes]`.
      initial_dist: the dataset's class probabilities; estimated from the
        elements as they stream when None.
      seed: the seed of the random draws.
    """
    def _apply(dataset):
        target = cast(convert_to_tensor(target_dist, name="target_dist"), D.float32)
        if initial_dist is not None:
            initial = cast(convert_to_tensor(initial_dist, name="initial_dist"), D.float32)
            accept, prob_original = _acceptance_and_original_prob(initial, target)
            initial_ds = DS.Dataset.from_tensors(initial).repeat()
            accept_ds = DS.Dataset.from_tensors(accept).repeat()
            original_ds = DS.Dataset.from_tensors(prob_original).repeat()
        else:
            initial_ds = _estimate_initial_dist(target, dataset.map(class_func))
            both = initial_ds.map(lambda d: _acceptance_and_original_prob(d, target))
            accept_ds = both.map(lambda a, _: a)
            original_ds = both.map(lambda _, p: p)
        filtered = _filtered(dataset, accept_ds, initial_ds, class_func, seed).prefetch(3)
        static = _static_prob_original(initial, target) if initial_dist is not None else None

        def with_class(*x):
            if len(x) == 1:
                return class_func(*x), x[0]
            return class_func(*x), x
        if static == 1:
            return dataset.map(with_class)
        if static == 0:
            return filtered
        # TensorFlow samples with `sample_from_datasets` and a dataset of
        # weights (p, 1 - p); rillflow draws the same choice with a uniform
        # number per element (the same distribution, not TensorFlow's stream).
        choice = original_ds.map(lambda p: cast(greater_equal(
            random_uniform([], seed=seed, dtype=p.dtype), p), D.int64))
        return DS.Dataset.choose_from_datasets([dataset.map(with_class), filtered], choice,
                                               stop_on_empty_dataset=True)
    return _apply


def _filtered(dataset, accept_ds, initial_ds, class_func, seed):
    """The elements kept by rejection sampling, as (class, element).
    TensorFlow also prints a warning (at most 10 times) when more than half
    the elements are rejected; rillflow does not."""
    accept_ds = DS.Dataset.zip((accept_ds, initial_ds)).map(lambda a, _: a)

    def gather_and_copy(accept, data):
        c = class_func(*data) if isinstance(data, tuple) else class_func(data)
        return c, gather(accept, c), data

    def keep(_, p, __):
        return less(random_uniform([], seed=seed, dtype=p.dtype), p)
    return DS.Dataset.zip((accept_ds, dataset)).map(gather_and_copy).filter(keep).map(
        lambda c, _, data: (c, data))


# --- make_batched_features_dataset ----------------------------------------------------------------

@export("data.experimental.make_batched_features_dataset")
def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False):
    """Batches of parsed `tf.train.Example`s read from the files matching
    `file_pattern`: {feature name: batched tensor}, or (features, label)
    with `label_key`.

    The files are listed (shuffled with `shuffle`), read with `reader`
    (default TFRecordDataset; `reader_num_threads` files interleaved), the
    records shuffled and repeated `num_epochs` times (None: forever), batched
    (the last partial batch dropped with `drop_final_batch` or when
    repeating forever) and parsed with `features`.

    Raises:
      TypeError: for a `reader` that is a v1 ReaderBase class.
      ValueError: for a `label_key` not among the features.
    """
    reader = TFRecordDataset if reader is None else reader
    reader_num_threads = 1 if reader_num_threads is None else reader_num_threads
    parser_num_threads = 2 if parser_num_threads is None else parser_num_threads
    if isinstance(reader, type) and any(c.__name__ == "ReaderBase" for c in reader.__mro__):
        raise TypeError("The `reader` argument must return a `Dataset` object. "
                        "`tf.ReaderBase` subclasses are not supported. For example, pass "
                        "`tf.data.TFRecordDataset` instead of `tf.TFRecordReader`.")
    reader_args = [] if reader_args is None else reader_args
    ds = DS.Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    cycle = 1 if reader_num_threads == DS.AUTOTUNE else reader_num_threads
    ds = ds.interleave(lambda filename: reader(filename, *reader_args), cycle_length=cycle,
                       block_length=1)
    spec = ds.element_spec
    if isinstance(spec, tuple) and len(spec) == 2 and all(
            getattr(s, "dtype", None) is D.string for s in spec):
        ds = ds.map(lambda _, v: v)          # (key, value) readers: the values
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    ds = ds.apply(parse_example_dataset(features, num_parallel_calls=parser_num_threads))
    if label_key:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key}) must be one of the "
                             f"`features` keys: {features.keys()}.")
        ds = ds.map(lambda x: (x, x.pop(label_key)))
    return ds.prefetch(DS.AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


# --- iterator extras --------------------------------------------------------------------------------

@export("data.experimental.make_saveable_from_iterator")
def make_saveable_from_iterator(iterator, external_state_policy=None):
    """TensorFlow 1's saveable of an iterator for `tf.compat.v1.train.Saver`.
    In TensorFlow 2 (and rillflow) iterators are saved with
    `tf.train.Checkpoint(iterator=...)`.

    Raises:
      AttributeError: always under eager execution, as in TensorFlow.
    """
    print("`make_saveable_from_iterator` is intended for use in TF1 with "
          "`tf.compat.v1.Saver`. In TF2, use `tf.train.Checkpoint` instead.")
    raise AttributeError("Tensor.name is undefined when eager execution is enabled.")


@export("data.experimental.get_model_proto")
def get_model_proto(iterator):
    """TensorFlow's autotuning model of an iterator's pipeline.

    Raises:
      ValueError: for something other than a tf.data iterator.
      NotFoundError: for an iterator: rillflow does not autotune pipelines,
        so no iterator has a model (as TensorFlow's with autotune off).
    """
    if not isinstance(iterator, iterator_ops.OwnedIterator):
        raise ValueError("Only supports `tf.data.Iterator`-typed `iterator`.")
    raise errors.NotFoundError(
        None, None, "Cannot find this iterator's analytical model: rillflow does not autotune "
        "tf.data pipelines, so no iterator has one.")
