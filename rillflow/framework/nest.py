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
    try:
        return sorted(d)
    except TypeError:
        return sorted(d, key=repr)


def _children(structure):
    if isinstance(structure, (dict, collections.abc.Mapping)):
        return [structure[k] for k in _sorted_keys(structure)]
    if _is_attrs(structure):
        return [getattr(structure, a.name) for a in type(structure).__attrs_attrs__]
    return list(structure)


def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first (dicts by sorted key)."""
    if not is_nested(structure):
        return [structure]
    out = []
    _flatten_into(structure, out)
    return out


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
      ValueError: if the number of leaves differs.
    """
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == "
                             f"{len(flat_sequence)} > 1")
        return flat_sequence[0]
    pos, result = _pack(structure, flat_sequence, 0)
    if pos != len(flat_sequence):
        raise ValueError(f"Could not pack sequence. Structure had {pos} atoms, but "
                         f"flat_sequence had {len(flat_sequence)} items.")
    return result


def _pack(structure, flat, pos):
    if not is_nested(structure):
        if pos >= len(flat):
            raise ValueError("Could not pack sequence: flat_sequence is too short.")
        return pos + 1, flat[pos]
    children = []
    for c in _children(structure):
        pos, v = _pack(c, flat, pos)
        children.append(v)
    return pos, _rebuild(structure, children)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (or TypeError) unless both have the same nesting."""
    n1, n2 = is_nested(nest1), is_nested(nest2)
    if n1 != n2:
        raise ValueError(f"The two structures don't have the same nested structure.\n\n"
                         f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}")
    if not n1:
        return
    if check_types and type(nest1) is not type(nest2) and not (
            isinstance(nest1, (list, tuple)) and isinstance(nest2, (list, tuple))
            and not _is_namedtuple(nest1) and not _is_namedtuple(nest2)
            and type(nest1) is type(nest2)):
        if not (isinstance(nest1, dict) and isinstance(nest2, dict)):
            raise TypeError(f"The two structures don't have the same sequence type. Input "
                            f"structure has type {type(nest1)!r}, while shallow structure has "
                            f"type {type(nest2)!r}.")
    if isinstance(nest1, (dict, collections.abc.Mapping)):
        if set(nest1) != set(nest2):
            raise ValueError(f"The two dictionaries don't have the same set of keys. First "
                             f"structure has keys {sorted(nest1, key=repr)}, while second "
                             f"structure has keys {sorted(nest2, key=repr)}.")
    c1, c2 = _children(nest1), _children(nest2)
    if len(c1) != len(c2):
        raise ValueError(f"The two structures don't have the same number of elements.\n\n"
                         f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}")
    for a, b in zip(c1, c2):
        assert_same_structure(a, b, check_types)


def map_structure(func, *structure, **kwargs):
    """Applies `func` to corresponding leaves; returns a structure like the first."""
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if not structure:
        raise ValueError("Must provide at least one structure")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)])


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
