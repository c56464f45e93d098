"""`tf.train.TrackableView` and `tf.saved_model.experimental.TrackableResource`
(Keras' model.export walks the tracked objects with a view); the expected
walks are TensorFlow 2.21's."""
import rillflow as tf


def _module():
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.l = [tf.Variable(2.0)]
    return m


def test_children_and_descendants_as_tensorflow():
    m = _module()
    kids = tf.train.TrackableView.children(m)
    assert list(kids) == ["v", "l"] and kids["v"] is m.v and kids["l"] == m.l
    view = tf.train.TrackableView(m)
    assert view.root is m
    got = view.descendants()
    assert [id(o) for o in got] == [id(m), id(m.v), id(m.l), id(m.l[0])]


def test_children_include_functions():
    # A tf.function held in an attribute is a Trackable in TensorFlow: a
    # child (without state) in checkpoints too.
    m = _module()
    m.f = tf.function(lambda x: x * m.v)
    assert tf.train.TrackableView.children(m)["f"] is m.f
    assert tf.train.TrackableView.children(m, save_type="savedmodel")["f"] is m.f


def test_subclass_changes_the_walk():
    class Checkpointed(tf.train.TrackableView):
        @classmethod
        def children(cls, obj, save_type="savedmodel", **kwargs):
            return super().children(obj, save_type, cache={})
    m = _module()
    m.f = tf.function(lambda x: x)
    assert any(o is m.f for o in Checkpointed(m).descendants())


def test_trackable_resource_creates_its_handle_once():
    made = []

    class Table(tf.saved_model.experimental.TrackableResource):
        def _create_resource(self):
            made.append(1)
            return tf.constant(len(made))
    t = Table()
    assert int(t.resource_handle) == 1 and int(t.resource_handle) == 1 and made == [1]
