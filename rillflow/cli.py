"""The `rillflow` command: `rillflow demo` tours the library; `rillflow run
SCRIPT` (or `-m MODULE`) runs an unmodified TensorFlow or Keras program on
rillflow; `rillflow saved-model show DIR` describes a SavedModel (its
signatures, functions and variables) as `saved_model_cli show --all`."""
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
    sm = sub.add_parser("saved-model", help="inspect a SavedModel")
    sm_sub = sm.add_subparsers(dest="saved_model_command")
    show = sm_sub.add_parser("show", help="signatures (inputs, outputs), functions and "
                             "variables of a SavedModel, as saved_model_cli show --all")
    show.add_argument("dir", nargs="?", help="the SavedModel directory")
    show.add_argument("--dir", dest="dir_option", help="the SavedModel directory")
    show.add_argument("--tag_set", help="only the MetaGraphDef with these comma-separated tags")
    show.add_argument("--signature_def", help="only this SignatureDef")
    show.add_argument("--all", action="store_true", help="accepted: everything is shown")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from . import demo
        demo.run()
    elif args.command == "saved-model":
        directory = getattr(args, "dir", None) or getattr(args, "dir_option", None)
        if args.saved_model_command != "show" or not directory:
            sm.print_help()
            return 1
        from .saved_model import describe
        try:
            print(describe.describe(directory, args.tag_set, args.signature_def), end="")
        except (OSError, ValueError, RuntimeError) as e:
            print(f"rillflow saved-model show: {e}", file=sys.stderr)
            return 1
    elif args.command == "version":
        import rillflow
        print(rillflow.__version__)
    else:
        parser.print_help()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
