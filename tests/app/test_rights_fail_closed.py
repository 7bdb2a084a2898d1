"""Rights fail closed: every use-case takes the caller it acts for as a required keyword
argument. A surface, a read_code host method or a refactor that forgets ``caller=`` fails
with a ``TypeError`` instead of running with the owner's rights."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import hoard.app
from hoard.core.policy import Caller


def app_modules() -> Iterator[ModuleType]:
    yield hoard.app
    for info in pkgutil.walk_packages(hoard.app.__path__, "hoard.app."):
        yield importlib.import_module(info.name)


def public_callables(module: ModuleType) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The module's own public functions and its public classes' public methods."""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, staticmethod | classmethod):
                    member = member.__func__
                if inspect.isfunction(member):
                    yield f"{module.__name__}.{name}.{attr}", member


def caller_taking(modules: Iterator[ModuleType]) -> dict[str, inspect.Parameter]:
    """Every public callable that takes a ``caller``, with that parameter."""
    found: dict[str, inspect.Parameter] = {}
    for module in modules:
        for qualname, fn in public_callables(module):
            param = inspect.signature(fn).parameters.get("caller")
            if param is not None:
                found[qualname] = param
    return found


def fails_open(params: dict[str, inspect.Parameter]) -> list[str]:
    """The callables whose ``caller`` may be passed by position or left out."""
    return sorted(
        f"{name}: caller is {p.kind.description}"
        + ("" if p.default is inspect.Parameter.empty else f", default {p.default!r}")
        for name, p in params.items()
        if p.kind is not inspect.Parameter.KEYWORD_ONLY or p.default is not inspect.Parameter.empty
    )


def test_every_use_case_takes_its_caller_as_a_required_keyword() -> None:
    params = caller_taking(app_modules())

    # The check sees the use-cases the surfaces call (it cannot pass by finding nothing).
    for name in (
        "hoard.app.search.SearchFlow.search",
        "hoard.app.reading.Reading.read",
        "hoard.app.writes.write_path.WritePath.write",
        "hoard.app.writes.write_path.WritePath.pending",
        "hoard.app.sync.service.Sync.sync",
        "hoard.app.read_code.CodeRunner.run",
    ):
        assert name in params, f"{name} takes no caller"
    assert fails_open(params) == []


def test_the_check_finds_a_caller_that_defaults_or_comes_by_position() -> None:
    class Flow:
        def by_default(self, path: str, caller: Caller | None = None) -> None: ...

        def by_position(self, path: str, caller: Caller) -> None: ...

        def keyword_default(self, path: str, *, caller: Caller | None = None) -> None: ...

        def required(self, path: str, *, caller: Caller) -> None: ...

    module = ModuleType("hoard.app.example")
    Flow.__module__ = module.__name__
    module.Flow = Flow  # type: ignore[attr-defined]

    assert fails_open(caller_taking(iter([module]))) == [
        "hoard.app.example.Flow.by_default: caller is positional or keyword, default None",
        "hoard.app.example.Flow.by_position: caller is positional or keyword",
        "hoard.app.example.Flow.keyword_default: caller is keyword-only, default None",
    ]
