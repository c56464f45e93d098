"""Finding the user's own source line, for errors that point at user code.

Frames of rillflow itself and of generated code are "framework frames";
everything else is user code. A converter (AutoGraph) can register a source
map so that a frame of generated code reports the user's original line.
"""
import linecache
import os
import sys

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

# filename of generated code -> callable(lineno) -> (filename, lineno) or None
source_maps = {}


def is_framework_file(filename):
    """Whether frames of `filename` belong to rillflow (not to the user)."""
    # Generated code (compiled graphs, framework/dispatch.py's wrappers) is
    # compiled under "<rillflow ...>" names.
    return filename.startswith(_PKG_DIR) or (
        filename.startswith("<rillflow") and filename not in source_maps)


def map_location(filename, lineno):
    """The user location of a line, following source maps of generated code."""
    mapper = source_maps.get(filename)
    if mapper is not None:
        loc = mapper(lineno)
        if loc is not None:
            return loc
    return filename, lineno


class Location:
    """A source location: file, line number, function name and line text."""

    __slots__ = ("filename", "lineno", "name")

    def __init__(self, filename, lineno, name):
        self.filename = filename
        self.lineno = lineno
        self.name = name

    @property
    def line(self):
        """The text of the line, stripped ('' if the source is not available)."""
        return linecache.getline(self.filename, self.lineno).strip()

    def __str__(self):
        text = '  File "%s", line %d, in %s' % (self.filename, self.lineno, self.name)
        line = self.line
        if line:
            text += "\n    " + line
        return text

    def __repr__(self):
        return "Location(%r, %d, %r)" % (self.filename, self.lineno, self.name)


def user_location(depth=1):
    """The innermost frame of the call stack that belongs to user code, or None."""
    f = sys._getframe(depth)
    while f is not None:
        filename = f.f_code.co_filename
        if filename in source_maps:
            fn, ln = map_location(filename, f.f_lineno)
            return Location(fn, ln, f.f_code.co_name)
        if not is_framework_file(filename):
            return Location(filename, f.f_lineno, f.f_code.co_name)
        f = f.f_back
    return None


def filter_traceback(tb):
    """The traceback without rillflow's own frames (user frames only).

    Converted code is compiled with the user's file names and lines, so its
    frames are user frames; the framework frames between them are dropped.
    When nothing but framework frames remains, the traceback is unchanged.
    """
    import types
    frames = []
    t = tb
    while t is not None:
        if not is_framework_file(t.tb_frame.f_code.co_filename):
            frames.append((t.tb_frame, t.tb_lasti, t.tb_lineno))
        t = t.tb_next
    if not frames:
        return tb
    new = None
    for frame, lasti, lineno in reversed(frames):
        new = types.TracebackType(new, frame, lasti, lineno)
    return new
