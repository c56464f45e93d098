"""`tf.TensorShape`: a possibly partial shape.

A shape is either of unknown rank (`dims is None`) or a tuple of dimensions,
each an int or None for "unknown". Graph tensors carry partial shapes;
eager tensors always have fully defined ones.
"""

__all__ = ["TensorShape", "Dimension", "as_shape", "unknown_shape", "dimension_value"]


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # a Dimension-like object
        d = d.value
        if d is None:
            return None
    try:
        v = int(d.__index__())
    except (AttributeError, TypeError):
        if isinstance(d, (str, bytes)):
            raise TypeError(f"'{d!r}'could not be converted to a dimension.") from None
        raise TypeError(f"Dimension value must be integer or None or have an __index__ "
                        f"method, got value '{d!r}' with type '{type(d)}'") from None
    if v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


def dimension_value(d):
    """The int (or None) value of a dimension (`tf.compat.v1.dimension_value`)."""
    return _dim(d)


def _binary(op):
    def method(self, other):
        other = other if isinstance(other, Dimension) else Dimension(other)
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(op(self._value, other._value))

    def reflected(self, other):
        return method(Dimension(other), self)
    return method, reflected


class Dimension:
    """One dimension of a TensorShape in TensorFlow 1 style
    (`tf.compat.v1.Dimension`): an int or unknown (None). Comparisons with an
    unknown dimension give None, arithmetic gives an unknown dimension."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = _dim(value)

    @property
    def value(self):
        """The int value, or None if unknown."""
        return self._value

    def __repr__(self):
        return "Dimension(%r)" % self._value

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def _compare(self, other, op):
        other = _dim(other)
        if self._value is None or other is None:
            return None
        return op(self._value, other)

    def __eq__(self, other):
        try:
            return self._compare(other, lambda a, b: a == b)
        except (TypeError, ValueError):
            return NotImplemented

    def __ne__(self, other):
        try:
            return self._compare(other, lambda a, b: a != b)
        except (TypeError, ValueError):
            return NotImplemented

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    __hash__ = None   # unhashable, as in TensorFlow

    __add__, __radd__ = _binary(lambda a, b: a + b)
    __sub__, __rsub__ = _binary(lambda a, b: a - b)
    __mul__, __rmul__ = _binary(lambda a, b: a * b)
    __floordiv__, __rfloordiv__ = _binary(lambda a, b: a // b)
    __mod__, __rmod__ = _binary(lambda a, b: a % b)

    def is_compatible_with(self, other):
        """Whether the two could be the same dimension."""
        other = _dim(other)
        return self._value is None or other is None or self._value == other

    def assert_is_compatible_with(self, other):
        """Raises ValueError unless compatible with `other`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {Dimension(other)} are not compatible")

    def merge_with(self, other):
        """The known one of the two (they must be compatible)."""
        self.assert_is_compatible_with(other)
        other = _dim(other)
        return Dimension(self._value if self._value is not None else other)


class TensorShape:
    """The static shape of a tensor, possibly with unknown rank or dimensions.

    `TensorShape([2, None])` is a rank-2 shape whose second dimension is not
    known; `TensorShape(None)` has unknown rank.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (tuple, list)):
            self._dims = tuple(_dim(d) for d in dims)
        elif isinstance(dims, (str, bytes)):
            # TensorFlow reads a string as a sequence of characters, and fails on the first.
            raise TypeError(f"Failed to convert '{dims!r}' to a shape: '{dims[:1]!r}'could not be "
                            "converted to a dimension. A shape should either be single "
                            "dimension (e.g. 10), or an iterable of dimensions (e.g. [1, 10, "
                            "None]).")
        else:
            try:
                self._dims = tuple(_dim(d) for d in dims)
            except TypeError:
                self._dims = (_dim(dims),)

    @classmethod
    def _from_tuple(cls, dims):
        """Wraps a tuple of ints/None without validation (internal fast path)."""
        s = object.__new__(cls)
        s._dims = dims
        return s

    @property
    def dims(self):
        """The list of `Dimension`s, or None if the rank is unknown (iterating or
        indexing the shape gives plain ints and Nones)."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def rank(self):
        """The number of dimensions, or None if unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self):
        """The dimensions as a list of ints and Nones.

        Raises:
          ValueError: if the rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        """Whether the rank and every dimension are known."""
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        """Raises ValueError unless the shape is fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self):
        """The number of elements, or None if not fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other):
        """Whether the two shapes could describe the same tensor."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        """Raises ValueError unless compatible with `other`."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both.

        Raises:
          ValueError: if the shapes are incompatible.
        """
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        dims = []
        for a, b in zip(self._dims, other._dims):
            if a is None:
                dims.append(b)
            elif b is None or a == b:
                dims.append(a)
            else:
                raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape._from_tuple(tuple(dims))

    def most_specific_compatible_shape(self, other):
        """The most specific shape that both shapes are compatible with.

        Dimensions that differ become None; a rank difference gives unknown rank.
        """
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape._from_tuple(tuple(a if a == b else None
                                             for a, b in zip(self._dims, other._dims)))

    def most_specific_common_supertype(self, others):
        """The most specific shape every one of `self` and `others` is a subtype
        of: differing dimensions become None, differing ranks unknown rank."""
        result = self
        for other in others:
            result = result.most_specific_compatible_shape(other)
        return result

    def is_subtype_of(self, other):
        """Whether every dimension of `other` is None or equal to this one's."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def concatenate(self, other):
        """This shape followed by `other`'s dimensions."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape._from_tuple(self._dims + other._dims)

    def with_rank(self, rank):
        """This shape merged with an unknown shape of the given rank."""
        try:
            return self.merge_with(unknown_shape(rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank):
        """This shape, checked to have at least `rank` dimensions."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        """This shape, checked to have at most `rank` dimensions."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank):
        """Raises ValueError if the rank is known and differs from `rank`."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other):
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return None
        if isinstance(key, slice):
            return TensorShape._from_tuple(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else list(self._dims),)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%s)" % list(self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def as_proto(self):
        """A dict shaped like TensorShapeProto (`dim` sizes, -1 unknown)."""
        if self._dims is None:
            return {"unknown_rank": True}
        return {"dim": [{"size": -1 if d is None else d} for d in self._dims]}


def as_shape(shape):
    """Converts a list, tuple, None or TensorShape to a TensorShape."""
    if shape.__class__ is TensorShape:
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None):
    """A shape of unknown dimensions, of the given rank or of unknown rank."""
    if rank is None:
        return TensorShape(None)
    return TensorShape._from_tuple((None,) * rank)


def dims_text(dims):
    """Dimensions as TensorFlow writes them in messages: `[2,3]`, `[?,3]`."""
    return "[" + ",".join("?" if d is None else str(int(d)) for d in dims) + "]"


def shape_text(shape):
    """A static shape as TensorFlow's shape functions write it: `[2,?]`, or
    `?` when even the rank is unknown."""
    return "?" if shape.rank is None else dims_text(shape)
