"""Change tracking for the simulator's state, so a state file is written row by row."""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Journal(dict[K, V]):
    def __init__(self) -> None:
        super().__init__()
        # dicts as ordered sets: rows written in the order they changed keep listing order across a reload
        self.changed: dict[K, None] = {}
        self.deleted: dict[K, None] = {}

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.touch(key)
        if isinstance(value, Tracked):
            object.__setattr__(value, "_journal", (self, key))

    def __delitem__(self, key: K) -> None:
        super().__delitem__(key)
        self.changed.pop(key, None)
        self.deleted[key] = None

    def pop(self, key: K, *default: Any) -> Any:  # type: ignore[override]
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def setdefault(self, key: K, default: V) -> V:  # type: ignore[override]
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def clear(self) -> None:
        for key in list(self):
            del self[key]

    def touch(self, key: K) -> None:
        """Mark a key changed, e.g. after mutating its value in place."""
        self.changed[key] = None
        self.deleted.pop(key, None)

    @property
    def dirty(self) -> bool:
        return bool(self.changed or self.deleted)

    def flushed(self) -> None:
        self.changed.clear()
        self.deleted.clear()


class Tracked:
    """Mixin for Journal records: assigning a field (but a ``volatile`` cache) marks the record changed."""

    __slots__ = ("_journal",)  # records with slots of their own: a marketplace holds hundreds of thousands
    volatile: ClassVar[frozenset[str]] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        where = getattr(self, "_journal", None)
        if where is not None and name not in self.volatile:
            where[0].touch(where[1])
