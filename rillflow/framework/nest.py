"""`tf.nest`: nested structures of lists, tuples, namedtuples and dicts.

Dicts flatten in sorted key order, as in TensorFlow. Anything else
(tensors, variables, numbers, None) is a leaf.
"""
import collections.abc

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure",
           "is_nested", "flatten_up_to"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_attrs(x):
    return hasattr(type(x), "__attrs_attrs__")


def is_nested(structure):
    """Whether `structure` is a list, tuple, dict (or mapping) rather than a leaf."""
    return isinstance(structure, (list, tuple, dict, collections.abc.Mapping)) or _is_attrs(structure)


is_sequence = is_nested


def _sorted_keys(d):
    # As in TensorFlow, unsortable keys (say, ints mixed with strings) raise TypeError.
    return sorted(d)


def _children(structure):
    if isinstance(structure, (dict, collections.abc.Mapping)):
        return [structure[k] for k in _sorted_keys(structure)]
    if _is_attrs(structure):
        return [getattr(structure, a.name) for a in type(structure).__attrs_attrs__]
    return list(structure)


def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first (dicts by sorted key); with
    `expand_composites`, composite tensors (IndexedSlices) give their
    component tensors."""
    if expand_composites:
        return [c for leaf in flatten(structure) for c in _expand(leaf)]
    if not is_nested(structure):
        return [structure]
    out = []
    _flatten_into(structure, out)
    return out


def _is_composite(x):
    return getattr(type(x), "_is_composite_tensor", False)


def _expand(leaf):
    """A leaf's components (recursively) when it is a composite tensor."""
    if _is_composite(leaf):
        return flatten(leaf._to_components(), expand_composites=True)
    return [leaf]


def _pack_composites(structure, flat_sequence):
    """The leaves of `structure` rebuilt from `flat_sequence` (composite
    tensors from as many items as they have components)."""
    leaves = []
    pos = 0
    for leaf in flatten(structure):
        if _is_composite(leaf):
            n = len(flatten(leaf, expand_composites=True))
            parts = list(flat_sequence[pos:pos + n])
            leaves.append(leaf._from_components(pack_sequence_as(
                leaf._to_components(), parts, expand_composites=True)))
            pos += n
        else:
            leaves.append(flat_sequence[pos] if pos < len(flat_sequence) else None)
            pos += 1
    if pos != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {pos} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {flat_sequence}.")
    return leaves


def _flatten_into(s, out):
    if is_nested(s):
        for c in _children(s):
            _flatten_into(c, out)
    else:
        out.append(s)


def _rebuild(template, children):
    if isinstance(template, (dict, collections.abc.Mapping)):
        keys = _sorted_keys(template)
        d = dict(zip(keys, children))
        if type(template) is dict:
            return {k: d[k] for k in template}
        if isinstance(template, collections.defaultdict):
            out = type(template)(template.default_factory)
            out.update((k, d[k]) for k in template)
            return out
        try:
            return type(template)((k, d[k]) for k in template)
        except TypeError:
            return {k: d[k] for k in template}
    if _is_namedtuple(template):
        return type(template)(*children)
    if _is_attrs(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    if isinstance(template, list):
        return list(children)
    return type(template)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Builds a structure like `structure` whose leaves are `flat_sequence`.

    Raises:
      TypeError: if `flat_sequence` is not a list or tuple (or other sequence).
      ValueError: if the number of leaves differs.
    """
    if not is_nested(flat_sequence) or isinstance(flat_sequence, (dict, collections.abc.Mapping)):
        raise TypeError(f"Attempted to pack value:\n  {str(flat_sequence)}\ninto a structure, but "
                        f"found incompatible type `{type(flat_sequence)}` instead.")
    given, flat_sequence = flat_sequence, list(flat_sequence)
    if expand_composites and any(_is_composite(x) for x in flatten(structure)):
        flat_sequence = _pack_composites(structure, flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  "
                             f"{structure}\nHowever the input is a sequence "
                             f"({type(flat_sequence)}) of length {len(flat_sequence)}.\n  "
                             f"{flat_sequence}\nnest cannot guarantee that it is safe to map "
                             "one to the other.")
        return flat_sequence[0]
    try:
        pos, result = _pack(structure, flat_sequence, 0)
    except _TooShort:
        pos = None
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None
    if pos != len(flat_sequence):
        atoms = len(flatten(structure))
        raise ValueError(f"Could not pack sequence. Structure had {atoms} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.  Structure: "
                         f"{structure}, flat_sequence: {given}.")
    return result


class _TooShort(Exception):
    pass


def _pack(structure, flat, pos):
    if not is_nested(structure):
        if pos >= len(flat):
            raise _TooShort()
        return pos + 1, flat[pos]
    children = []
    for c in _children(structure):
        pos, v = _pack(c, flat, pos)
        children.append(v)
    return pos, _rebuild(structure, children)


class _Dot:
    """A leaf printed as '.', for the structure outlines of error messages."""

    def __repr__(self):
        return "."


def _desc(x):
    return f"type={type(x).__name__} str={str(x)}"


def _outline(structure):
    return str(pack_sequence_as(structure, [_Dot()] * len(flatten(structure)))
               if is_nested(structure) else _Dot())


def _same_sequence_type(a, b):
    if type(a) is type(b):
        return True
    mapping = (dict, collections.abc.Mapping)
    if isinstance(a, mapping) and isinstance(b, mapping):
        return True
    return (_is_namedtuple(a) and _is_namedtuple(b) and type(a).__name__ == type(b).__name__
            and type(a)._fields == type(b)._fields)


def _structure_problem(a, b, check_types):
    """(exception class, detail) for the first difference of `a` and `b`, or None."""
    na, nb = is_nested(a), is_nested(b)
    if na != nb:
        seq, other = (a, b) if na else (b, a)
        return ValueError, (f'Substructure "{_desc(seq)}" is a sequence, while substructure '
                            f'"{_desc(other)}" is not')
    if not na:
        return None
    if check_types and not _same_sequence_type(a, b):
        return TypeError, (f"The two namedtuples don't have the same sequence type. First "
                           f"structure {_desc(a)} has type {type(a).__name__}, while second "
                           f"structure {_desc(b)} has type {type(b).__name__}")
    if check_types and isinstance(a, (dict, collections.abc.Mapping)) and set(a) != set(b):
        return ValueError, (f"The two dictionaries don't have the same set of keys. First "
                            f"structure has keys {_desc(list(a))}, while second structure has "
                            f"keys {_desc(list(b))}")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        return ValueError, (f"The two structures don't have the same number of elements. "
                            f"First structure: {_desc(a)}. Second structure: {_desc(b)}")
    for x, y in zip(ca, cb):
        problem = _structure_problem(x, y, check_types)
        if problem is not None:
            return problem
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises unless both have the same nesting.

    Raises:
      ValueError: different nesting, lengths or (with `check_types`) dict keys.
      TypeError: (with `check_types`) different sequence types; dicts of any
        mapping type, and namedtuples of equal name and fields, count as the same.
    """
    problem = _structure_problem(nest1, nest2, check_types)
    if problem is None:
        return
    cls, detail = problem
    raise cls(f"The two structures don't have the same nested structure.\n\n"
              f"First structure: {_desc(nest1)}\n\nSecond structure: {_desc(nest2)}\n\n"
              f"More specifically: {detail}\nEntire first structure:\n{_outline(nest1)}\n"
              f"Entire second structure:\n{_outline(nest2)}")


def map_structure(func, *structure, **kwargs):
    """Applies `func` to corresponding leaves; returns a structure like the first."""
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and "
                         f"`expand_composites`, not: `{'`, `'.join(kwargs)}`")
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s, expand_composites=expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)],
                            expand_composites=expand)


def flatten_up_to(shallow_tree, input_tree, check_types=True, expand_composites=False):
    """Flattens `input_tree` only as deep as `shallow_tree` is nested."""
    if not is_nested(shallow_tree):
        return [input_tree]
    out = []
    for s, i in zip(_children(shallow_tree), _children(input_tree)):
        out.extend(flatten_up_to(s, i, check_types))
    return out


def map_structure_up_to(shallow_tree, func, *inputs, **kwargs):
    """Applies `func` to the sub-trees of `inputs` at the leaves of `shallow_tree`."""
    flats = [flatten_up_to(shallow_tree, i) for i in inputs]
    return pack_sequence_as(shallow_tree, [func(*xs) for xs in zip(*flats)])


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False):
    """`(path, leaf)` pairs, paths joined with `separator`."""
    return [(separator.join(str(p) for p in path), v) for path, v in _paths(structure, ())]


def _paths(s, prefix):
    if not is_nested(s):
        yield prefix, s
        return
    if isinstance(s, (dict, collections.abc.Mapping)):
        keys = _sorted_keys(s)
    elif _is_namedtuple(s):
        keys = list(type(s)._fields)
    else:
        keys = list(range(len(s)))
    for k, c in zip(keys, _children(s)):
        yield from _paths(c, prefix + (k,))


def flatten_with_tuple_paths(structure, expand_composites=False):
    """`(path tuple, leaf)` pairs."""
    return list(_paths(structure, ()))
