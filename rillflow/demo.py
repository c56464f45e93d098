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


