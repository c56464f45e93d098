"""The `rillflow` command: `rillflow demo` tours the library; `rillflow run
SCRIPT` (or `-m MODULE`) runs an unmodified TensorFlow or Keras program on
rillflow."""
import argparse
import sys


def main(argv=None):
    """Entry point of the `rillflow` command."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # `run` passes everything after it to the program untouched (argparse
    # would take the program's own options for rillflow's).
    if argv and argv[0] == "run":
        from .compat import run
        return run.main(argv[1:])
    parser = argparse.ArgumentParser(prog="rillflow", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="a short tour of rillflow")
    sub.add_parser("version", help="print the version")
    sub.add_parser("run", help="run a TensorFlow/Keras script on rillflow: "
                   "run SCRIPT [ARGS...] or run -m MODULE [ARGS...]")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from . import demo
        demo.run()
    elif args.command == "version":
        import rillflow
        print(rillflow.__version__)
    else:
        parser.print_help()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
