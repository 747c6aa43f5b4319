"""``record``: a dataclass whose methods are shared functions, not generated code.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and
(frozen) ``__setattr__``/``__delattr__`` as source text and ``exec()``\\s it when the module
is imported: about a millisecond a class, over a quarter of the instructions of an
``inspect`` of the README's fixture, which defines 46 of them (591M of them before, 427M
after, counted by valgrind; ``benchmarks/startup_bench.py``). ``record`` keeps the dataclass (its
fields: ``dataclasses.fields``, ``replace``, ``asdict``, ``field(compare=False, ...)`` work
as before) and gives it the same methods, written once here, reading the class's fields.
The few hundred records a run makes cost microseconds more to build.

    @record                    # @dataclass(frozen=True)
    @record(frozen=False)      # @dataclass
    @record(eq=False, repr=False)

``tests/test_record.py`` holds each method to the one ``@dataclass`` generates, and the
package to ``record`` (no ``@dataclass`` left in it).
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, fields

# what dataclass looks for in a string annotation: a class variable, an init-only
# variable, the keyword-only marker (any text holding one is read as dataclass reads it)
_SPECIAL = ("ClassVar", "InitVar", "KW_ONLY")
_REPRS: set[tuple[int, int]] = set()  # (object, thread) being repr'd: a cycle shows "..."


def record(cls=None, /, *, frozen: bool = True, eq: bool = True, repr: bool = True):
    """``@dataclass(frozen=frozen, eq=eq, repr=repr)``, its methods the shared ones below."""

    def wrap(cls):
        own = set(vars(cls))
        undocumented = not cls.__doc__
        if undocumented:  # else dataclass reads its signature for one (inspect.signature: ms)
            cls.__doc__ = cls.__name__
        annotations = cls.__dict__.get("__annotations__", {})
        written = {n: t for n, t in annotations.items() if isinstance(t, str)}
        if any(word in t for t in written.values() for word in _SPECIAL):
            written = {}  # dataclass reads these as it does (a class variable is no field)
        if written:  # each read as a plain type (dataclass looks every string up 3 times)
            cls.__annotations__ = {**annotations, **dict.fromkeys(written, object)}
        cls = dataclass(cls, init=False, repr=False, eq=False)
        flds = fields(cls)
        if written:  # the annotations as written, on the class and its fields
            cls.__annotations__ = annotations
            for f in flds:
                f.type = written.get(f.name, f.type)
        if undocumented:  # the one @dataclass writes
            cls.__doc__ = f"{cls.__name__}({', '.join(_shown(f) for f in flds if f.init)})"
        cls.__record_init__ = tuple(f.name for f in flds if f.init)
        cls.__record_defaults__ = {
            f.name: (f.default, None if f.default_factory is MISSING else f.default_factory)
            for f in flds
            if f.init and (f.default is not MISSING or f.default_factory is not MISSING)
        }
        cls.__record_post_init__ = hasattr(cls, "__post_init__")
        if "__init__" not in own:
            cls.__init__ = _init
        if repr:
            cls.__record_repr__ = tuple(f.name for f in flds if f.repr)
            if "__repr__" not in own:
                cls.__repr__ = _repr
        if eq:
            cls.__record_eq__ = tuple(f.name for f in flds if f.compare)
            if "__eq__" not in own:
                cls.__eq__ = _eq
            explicit_hash = "__hash__" in own and not (
                vars(cls)["__hash__"] is None and "__eq__" in own
            )
            if not explicit_hash:
                if frozen:
                    cls.__record_hash__ = tuple(
                        f.name for f in flds if (f.compare if f.hash is None else f.hash)
                    )
                    cls.__hash__ = _hash
                else:
                    cls.__hash__ = None
        if frozen:
            if "__setattr__" in own or "__delattr__" in own:
                raise TypeError(f"cannot overwrite attribute __setattr__ in class {cls.__name__}")
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
        return cls

    return wrap if cls is None else wrap(cls)


def _shown(f) -> str:
    """A field as ``inspect.signature`` shows the parameter of a dataclass's __init__."""
    if isinstance(f.type, str):  # ``from __future__ import annotations``
        shown = f"{f.name}: {f.type!r}"
    else:
        from inspect import formatannotation

        shown = f"{f.name}: {formatannotation(f.type)}"
    if f.default is not MISSING:
        return f"{shown} = {f.default!r}"
    return f"{shown} = <factory>" if f.default_factory is not MISSING else shown


def _init(self, *args, **kwargs) -> None:
    cls = type(self)
    names = cls.__record_init__
    put = object.__setattr__
    if not args and len(kwargs) == len(names) and all(n in kwargs for n in names):
        for name in names:  # every field by name (``dataclasses.replace``)
            put(self, name, kwargs[name])
    else:
        _bind(self, cls, names, args, kwargs)
    if cls.__record_post_init__:
        self.__post_init__()


def _bind(self, cls, names: tuple[str, ...], args: tuple, kwargs: dict) -> None:
    given = len(args)
    if given > len(names):
        raise TypeError(
            f"{cls.__qualname__}.__init__() takes {len(names) + 1} positional arguments "
            f"but {given + 1} were given"
        )
    put = object.__setattr__
    for name, value in zip(names, args, strict=False):  # the first ``given``
        put(self, name, value)
    defaults = cls.__record_defaults__
    for name in names[given:]:
        if name in kwargs:
            put(self, name, kwargs.pop(name))
        elif name in defaults:
            default, factory = defaults[name]
            put(self, name, default if factory is None else factory())
        else:
            raise TypeError(f"{cls.__qualname__}.__init__() missing 1 required argument: {name!r}")
    for name in kwargs:
        how = "multiple values for" if name in names else "an unexpected keyword"
        raise TypeError(f"{cls.__qualname__}.__init__() got {how} argument {name!r}")


def _repr(self) -> str:
    import threading

    key = (id(self), threading.get_ident())
    if key in _REPRS:
        return "..."
    _REPRS.add(key)
    try:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in type(self).__record_repr__)
        return f"{type(self).__qualname__}({shown})"
    finally:
        _REPRS.discard(key)


def _eq(self, other):
    if other.__class__ is self.__class__:
        names = self.__record_eq__
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)
    return NotImplemented


def _hash(self) -> int:
    return hash(tuple(getattr(self, n) for n in self.__record_hash__))


def _frozen_setattr(self, name: str, value) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
