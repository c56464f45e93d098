"""The `rillflow` command: `rillflow demo` tours the library."""
import argparse
import sys


def main(argv=None):
    """Entry point of the `rillflow` command."""
    parser = argparse.ArgumentParser(prog="rillflow", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="a short tour of rillflow")
    sub.add_parser("version", help="print the version")
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
