"""The `rillflow` command: `rillflow demo` tours the library."""
import argparse
import sys


def _demo():
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


def main(argv=None):
    """Entry point of the `rillflow` command."""
    parser = argparse.ArgumentParser(prog="rillflow", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="a short tour of rillflow")
    sub.add_parser("version", help="print the version")
    args = parser.parse_args(argv)
    if args.command == "demo":
        _demo()
    elif args.command == "version":
        import rillflow
        print(rillflow.__version__)
    else:
        parser.print_help()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
