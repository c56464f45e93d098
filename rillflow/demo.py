"""`rillflow demo`: a short tour, written as user code (AutoGraph converts
it; the framework's own modules are never converted)."""


def run():
    """Prints the tour."""
    import rillflow as tf
    print("rillflow %s: TensorFlow 2's graph system on NumPy\n" % tf.__version__)
    print("== eager tensors and ops")
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    print(x)
    print(tf.reduce_sum(x * 2.0 + 1.0, axis=0))
    print("\n== a gradient")
    w = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        loss = w * w + 2.0 * w
    print("d(w*w + 2w)/dw at w=3:", tape.gradient(loss, w))
    print("\n== tf.function: traced once per signature, compiled to Python")

    @tf.function
    def f(a, b):
        print("  (tracing f with", a, ")")
        return a * b + 1.0
    print(f(tf.constant(2.0), tf.constant(3.0)))
    print(f(tf.constant(4.0), tf.constant(5.0)))
    print("tracing count:", f.experimental_get_tracing_count())
    print("generated code:")
    print(f.get_concrete_function(tf.constant(1.0), tf.constant(1.0)).generated_source)

    print("== AutoGraph: Python control flow on tensors becomes graph control flow")

    @tf.function
    def collatz(a):
        counter = 0
        while a != 1:
            if a % 2 == 0:
                a = a // 2
            else:
                a = 3 * a + 1
            counter += 1
        return counter
    print("collatz(27) =", collatz(tf.constant(27)))
    print(collatz.get_concrete_function(tf.constant(27)).generated_source)

    print("== tf.data inside a function: one ReduceDataset op")

    @tf.function
    def total(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            s += x * x
        return s
    print("sum of squares below 10:", total(tf.data.Dataset.range(10)))

    print("\n== training a model: a tf.function step with GradientTape")
    rng = tf.random.Generator.from_seed(0)
    xs = rng.normal([256, 2])
    ys = tf.cast(tf.reduce_sum(xs * xs, axis=1) < 1.0, tf.int32)  # inside the unit circle?
    w1 = tf.Variable(rng.normal([2, 16]) * 0.5)
    b1 = tf.Variable(tf.zeros([16]))
    w2 = tf.Variable(rng.normal([16, 2]) * 0.5)
    params = [w1, b1, w2]

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = tf.nn.relu(x @ w1 + b1) @ w2
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        for p, g in zip(params, tape.gradient(loss, params)):
            p.assign_sub(0.5 * g)
        return loss
    for epoch in range(1, 201):
        loss = train_step(xs, ys)
        if epoch % 50 == 0:
            print("step %3d  loss %.4f" % (epoch, loss))
    _keras_demo(tf, xs.numpy(), ys.numpy())


def _keras_demo(tf, xs, ys):
    """The same task with tf.keras when the `keras` extra is installed."""
    try:
        keras = tf.keras
    except (AttributeError, RuntimeError) as exc:
        print("\n(tf.keras: %s)" % exc)
        return
    print("\n== tf.keras: Keras 3 on rillflow")
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(xs, ys, epochs=20, batch_size=32, verbose=0)
    print("fit: loss %.4f -> %.4f, accuracy %.3f" % (
        history.history["loss"][0], history.history["loss"][-1],
        history.history["accuracy"][-1]))
