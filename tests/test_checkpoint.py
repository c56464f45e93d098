"""tf.train.Checkpoint, CheckpointManager, latest_checkpoint, load_checkpoint
and list_variables; expected keys, values and messages are TensorFlow 2.21's."""
import os

import numpy as np
import pytest

import rillflow as tf


class Dense(tf.Module):
    """Builds its variables on the first call, as Keras-style layers do."""

    def __init__(self, units, name=None):
        super().__init__(name=name)
        self.units = units
        self.w = None
        self.b = None

    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.ones([x.shape[-1], self.units]), name="w")
            self.b = tf.Variable(tf.zeros([self.units]), name="b")
        return tf.matmul(x, self.w) + self.b


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3), Dense(2)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Nested(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1.0, 2.0])
        self.layers = [tf.Variable(3), {"a": tf.Variable(4.0), "b/c.d": tf.Variable(5)}]
        self._priv = tf.Variable(6)
        self.t = (tf.Variable(7),)
        self.numbers = (2, 3)


def _keys(path):
    return [k for k, _ in tf.train.list_variables(path)]


def test_keys_shapes_files_and_state_file(tmp_path):
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), model=Nested())
    ckpt.other = tf.Variable("hi")
    path = ckpt.save(str(tmp_path / "ck"))
    assert path == str(tmp_path / "ck-1")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ck-1.data-00000-of-00001",
                                            "ck-1.index"]
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "ck-1"\nall_model_checkpoint_paths: "ck-1"\n')
    assert tf.train.list_variables(str(tmp_path)) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("model/_priv/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/0/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/1/a/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/layers/1/b.Sc..d/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/t/0/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("model/w/.ATTRIBUTES/VARIABLE_VALUE", [2]),
        ("other/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("step/.ATTRIBUTES/VARIABLE_VALUE", []),
    ]


def test_reader_values_dtypes_and_missing_key(tmp_path):
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), model=Nested(), other=tf.Variable("hi"))
    ckpt.save(str(tmp_path / "ck"))
    reader = tf.train.load_checkpoint(str(tmp_path))
    assert reader.get_tensor("other/.ATTRIBUTES/VARIABLE_VALUE") == b"hi"
    step = reader.get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE")
    assert type(step) is np.int32 and step == 1
    w = reader.get_tensor("model/w/.ATTRIBUTES/VARIABLE_VALUE")
    assert w.dtype == np.float32 and w.tolist() == [1.0, 2.0]
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["save_counter/.ATTRIBUTES/VARIABLE_VALUE"] is tf.int64
    assert dtypes["other/.ATTRIBUTES/VARIABLE_VALUE"] is tf.string
    assert dtypes["model/layers/1/a/.ATTRIBUTES/VARIABLE_VALUE"] is tf.float32
    assert reader.get_variable_to_shape_map()["model/w/.ATTRIBUTES/VARIABLE_VALUE"] == [2]
    assert reader.has_tensor("step/.ATTRIBUTES/VARIABLE_VALUE") and not reader.has_tensor("x")
    with pytest.raises(tf.errors.NotFoundError, match="Key x not found in checkpoint"):
        reader.get_tensor("x")
    assert reader.debug_string().startswith(b"_CHECKPOINTABLE_OBJECT_GRAPH (DT_STRING) []\n")
    assert b"model/w/.ATTRIBUTES/VARIABLE_VALUE (DT_FLOAT) [2]\n" in reader.debug_string()


def test_shared_variable_is_saved_once_under_its_shortest_path(tmp_path):
    v = tf.Variable(1.0)

    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.b = v
            self.a = v
            self.sub = tf.Module()
            self.sub.z = v
    # Keyword arguments are attached sorted, so `a` names it rather than `z`.
    assert _keys(tf.train.Checkpoint(z=v, a=v).save(str(tmp_path / "x"))) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "a/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
    # Within a module, the first attribute assigned names it.
    assert _keys(tf.train.Checkpoint(m=M()).save(str(tmp_path / "y"))) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "m/b/.ATTRIBUTES/VARIABLE_VALUE",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]


def test_root_object_children_are_top_level(tmp_path):
    m = tf.Module()
    m.b = tf.Variable(1)
    ckpt = tf.train.Checkpoint(m, extra=tf.Variable(2))
    assert _keys(ckpt.save(str(tmp_path / "r"))) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "b/.ATTRIBUTES/VARIABLE_VALUE",
        "extra/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]


def test_untrackable_arguments_and_non_string_dict_keys(tmp_path):
    with pytest.raises(ValueError, match="`Checkpoint` was expecting x to be a trackable object"):
        tf.train.Checkpoint(x=1)
    with pytest.raises(AttributeError):
        tf.train.Checkpoint(save_counter=tf.Variable(1))
    m = tf.Module()
    m.d = {1: tf.Variable(4)}
    with pytest.raises(ValueError, match="non-string key"):
        tf.train.Checkpoint(m=m).save(str(tmp_path / "d"))
    m.d = {"k": [1, tf.Variable(2), "x", [tf.Variable(3)]]}
    assert _keys(tf.train.Checkpoint(m=m).save(str(tmp_path / "e"))) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "m/d/k/1/.ATTRIBUTES/VARIABLE_VALUE",
        "m/d/k/3/0/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]


def test_save_counter_numbering_write_and_read(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0]))
    counter = ckpt.save_counter
    assert repr(counter) == "<tf.Variable 'save_counter:0' shape=() dtype=int64, numpy=0>"
    assert ckpt.save(str(tmp_path / "s")) == str(tmp_path / "s-1")
    assert ckpt.save(tmp_path / "s") == str(tmp_path / "s-2")
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "s-2")
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "s-2"\nall_model_checkpoint_paths: "s-2"\n')
    counter.assign(41)
    assert ckpt.save(str(tmp_path / "s")) == str(tmp_path / "s-42")
    # write(): no counter, no state file, no save_counter when never created.
    fresh = tf.train.Checkpoint(v=tf.Variable(5))
    assert fresh.write(str(tmp_path / "w" / "plain")) == str(tmp_path / "w" / "plain")
    assert sorted(os.listdir(tmp_path / "w")) == ["plain.data-00000-of-00001", "plain.index"]
    assert _keys(str(tmp_path / "w" / "plain")) == ["_CHECKPOINTABLE_OBJECT_GRAPH",
                                                    "v/.ATTRIBUTES/VARIABLE_VALUE"]
    assert tf.train.latest_checkpoint(str(tmp_path / "w")) is None
    other = tf.train.Checkpoint(v=tf.Variable(0))
    other.read(str(tmp_path / "w" / "plain")).assert_consumed()
    assert other.v.numpy() == 5


def test_restore_values_counter_and_status(tmp_path):
    ckpt = tf.train.Checkpoint(step=tf.Variable(3), v=tf.Variable([1.0, 2.0]))
    path = ckpt.save(str(tmp_path / "ck"))
    ckpt.v.assign([9.0, 9.0])
    ckpt.step.assign(0)
    status = ckpt.restore(path)
    assert ckpt.v.numpy().tolist() == [1.0, 2.0] and ckpt.step.numpy() == 3
    assert status.assert_consumed() is status
    assert status.assert_existing_objects_matched() is status
    assert status.assert_nontrivial_match() is status
    assert status.expect_partial() is status
    assert status.run_restore_ops() is None
    new = tf.train.Checkpoint(step=tf.Variable(0), v=tf.Variable([0.0, 0.0]))
    new.restore(path).assert_consumed()
    assert new.save_counter.numpy() == 1
    assert new.save(str(tmp_path / "ck")) == str(tmp_path / "ck-2")


def test_unmatched_objects_and_values_raise_assertion_errors(tmp_path):
    path = tf.train.Checkpoint(step=tf.Variable(3), model=Model()).save(str(tmp_path / "c"))
    extra = tf.train.Checkpoint(step=tf.Variable(0), model=Model(), extra=tf.Variable(1.0))
    status = extra.restore(path)
    message = ("Found 1 Python objects that were not bound to checkpointed values, likely due "
               "to changes in the Python program. Showing 1 of 1 unmatched objects: "
               "[<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>]")
    with pytest.raises(AssertionError) as e:
        status.assert_consumed()
    assert str(e.value) == message
    with pytest.raises(AssertionError):
        status.assert_existing_objects_matched()
    assert status.expect_partial() is status
    assert extra.step.numpy() == 3


def test_deferred_restore_of_lazily_built_variables(tmp_path):
    model = Model()
    x = tf.constant([[1.0, 2.0]])
    model(x)
    model.layers[0].w.assign(tf.reshape(tf.range(6, dtype=tf.float32), [2, 3]))
    model.layers[1].b.assign([10.0, 20.0])
    want = model(x).numpy()
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "m"))

    fresh = Model()
    status = tf.train.Checkpoint(model=fresh).restore(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError) as e:
        status.assert_consumed()
    assert str(e.value).startswith(
        "Unresolved object in checkpoint (root).model.layers.0.w: attributes {\n"
        '  name: "VARIABLE_VALUE"\n  full_name: "w"\n'
        '  checkpoint_key: "model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE"\n}\n'
        "has_checkpoint_values {\n  value: true\n}\n")
    np.testing.assert_array_equal(fresh(x).numpy(), want)
    np.testing.assert_array_equal(fresh.layers[1].b.numpy(), [10.0, 20.0])
    status.assert_consumed()


def test_deferred_values_are_used_once_per_object(tmp_path):
    m = tf.Module()
    m.step = tf.Variable(0)
    path = tf.train.Checkpoint(m=m).save(str(tmp_path / "m"))
    m2 = tf.Module()
    tf.train.Checkpoint(m=m2).restore(path)
    m2.step = tf.Variable(5)
    assert m2.step.numpy() == 0
    m2.step = tf.Variable(5)
    assert m2.step.numpy() == 5


def test_attributes_assigned_to_the_checkpoint_after_restore(tmp_path):
    path = tf.train.Checkpoint(step=tf.Variable(3), m=tf.Module()).save(str(tmp_path / "e"))
    ckpt = tf.train.Checkpoint()
    status = ckpt.restore(path)
    ckpt.step = tf.Variable(0)
    assert ckpt.step.numpy() == 3
    status.assert_consumed()


def test_variables_created_in_tf_function_and_compiled_reads(tmp_path):
    class F(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(tf.ones([2]) * 7.0)
            return x * self.w

    f = F()
    f(tf.constant(1.0))
    f.w.assign([1.0, 2.0])
    path = tf.train.Checkpoint(f=f).save(str(tmp_path / "f"))
    assert tf.train.list_variables(path)[1] == ("f/w/.ATTRIBUTES/VARIABLE_VALUE", [2])
    f2 = F()
    status = tf.train.Checkpoint(f=f2).restore(path)
    assert f2(tf.constant(2.0)).numpy().tolist() == [2.0, 4.0]
    status.assert_consumed()
    # A restore after tracing changes what the compiled function reads.
    f.w.assign([5.0, 5.0])
    assert f(tf.constant(1.0)).numpy().tolist() == [5.0, 5.0]
    tf.train.Checkpoint(f=f).restore(path)
    assert f(tf.constant(1.0)).numpy().tolist() == [1.0, 2.0]


def test_restore_none_is_initialization_only():
    ckpt = tf.train.Checkpoint(v=tf.Variable(1))
    status = ckpt.restore(None)
    for check in (status.assert_consumed, status.assert_existing_objects_matched,
                  status.assert_nontrivial_match):
        with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\); "
                                                 "nothing is being restored."):
            check()
    assert status.expect_partial() is status
    with pytest.raises(AssertionError, match="no restore ops are available"):
        status.run_restore_ops()
    assert ckpt.save_counter.numpy() == 0


def test_shape_and_dtype_mismatches(tmp_path):
    path = tf.train.Checkpoint(step=tf.Variable(3), v=tf.Variable([1.0, 2.0])).save(
        str(tmp_path / "c"))
    bad_shape = tf.train.Checkpoint(step=tf.Variable([1, 2]))
    with pytest.raises(ValueError) as e:
        bad_shape.restore(path)
    assert str(e.value) == ("Received incompatible tensor with shape () when attempting to "
                            "restore variable with shape (2,) and name Variable:0.")
    with pytest.raises(ValueError, match=r"with shape \(2,\) when attempting to restore "
                                         r"variable with shape \(1, 2\)"):
        tf.train.Checkpoint(v=tf.Variable([[1.0, 2.0]])).restore(path)
    bad_dtype = tf.train.Checkpoint(step=tf.Variable(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        bad_dtype.restore(path)
    assert e.value.message == ("tensor_name = step/.ATTRIBUTES/VARIABLE_VALUE; expected dtype "
                               "float does not equal original dtype int32 [Op:RestoreV2]")
    assert bad_dtype.step.numpy() == 1.0
    # A variable of unknown shape takes the saved shape.
    loose = tf.Variable([1.0, 2.0, 3.0], shape=tf.TensorShape(None))
    tf.train.Checkpoint(v=loose).restore(path)
    assert loose.numpy().tolist() == [1.0, 2.0]


def test_missing_and_foreign_checkpoints(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    missing = str(tmp_path / "nope" / "x")
    with pytest.raises(tf.errors.NotFoundError) as e:
        ckpt.restore(missing)
    assert e.value.message.startswith(
        f"Error when restoring from checkpoint or SavedModel at {missing}: Unsuccessful "
        f"TensorSliceReader constructor: Failed to find any matching files for {missing}\n"
        "Please double-check that the path is correct.")
    with pytest.raises(tf.errors.DataLossError, match="Is a directory"):
        ckpt.restore(str(tmp_path))
    (tmp_path / "bad.index").write_bytes(b"garbage")
    with pytest.raises(tf.errors.DataLossError):
        ckpt.restore(str(tmp_path / "bad"))
    with pytest.raises(tf.errors.DataLossError):
        tf.train.list_variables(str(tmp_path / "bad"))
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.load_checkpoint(missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in "
                                         "given directory"):
        tf.train.load_checkpoint(str(empty))
    assert tf.train.latest_checkpoint(str(empty)) is None
    assert tf.train.get_checkpoint_state(str(empty)) is None
    (empty / "checkpoint").write_text('model_checkpoint_path: "gone-3"\n')
    assert tf.train.latest_checkpoint(str(empty)) is None
    assert tf.train.get_checkpoint_state(str(empty)).model_checkpoint_path == str(
        empty / "gone-3")


def _every_dtype_variable():
    values = {
        "f16": np.array([1.5, -2.25], np.float16), "f32": np.float32(3.5),
        "f64": np.array([[1e300]]), "i8": np.array([-128, 127], np.int8),
        "i16": np.array([-3], np.int16), "i32": np.array(7, np.int32),
        "i64": np.array([-(2 ** 63)], np.int64), "u8": np.array([255], np.uint8),
        "u16": np.array([65535], np.uint16), "u32": np.array([2 ** 32 - 1], np.uint32),
        "u64": np.array([2 ** 64 - 1], np.uint64), "c64": np.array([1 + 2j], np.complex64),
        "c128": np.array(3 - 4j), "bool": np.array([True, False]),
        "s": np.array([b"a", b"", "\u00e9".encode()], dtype=object),
    }
    if hasattr(tf, "bfloat16"):  # only with ml_dtypes installed
        values["bf16"] = np.array([1.5, 2.0], tf.bfloat16.as_numpy_dtype)
    return values


def test_every_dtype_round_trips_through_variables(tmp_path):
    values = _every_dtype_variable()
    saved = tf.train.Checkpoint(**{k: tf.Variable(v) for k, v in values.items()})
    path = saved.save(str(tmp_path / "all"))
    restored = tf.train.Checkpoint(**{k: tf.Variable(tf.zeros_like(v) if k != "s" else
                                                     tf.constant([b"", b"", b""]))
                                      for k, v in values.items()})
    restored.restore(path).assert_consumed()
    for k, v in values.items():
        got = getattr(restored, k)
        assert got.dtype is getattr(saved, k).dtype, k
        np.testing.assert_array_equal(got.numpy(), v)


def test_manager_numbering_deletion_and_state(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1))
    directory = str(tmp_path / "m")
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    assert manager.directory == directory and manager.checkpoint is ckpt
    paths = [manager.save() for _ in range(4)]
    assert paths == [os.path.join(directory, "ckpt-%d" % i) for i in range(1, 5)]
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert sorted(os.listdir(directory)) == [
        "checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
        "ckpt-4.data-00000-of-00001", "ckpt-4.index"]
    lines = open(os.path.join(directory, "checkpoint")).read().splitlines()
    assert lines[:3] == ['model_checkpoint_path: "ckpt-4"', 'all_model_checkpoint_paths: "ckpt-3"',
                         'all_model_checkpoint_paths: "ckpt-4"']
    assert [line.split(":")[0] for line in lines[3:]] == [
        "all_model_checkpoint_timestamps", "all_model_checkpoint_timestamps",
        "last_preserved_timestamp"]
    assert manager.save(checkpoint_number=100) == os.path.join(directory, "ckpt-100")
    assert manager.save(checkpoint_number=tf.constant(7)) == os.path.join(directory, "ckpt-7")
    assert ckpt.save_counter.numpy() == 6
    # A new manager picks the kept list up from the state file.
    again = tf.train.CheckpointManager(ckpt, directory, max_to_keep=5, checkpoint_name="other")
    assert again.checkpoints == [os.path.join(directory, "ckpt-100"),
                                 os.path.join(directory, "ckpt-7")]
    assert again.latest_checkpoint == os.path.join(directory, "ckpt-7")
    assert again.save() == os.path.join(directory, "other-7")
    assert tf.train.latest_checkpoint(directory) == os.path.join(directory, "other-7")
    ckpt.v.assign(42)
    assert again.restore_or_initialize() == os.path.join(directory, "other-7")
    assert ckpt.v.numpy() == 1


def test_manager_arguments_interval_and_hours(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1))
    for bad in (0, -1):
        with pytest.raises(ValueError, match="Expected a positive integer or `None` for "
                                             f"`max_to_keep`, got {bad}."):
            tf.train.CheckpointManager(ckpt, str(tmp_path / "n"), max_to_keep=bad)
    with pytest.raises(ValueError, match="`step_counter` should be passed if "
                                         "`checkpoint_interval` is not None."):
        tf.train.CheckpointManager(ckpt, str(tmp_path / "n"), max_to_keep=2,
                                   checkpoint_interval=5)
    keep_all = tf.train.CheckpointManager(ckpt, str(tmp_path / "all"), max_to_keep=None)
    for _ in range(3):
        keep_all.save()
    assert len(keep_all.checkpoints) == 3
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "i"), max_to_keep=3,
                                         step_counter=step, checkpoint_interval=5)
    saved = []
    for s in range(12):
        step.assign(s)
        saved.append(manager.save() is not None)
    assert [s for s, ok in enumerate(saved) if ok] == [0, 5, 10]
    assert manager.save(check_interval=False) is not None
    hourly = tf.train.CheckpointManager(ckpt, str(tmp_path / "h"), max_to_keep=1,
                                        keep_checkpoint_every_n_hours=1e-7)
    first = hourly.save()
    hourly.save()
    last = hourly.save()
    assert hourly.checkpoints == [last]
    # Older checkpoints are kept on disk (one per interval) but not listed.
    assert os.path.exists(first + ".index")
    none_yet = tf.train.CheckpointManager(ckpt, str(tmp_path / "fresh"), max_to_keep=1,
                                          init_fn=lambda: ckpt.v.assign(-1))
    assert none_yet.restore_or_initialize() is None and ckpt.v.numpy() == -1


def test_state_file_paths_are_escaped_and_parsed(tmp_path):
    d = tmp_path / "dir \u00e9"
    ckpt = tf.train.Checkpoint(v=tf.Variable(1))
    path = ckpt.save(str(d / 'c"k\\\u00e9'))
    assert tf.train.latest_checkpoint(str(d)) == path
    assert (d / "checkpoint").read_text() == (
        'model_checkpoint_path: "c\\"k\\\\\u00e9-1"\n'
        'all_model_checkpoint_paths: "c\\"k\\\\\u00e9-1"\n')
    (d / "checkpoint").write_text('model_checkpoint_path: "x\\303\\251\\t\\\'"\n')
    assert tf.train.get_checkpoint_state(str(d)).model_checkpoint_path == str(d / "x\u00e9\t'")
    outside = ckpt.write(str(tmp_path / "elsewhere"))
    from rillflow.saved_model.checkpoint_management import update_checkpoint_state
    update_checkpoint_state(str(d), outside)
    assert 'model_checkpoint_path: "../elsewhere"' in (d / "checkpoint").read_text()
    state = tf.train.get_checkpoint_state(str(d))
    assert os.path.normpath(state.model_checkpoint_path) == outside
    assert os.path.normpath(tf.train.latest_checkpoint(str(d))) == outside


def test_pending_restorations_do_not_keep_objects_alive(tmp_path):
    import gc
    import weakref
    m = Model()
    m(tf.constant([[1.0]]))
    path = tf.train.Checkpoint(m=m).save(str(tmp_path / "p"))
    fresh = Model()
    status = tf.train.Checkpoint(m=fresh).restore(path)
    ref = weakref.ref(fresh)
    del fresh, status
    gc.collect()
    assert ref() is None


def test_variable_initialized_from_a_function_input_is_restored_before_its_first_run(tmp_path):
    class G(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(x * 2.0)
            return self.w + 0.0

    g = G()
    assert g(tf.constant(3.0)).numpy() == 6.0
    path = tf.train.Checkpoint(g=g).save(str(tmp_path / "g"))
    g2 = G()
    tf.train.Checkpoint(g=g2).restore(path).assert_existing_objects_matched()
    # The restored value wins over the initializer that runs on the first call.
    assert g2(tf.constant(100.0)).numpy() == 6.0


def test_relative_directories_record_paths_relative_to_the_directory(tmp_path, monkeypatch):
    # TensorFlow 2.21 writes `model_checkpoint_path: "ckpt-1"` for a manager on the
    # relative directory "ckpts", and `latest_checkpoint("ckpts")` is "ckpts/ckpt-1".
    monkeypatch.chdir(tmp_path)
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    path = tf.train.CheckpointManager(ckpt, "ckpts", max_to_keep=2).save()
    assert path == os.path.join("ckpts", "ckpt-1")
    assert tf.train.latest_checkpoint("ckpts") == path
    state = (tmp_path / "ckpts" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ckpt-1"' in state
    other = ckpt.save(os.path.join("other", "c"))
    assert tf.train.latest_checkpoint("other") == other
    assert 'model_checkpoint_path: "c-2"' in (tmp_path / "other" / "checkpoint").read_text()
