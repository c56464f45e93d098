"""tf.saved_model.save / load round trips (expectations from TensorFlow 2.21).

Every model is loaded in this process and in a fresh interpreter that has
only `import rillflow` (none of this module's classes), and the outputs are
compared with the original object's.
"""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rillflow as tf


def _fresh(export_dir, body):
    """Runs `body` in a new interpreter with `m = tf.saved_model.load(...)`;
    returns (stdout, stderr)."""
    code = "import json, rillflow as tf\nm = tf.saved_model.load(%r)\n" % str(export_dir)
    code += textwrap.dedent(body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=str(export_dir), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr


def _lists(x):
    """Tensors (in a structure) as nested Python lists, for comparisons."""
    return tf.nest.map_structure(lambda t: np.asarray(t).tolist(), x)


class Basic(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0)
        self.w = tf.Variable([1, 2], trainable=False, name="ww")
        self.sub = tf.Module()
        self.sub.u = tf.Variable(3.0)
        self.items = [tf.Variable(4.0), tf.Module()]
        self.table = {"a": tf.Variable(5.0)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(self, x):
        return x * self.v

    @tf.function
    def g(self, x, y=2):
        return {"sum": x + self.v, "prod": x * y}


@pytest.fixture
def basic(tmp_path):
    m = Basic()
    m.g(tf.constant(1.0))
    m.g(tf.constant([1.0, 2.0]), 3)
    path = tmp_path / "basic"
    tf.saved_model.save(m, str(path))
    return m, path


def test_layout_and_contains(basic):
    _, path = basic
    assert sorted(os.listdir(path)) == ["assets", "saved_model.json", "saved_model.pb",
                                        "variables"]
    assert sorted(os.listdir(path / "variables")) == [
        "variables.data-00000-of-00001", "variables.index"]
    assert tf.saved_model.contains_saved_model(str(path))
    assert tf.saved_model.contains_saved_model(path)
    assert not tf.saved_model.contains_saved_model(str(path / "nope"))
    text = (path / "saved_model.json").read_text()
    json.loads(text)  # plain JSON
    keys = [k for k, _ in tf.train.list_variables(str(path / "variables" / "variables"))]
    assert "v/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "sub/u/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "items/0/.ATTRIBUTES/VARIABLE_VALUE" in keys


def test_objects_and_variables(basic):
    _, path = basic
    m = tf.saved_model.load(str(path))
    assert isinstance(m.v, tf.Variable)
    assert repr(m.v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=2.0>"
    assert repr(m.w) == ("<tf.Variable 'ww:0' shape=(2,) dtype=int32, numpy=array([1, 2], "
                         "dtype=int32)>")
    assert m.v.trainable and not m.w.trainable
    assert float(m.sub.u.numpy()) == 3.0
    assert isinstance(m.items, list) and float(m.items[0].numpy()) == 4.0
    assert float(m.table["a"].numpy()) == 5.0
    assert not hasattr(m, "name")


def test_functions_dispatch_and_assign(basic):
    orig, path = basic
    m = tf.saved_model.load(str(path))
    x = tf.constant([1.0, 2.0])
    assert _lists(m.f(x)) == _lists(orig.f(x)) == [2.0, 4.0]
    assert _lists(m.g(tf.constant(1.0))) == {"sum": 3.0, "prod": 2.0}
    assert _lists(m.g(x, 3)) == {"sum": [3.0, 4.0], "prod": [3.0, 6.0]}
    assert _lists(m.g(x=tf.constant(1.0))) == {"sum": 3.0, "prod": 2.0}
    assert _lists(m.g(1.0)) == {"sum": 3.0, "prod": 2.0}  # Python float converts
    m.v.assign(10.0)
    assert _lists(m.f(x)) == [10.0, 20.0]
    assert _lists(m.g(tf.constant(1.0))) == {"sum": 11.0, "prod": 2.0}
    assert float(orig.v.numpy()) == 2.0  # separate storage


def test_no_matching_function_errors(basic):
    _, path = basic
    m = tf.saved_model.load(str(path))
    with pytest.raises(ValueError) as e:
        m.g(tf.constant([1.0, 2.0, 3.0]), 4)
    assert str(e.value) == """\
Could not find matching concrete function to call loaded from the SavedModel. Got:
  Positional arguments (2 total):
    * <tf.Tensor 'x:0' shape=(3,) dtype=float32>
    * 4
  Keyword arguments: {}

 Expected these arguments to match one of the following 2 option(s):

Option 1:
  Positional arguments (2 total):
    * TensorSpec(shape=(), dtype=tf.float32, name='x')
    * 2
  Keyword arguments: {}

Option 2:
  Positional arguments (2 total):
    * TensorSpec(shape=(2,), dtype=tf.float32, name='x')
    * 3
  Keyword arguments: {}"""
    with pytest.raises(TypeError) as e:
        m.f(tf.constant([1, 2]))
    assert str(e.value).startswith(
        "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(2,), "
        "dtype=tf.int32, name=None) to TensorSpec(shape=(None,), dtype=tf.float32, "
        "name=None)`.")


def test_default_signature_from_single_input_signature(basic):
    _, path = basic
    m = tf.saved_model.load(str(path))
    assert list(m.signatures) == ["serving_default"]
    out = m.signatures["serving_default"](x=tf.constant([1.0, 3.0]))
    assert _lists(out) == {"output_0": [2.0, 6.0]}


def test_fresh_process(basic):
    _, path = basic
    out, _ = _fresh(path, """
        x = tf.constant([1.0, 2.0])
        r = [m.f(x).numpy().tolist(), m.g(tf.constant(1.0))["sum"].numpy().tolist(),
             m.g(x, 3)["prod"].numpy().tolist(), m.sub.u.numpy().tolist(),
             type(m.v).__name__, m.w.trainable, sorted(m.signatures)]
        m.v.assign(5.0)
        r.append(m.f(x).numpy().tolist())
        print(json.dumps(r))
    """)
    assert json.loads(out) == [[2.0, 4.0], 3.0, [3.0, 6.0], 3.0, type(tf.Variable(1.0)).__name__,
                               False, ["serving_default"], [5.0, 10.0]]


class Flow(tf.Module):
    def __init__(self):
        super().__init__()
        self.count = tf.Variable(0, trainable=False)
        self.w = tf.Variable([1.0, -0.5])
        self.inner = Scale()

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                  tf.TensorSpec([], tf.int32)])
    def loop(self, x, n):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        total = tf.constant(0.0)
        for i in tf.range(n):
            if tf.reduce_sum(x) > 0:
                total += tf.reduce_sum(x * self.w)
            else:
                total -= 1.0
            self.count.assign_add(1)
            ta = ta.write(i, total)
        k = 0
        while total > 1.0:
            total = total / 2.0
            k += 1
        tf.print("total", total, "k", k)
        return ta.stack(), total, k

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def branches(self, x):
        y = tf.cond(x > 0, lambda: x * 2.0, lambda: -x)
        z = tf.switch_case(tf.cast(x, tf.int32) % 3, [lambda: y, lambda: y + 1, lambda: y + 2])
        w = tf.while_loop(lambda a, b: a < 5, lambda a, b: (a + 1, b * 1.5), [0, z])[1]
        return self.inner(w)

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def rand(self, x):
        return x + tf.random.stateless_uniform([2], seed=[4, 2]), tf.random.uniform([2], seed=7)

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def grad_inside(self, x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(tf.while_loop(lambda i, a: i < 3,
                                            lambda i, a: (i + 1, a * x * self.w), [0, x])[1])
        return t.gradient(y, [x, self.w])


class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable(3.0)

    @tf.function
    def __call__(self, x):
        return x * self.scale


def test_control_flow_round_trip(tmp_path, capfd):
    m = Flow()
    path = tmp_path / "flow"
    tf.saved_model.save(m, str(path))
    x, n = tf.constant([3.0, 1.0]), tf.constant(4)
    expected = _lists(m.loop(x, n))
    # Values from TensorFlow 2.21.
    assert list(expected) == [[2.5, 5.0, 7.5, 10.0], 0.625, 4]
    assert _lists(m.branches(tf.constant(4.0))) == 205.03125
    assert _lists(m.grad_inside(tf.constant([1.0, 2.0]))) == [[4.0, -4.0], [3.0, 12.0]]
    capfd.readouterr()
    loaded = tf.saved_model.load(str(path))
    assert _lists(loaded.loop(x, n)) == expected
    assert "total 0.625 k 4" in capfd.readouterr().err
    assert int(loaded.count.numpy()) == 4 and int(m.count.numpy()) == 4
    assert _lists(loaded.branches(tf.constant(4.0))) == 205.03125
    assert _lists(loaded.grad_inside(tf.constant([1.0, 2.0]))) == [[4.0, -4.0], [3.0, 12.0]]
    loaded.inner.scale.assign(1.0)
    assert _lists(loaded.branches(tf.constant(4.0))) == pytest.approx(205.03125 / 3)
    first = list(_lists(loaded.rand(tf.constant([1.0, 2.0]))))
    out, err = _fresh(path, """
        r = [m.loop(tf.constant([3.0, 1.0]), tf.constant(4)), m.branches(tf.constant(4.0)),
             m.rand(tf.constant([1.0, 2.0])), m.grad_inside(tf.constant([1.0, 2.0])),
             m.count]
        print(json.dumps(tf.nest.map_structure(lambda t: t.numpy().tolist(), r)))
    """)
    assert json.loads(out) == [list(expected), 205.03125, first, [[4.0, -4.0], [3.0, 12.0]], 4]
    assert "total 0.625 k 4" in err
    # The stateless draw is a function of its seed: the original's.
    assert first[0] == _lists(m.rand(tf.constant([1.0, 2.0])))[0]


def test_gradients_through_loaded_function(tmp_path):
    m = Flow()
    path = tmp_path / "flow"
    tf.saved_model.save(m, str(path))
    loaded = tf.saved_model.load(str(path))
    for obj in (m, loaded):
        with tf.GradientTape() as t:
            x = tf.constant(2.0)
            t.watch(x)
            y = obj.branches(x)
        gx, gs = t.gradient(y, [x, obj.inner.scale])
        # TensorFlow 2.21: both 45.5625.
        assert (float(gx.numpy()), float(gs.numpy())) == (45.5625, 45.5625)


def test_signatures(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                      tf.TensorSpec([], tf.int32, name="n")])
        def f(self, x, n):
            return x * self.v, n + 1

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def h(self, x):
            return {"a": x, "b": x * 2}

        @tf.function
        def never(self, x):
            return x

    m = M()
    path = tmp_path / "sig"
    tf.saved_model.save(m, str(path), signatures={"sig": m.f,
                                                  "other": m.h.get_concrete_function()})
    loaded = tf.saved_model.load(str(path))
    assert sorted(loaded.signatures) == ["other", "sig"]
    assert repr(loaded.signatures).startswith("_SignatureMap({")
    out = loaded.signatures["sig"](x=tf.constant([1.0]), n=tf.constant(3))
    assert _lists(out) == {"output_0": [2.0], "output_1": 4}
    assert _lists(loaded.signatures["other"](x=tf.constant(1.0))) == {"a": 1.0, "b": 2.0}
    args, kwargs = loaded.signatures["sig"].structured_input_signature
    assert args == () and sorted(kwargs) == ["n", "x"]
    with pytest.raises(TypeError) as e:
        loaded.signatures["sig"](tf.constant([1.0]), tf.constant(3))
    assert "too many positional arguments" in str(e.value)
    assert str(e.value).endswith("Fallback to flat signature also failed due to: "
                                 "signature_wrapper_f(n, x) takes 0 positional arguments, got 2.")
    # One input: positional too (TensorFlow's canonicalize_signatures).
    assert _lists(loaded.signatures["other"](tf.constant(1.0))) == {"a": 1.0, "b": 2.0}
    with pytest.raises(ValueError, match="Found zero restored functions for caller function."):
        loaded.never(tf.constant(1.0))
    # Two functions with an input_signature: no default signature.
    path2 = tmp_path / "nosig"
    tf.saved_model.save(m, str(path2))
    assert len(tf.saved_model.load(str(path2)).signatures) == 0
    with pytest.raises(ValueError, match="Only `tf.functions` with an input signature or "
                                         "concrete functions can be used as a signature."):
        tf.saved_model.save(m, str(tmp_path / "bad"), signatures=m.never)
    out, _ = _fresh(path, """
        r = m.signatures["sig"](x=tf.constant([1.0, 2.0]), n=tf.constant(1))
        print(json.dumps({k: v.numpy().tolist() for k, v in r.items()}))
    """)
    assert json.loads(out) == {"output_0": [2.0, 4.0], "output_1": 2}


def test_nested_functions_and_plain_function_root(tmp_path):
    v = tf.Variable(3.0)

    @tf.function
    def inner(x):
        return x * v

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def outer(x):
        return inner(x) + inner(x + 1.0)

    m = tf.Module()
    m.v = v
    m.outer = outer
    path = tmp_path / "nested"
    tf.saved_model.save(m, str(path))
    loaded = tf.saved_model.load(str(path))
    assert float(loaded.outer(tf.constant(1.0)).numpy()) == 9.0
    loaded.v.assign(1.0)
    assert float(loaded.outer(tf.constant(1.0)).numpy()) == 3.0
    out, _ = _fresh(path, "print(m.outer(tf.constant(2.0)).numpy())")
    assert out.strip() == "15.0"


def test_errors(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(OSError) as e:
        tf.saved_model.load(str(missing))
    assert str(e.value) == ("SavedModel file does not exist at: "
                            "%s/{saved_model.pbtxt|saved_model.pb}" % missing)
    with pytest.raises(ValueError) as e:
        tf.saved_model.save(3, str(tmp_path / "x"))
    assert str(e.value) == ("Expected an object of type `Trackable`, such as `tf.Module` or a "
                            "subclass of the `Trackable` class, for export. Got 3 with type "
                            "<class 'int'>.")
    untracked = tf.Variable(1.0)
    m = tf.Module()
    m.f = tf.function(lambda x: x * untracked, input_signature=[tf.TensorSpec([], tf.float32)])
    with pytest.raises(AssertionError, match="Tried to export a function which references an "
                                             "'untracked' resource"):
        tf.saved_model.save(m, str(tmp_path / "untracked"))


def _saved(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.f = tf.function(lambda x: x + m.v, input_signature=[tf.TensorSpec([], tf.float32)])
    path = tmp_path / "m"
    tf.saved_model.save(m, str(path))
    return path, json.loads((path / "saved_model.json").read_text())


def _rewrite(path, doc):
    (path / "saved_model.json").write_text(json.dumps(doc))


def test_corrupt_and_forged_files(tmp_path):
    path, doc = _saved(tmp_path)
    (path / "saved_model.json").write_text("garbage")
    with pytest.raises(OSError, match="Cannot parse file"):
        tf.saved_model.load(str(path))
    ops = doc["library"]["graphs"][0]["ops"]
    forged = json.loads(json.dumps(doc))
    forged["library"]["graphs"][0]["ops"][0]["type"] = "NoSuchOp"
    _rewrite(path, forged)
    with pytest.raises(OSError, match="unknown op type 'NoSuchOp'"):
        tf.saved_model.load(str(path))
    # Attr names become keyword arguments in compiled code: only identifiers.
    forged = json.loads(json.dumps(doc))
    k = next(i for i, o in enumerate(ops) if o["attrs"])
    forged["library"]["graphs"][0]["ops"][k]["attrs"]["a=__import__('os')"] = 1
    _rewrite(path, forged)
    with pytest.raises(OSError, match="invalid attr name"):
        tf.saved_model.load(str(path))
    forged = json.loads(json.dumps(doc))
    forged["library"]["graphs"][0]["ops"][0]["name"] = "a b; c"
    _rewrite(path, forged)
    with pytest.raises(OSError, match="invalid op name"):
        tf.saved_model.load(str(path))
    _rewrite(path, doc)
    assert float(tf.saved_model.load(str(path)).f(tf.constant(1.0)).numpy()) == 2.0


def test_values_codec_round_trip():
    from rillflow.saved_model import values as V
    import collections
    Pair = collections.namedtuple("Pair", ["a", "b"])
    value = [1, 2.5, float("inf"), "s", b"\x00\xff", None, True, (1, [2]), {"k": (3,)},
             tf.float32, tf.TensorShape([None, 3]), tf.TensorShape(None),
             tf.TensorSpec([2], tf.int32, name="n"), np.arange(6, dtype=np.int16).reshape(2, 3),
             np.float32(1.5), np.array([b"x", b"yz"], dtype=object), Pair(1, 2)]
    back = V.decode(json.loads(json.dumps(V.encode(value))))
    assert repr(back[:13]) == repr(value[:13])
    assert back[13].dtype == np.int16 and back[13].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert isinstance(back[14], np.float32) and back[14] == 1.5
    assert back[15].tolist() == [b"x", b"yz"]
    assert type(back[16]).__name__ == "Pair" and back[16].b == 2
    with pytest.raises(TypeError):
        V.encode(object())
    with pytest.raises(V.FormatError):
        V.decode({"ndarray": {"dtype": "object", "shape": [1], "data": ""}})


Pair = __import__("collections").namedtuple("Pair", ["a", "b"])


class Dense(tf.Module):
    def __init__(self, n_in, n_out, seed):
        super().__init__()
        self.w = tf.Variable(np.arange(n_in * n_out, dtype=np.float32).reshape(n_in, n_out)
                             / 10 - seed, name="w")
        self.b = tf.Variable(tf.zeros([n_out]), name="b")

    def __call__(self, x):
        return tf.nn.relu(x @ self.w + self.b)


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(3, 4, 0.2), Dense(4, 2, 0.1)]
        self.lazy = None

    @tf.function
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    @tf.function
    def pair(self, xs, scale=1.0, *, flag=True):
        return Pair(xs[0] * scale, xs[1] if flag else -xs[1])

    @tf.function
    def star(self, *args):
        return tf.add_n(list(args))

    @tf.function
    def with_var(self, v, x):
        return v * x

    @tf.function
    def make(self, x):
        if self.lazy is None:
            self.lazy = tf.Variable(x * 2)
        return self.lazy + x

    @tf.function
    def squares(self, n):
        ta = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(n):
            ta = ta.write(i, i * i)
        return ta


def test_callable_module_structures_and_variable_arguments(tmp_path):
    m = MLP()
    x = tf.ones([2, 3])
    expected = _lists(m(x))
    args = ([tf.constant(1.0), tf.constant(2.0)], 3.0)
    assert _lists(tuple(m.pair(*args, flag=False))) == (3.0, -2.0)
    assert float(m.star(tf.constant(1.0), tf.constant(2.0)).numpy()) == 3.0
    assert float(m.make(tf.constant(1.0)).numpy()) == 3.0
    assert _lists(m.with_var(m.layers[1].b, tf.constant(2.0))) == [0.0, 0.0]
    assert _lists(m.squares(tf.constant(3)).stack()) == [0, 1, 4]
    path = tmp_path / "mlp"
    tf.saved_model.save(m, str(path))
    loaded = tf.saved_model.load(str(path))
    assert _lists(loaded(x)) == expected
    p = loaded.pair(*args, flag=False)
    assert type(p).__name__ == "Pair" and _lists(tuple(p)) == (3.0, -2.0)
    assert float(loaded.star(tf.constant(1.0), tf.constant(2.0)).numpy()) == 3.0
    assert float(loaded.make(tf.constant(1.0)).numpy()) == 3.0
    assert float(loaded.lazy.numpy()) == 2.0
    loaded.layers[1].b.assign([1.0, 2.0])
    assert _lists(loaded.with_var(loaded.layers[1].b, tf.constant(2.0))) == [2.0, 4.0]
    assert _lists(loaded.squares(tf.constant(3)).stack()) == [0, 1, 4]
    assert loaded.layers[0].w.name == "w:0"
    with tf.GradientTape() as t:
        y = tf.reduce_sum(loaded(x))
    with tf.GradientTape() as t2:
        y2 = tf.reduce_sum(m(x))
    assert _lists(t.gradient(y, loaded.layers[0].w)) == _lists(t2.gradient(y2, m.layers[0].w))
    out, _ = _fresh(path, """
        print(json.dumps([m(tf.ones([2, 3])).numpy().tolist(),
                          m.pair([tf.constant(1.0), tf.constant(2.0)], 3.0, flag=False).b.numpy()
                          .tolist(), m.squares(tf.constant(3)).stack().numpy().tolist()]))
    """)
    assert json.loads(out) == [expected, -2.0, [0, 1, 4]]


def test_loaded_model_saved_again(basic, tmp_path):
    _, path = basic
    loaded = tf.saved_model.load(str(path))
    loaded.v.assign(3.0)
    again = tmp_path / "again"
    tf.saved_model.save(loaded, str(again), options=tf.saved_model.SaveOptions())
    m = tf.saved_model.load(str(again), options=tf.saved_model.LoadOptions())
    assert _lists(m.f(tf.constant([1.0, 2.0]))) == [3.0, 6.0]
    assert _lists(m.g(tf.constant([1.0, 2.0]), 3)) == {"sum": [4.0, 5.0], "prod": [3.0, 6.0]}
    assert list(m.signatures) == [tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
    assert _lists(m.signatures["serving_default"](x=tf.constant([2.0]))) == {"output_0": [6.0]}
    assert isinstance(m.items, list) and float(m.items[0].numpy()) == 4.0


def test_save_inside_function_is_an_error(tmp_path):
    m = tf.Module()
    m.v = tf.Variable(1.0)

    @tf.function
    def f():
        tf.saved_model.save(m, str(tmp_path / "inside"))
        return 1

    with pytest.raises(AssertionError, match="`tf.saved_model.save` is not supported inside a "
                                             "traced @tf.function."):
        f()


@tf.custom_gradient
def _clip_gradient(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.5, 0.5) * 3.0
    return tf.identity(x), grad


class CustomGradients(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(self, x):
        return _clip_gradient(x * self.v) * x

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def r(self, x):
        return tf.recompute_grad(lambda a: tf.sin(a) * self.v)(x)


def test_custom_gradients_are_saved(tmp_path):
    m = CustomGradients()
    path = tmp_path / "custom"
    tf.saved_model.save(m, str(path))
    loaded = tf.saved_model.load(str(path))
    for obj in (m, loaded):
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = obj.f(x)
            z = obj.r(x)
        # TensorFlow 2.21: 18.0, [9.0, 4.5]; recompute_grad [-1.979985, 0.14112].
        assert float(y.numpy()) == 18.0
        assert _lists(t.gradient(y, [x, obj.v])) == [9.0, 4.5]
        assert _lists(t.gradient(z, [x, obj.v])) == pytest.approx([-1.979985, 0.14112], 1e-5)
    out, _ = _fresh(path, """
        x = tf.constant(3.0)
        with tf.GradientTape() as t:
            t.watch(x)
            y = m.f(x)
        print(json.dumps([g.numpy().tolist() for g in t.gradient(y, [x, m.v])]))
    """)
    assert json.loads(out) == [9.0, 4.5]


def test_py_function_is_not_saved(tmp_path):
    m = tf.Module()
    m.f = tf.function(lambda x: tf.py_function(lambda a: a * 2, [x], tf.float32),
                      input_signature=[tf.TensorSpec([], tf.float32)], autograph=False)
    m.g = tf.function(lambda x: x + 1, input_signature=[tf.TensorSpec([], tf.float32)],
                      autograph=False)
    assert float(m.f(tf.constant(1.0)).numpy()) == 2.0
    path = tmp_path / "pyfunc"
    tf.saved_model.save(m, str(path))
    loaded = tf.saved_model.load(str(path))
    assert float(loaded.g(tf.constant(1.0)).numpy()) == 2.0
    # TensorFlow saves the model too; the restored op fails when it runs.
    with pytest.raises(tf.errors.InvalidArgumentError, match="EagerPyFunc"):
        loaded.f(tf.constant(1.0))


class Regression(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0.5], [-0.3]])
        self.b = tf.Variable([0.1])
        self.step = tf.Variable(0, dtype=tf.int64, trainable=False)

    @tf.function(input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([None, 1])])
    def train(self, x, y):
        with tf.GradientTape() as t:
            loss = tf.reduce_mean((x @ self.w + self.b - y) ** 2)
        gw, gb = t.gradient(loss, [self.w, self.b])
        self.w.assign_sub(0.1 * gw)
        self.b.assign_sub(0.1 * gb)
        self.step.assign_add(1)
        return loss


def test_training_step_round_trip(tmp_path):
    m = Regression()
    path = tmp_path / "train"
    tf.saved_model.save(m, str(path))
    x, y = tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[1.0], [2.0]])
    # TensorFlow 2.21, original and loaded alike.
    losses = [1.78000009059906, 8.224000930786133, 38.35340881347656]
    weights = [2.5423998832702637, 2.6487998962402344]
    loaded = tf.saved_model.load(str(path))
    for obj in (m, loaded):
        assert [float(obj.train(x, y).numpy()) for _ in range(3)] == losses
        assert obj.w.numpy().ravel().tolist() == weights and int(obj.step.numpy()) == 3
    assert float(loaded.signatures["serving_default"](x=x, y=y)["output_0"].numpy()) == \
        179.19873046875
    out, _ = _fresh(path, """
        x, y = tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[1.0], [2.0]])
        print(json.dumps([[float(m.train(x, y).numpy()) for _ in range(3)],
                          m.w.numpy().ravel().tolist(), int(m.step.numpy())]))
    """)
    assert json.loads(out) == [losses, weights, 3]


@pytest.mark.skipif(not hasattr(getattr(tf, "train", None), "Checkpoint"),
                    reason="tf.train.Checkpoint is not available")
def test_checkpoint_restores_saved_model_variables(basic):
    # As in TensorFlow: variables/variables is a checkpoint of the object graph.
    _, path = basic
    m = Basic()
    for v in (m.v, m.sub.u, m.items[0], m.table["a"]):
        v.assign(0.0)
    tf.train.Checkpoint(m).restore(str(path / "variables" / "variables"))
    assert [float(v.numpy()) for v in (m.v, m.sub.u, m.items[0], m.table["a"])] == \
        [2.0, 3.0, 4.0, 5.0]


class Pipeline(tf.Module):
    def __init__(self):
        super().__init__()
        self.k = tf.Variable(3, dtype=tf.int64)

    @tf.function(input_signature=[tf.TensorSpec([], tf.int64)])
    def f(self, n):
        s = tf.constant(0, tf.int64)
        off = n * 10
        ds = tf.data.Dataset.range(n).map(lambda a: a * self.k + off)
        ds = ds.filter(lambda a: a % 2 == 0).batch(2)
        for x in ds:
            s += tf.reduce_sum(x)
        return s, ds.reduce(tf.constant(0, tf.int64),
                            lambda acc, b: acc + tf.size(b, out_type=tf.int64))


def test_dataset_functions_round_trip(tmp_path):
    m = Pipeline()
    path = tmp_path / "pipeline"
    tf.saved_model.save(m, str(path))
    loaded = tf.saved_model.load(str(path))
    n = tf.constant(6, tf.int64)
    # TensorFlow 2.21: (198, 3), and (186, 3) once k is 1.
    assert _lists(tuple(m.f(n))) == _lists(tuple(loaded.f(n))) == (198, 3)
    loaded.k.assign(1)
    assert _lists(tuple(loaded.f(n))) == (186, 3)
    out, _ = _fresh(path, """
        print(json.dumps([t.numpy().tolist() for t in m.f(tf.constant(6, tf.int64))]))
    """)
    assert json.loads(out) == [198, 3]


def test_loaded_functions_inside_new_functions(basic, tmp_path):
    _, path = basic
    loaded = tf.saved_model.load(str(path))

    @tf.function
    def h(x):
        return loaded.f(x) + loaded.g(x, 3)["prod"]

    x = tf.constant([1.0, 2.0])
    assert _lists(h(x)) == [5.0, 10.0]
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(h(x))
    assert _lists(t.gradient(y, [x, loaded.v])) == [[5.0, 5.0], 3.0]
    m = tf.Module()
    m.inner = loaded
    m.h = h
    tf.saved_model.save(m, str(tmp_path / "outer"))
    again = tf.saved_model.load(str(tmp_path / "outer"))
    assert _lists(again.h(x)) == [5.0, 10.0]
    again.inner.v.assign(1.0)
    assert _lists(again.h(x)) == [4.0, 8.0]
