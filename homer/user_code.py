"""The user's own code named on the command line (``homer evaluate --abstraction`` and
``--policies``): ``MODULE:NAME``, an importable module (the working directory is on the path)
and an attribute of it, or ``path/to/file.py:NAME``, a Python file run as a module (its
directory put first on the path, as ``python path/to/file.py`` does, so it can import its
neighbours). Importing it runs it: that is what the user asked for.

Everything that goes wrong is a :class:`UserCodeError` (a ``ValueError``) naming the flag and
the text given: a module that is not there or fails to import, a missing attribute, an object
of the wrong kind; and an exception raised later by the loaded code, with the line of the
user's file it came from (:func:`guarded`).

>>> import os
>>> load_object("os.path:join", "--abstraction") is os.path.join
True
>>> try:
...     load_object("os.path:jion", "--abstraction")
... except UserCodeError as error:
...     print(error)
--abstraction os.path:jion: the module os.path has no attribute 'jion' (did you mean 'join'?)
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kinematic.lookup import closest_names

__all__ = ["UserCodeError", "guarded", "load_abstraction", "load_function", "load_object",
           "load_policies", "split_reference"]


class UserCodeError(ValueError):
    """The user's code named by a flag cannot be loaded, is not what the flag needs, or
    raised an exception."""


def split_reference(text: str, flag: str) -> tuple[str, str]:
    """``MODULE:NAME`` or ``path/to/file.py:NAME`` -> ``(module or path, name)``; the last
    ``:`` splits."""
    source, colon, name = text.rpartition(":")
    if not colon or not source or not name.isidentifier():
        raise UserCodeError(f"{flag} {text}: expected MODULE:FUNCTION or path/to/file.py:FUNCTION "
                            "(a module or a Python file, a colon, the name of a function in it)")
    return source, name


def _where(error: BaseException, files: set[str]) -> str:
    """`` (file, line N)``: the innermost frame of ``error`` in one of ``files`` (else the
    innermost frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if frame.filename in files] or frames[-1:]
    return f" ({ours[-1].filename}, line {ours[-1].lineno})" if ours else ""


def _import_file(path: Path, flag: str, text: str) -> Any:
    """The module of the file ``path``, executed again when the file changed since it was
    last loaded (a reader editing their function between calls)."""
    if not path.is_file():
        raise UserCodeError(f"{flag} {text}: {path} is not a file")
    name = f"homer_user_code_{abs(hash(str(path.resolve())))}"
    version = path.stat().st_mtime_ns
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__homer_version__", None) == version:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserCodeError(f"{flag} {text}: {path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    module.__homer_version__ = version  # type: ignore[attr-defined]
    directory = str(path.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise UserCodeError(f"{flag} {text}: importing {path} raised {type(error).__name__}: "
                            f"{error}{_where(error, {str(path)})}") from error
    return module


def _import_module(source: str, flag: str, text: str) -> Any:
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as error:
        if error.name is not None and (source == error.name
                                       or source.startswith(error.name + ".")):
            raise UserCodeError(f"{flag} {text}: no module named {error.name!r} (give an "
                                "importable MODULE:FUNCTION, or path/to/file.py:FUNCTION)"
                                ) from None
        raise UserCodeError(f"{flag} {text}: importing {source} raised ModuleNotFoundError: "
                            f"{error}") from error
    except Exception as error:
        raise UserCodeError(f"{flag} {text}: importing {source} raised {type(error).__name__}: "
                            f"{error}{_where(error, set())}") from error


def load_object(text: str, flag: str) -> Any:
    """The object ``NAME`` of the module or file ``text`` = ``MODULE:NAME`` or
    ``path/to/file.py:NAME`` names; every failure a :class:`UserCodeError` naming ``flag``."""
    source, name = split_reference(text, flag)
    if source.endswith(".py") or "/" in source or "\\" in source:
        module, kind = _import_file(Path(source), flag, text), f"the file {source}"
    else:
        module, kind = _import_module(source, flag, text), f"the module {source}"
    if not hasattr(module, name):
        names = [n for n in dir(module) if not n.startswith("_")]
        close = closest_names(name, names)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise UserCodeError(f"{flag} {text}: {kind} has no attribute {name!r}{hint}")
    return getattr(module, name)


def load_function(text: str, flag: str, arguments: str) -> Callable[..., Any]:
    """:func:`load_object`, which must be callable (``arguments`` says with what, for the
    error), wrapped by :func:`guarded`."""
    loaded = load_object(text, flag)
    if not callable(loaded):
        raise UserCodeError(f"{flag} {text}: not callable (of type {type(loaded).__name__}); "
                            f"expected a function {arguments}")
    return guarded(loaded, f"{flag} {text}")


def load_abstraction(text: str, flag: str, mdp: object) -> Callable[[Any, int], Any]:
    """The user's abstraction ``text`` = ``MODULE:FUNCTION`` names (:func:`load_function`),
    called as ``phi(observations, step)``; a function with a parameter named ``mdp`` is also
    given the Block MDP ``mdp`` (``homer evaluate``'s ``--spec``) as ``mdp=``, so that it can
    decode the observations (:meth:`homer.encoders.HadamardNoise.decode`) and read the MDP's
    names without loading the spec itself.

    >>> import pathlib, tempfile
    >>> from kinematic import combination_lock
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     mine = pathlib.Path(folder) / "mine.py"
    ...     _ = mine.write_text("def phi(observations, step, mdp):\\n"
    ...                         "    return [len(mdp.layers[step - 1])] * len(observations)\\n")
    ...     phi = load_abstraction(f"{mine}:phi", "--abstraction", combination_lock(3, 2, 0))
    >>> phi(["x", "y"], 2)  # the lock's step 2 has 3 states
    [3, 3]
    """
    phi = load_function(text, flag, "phi(observations, step) -> classes")
    try:
        parameter = inspect.signature(phi).parameters.get("mdp")
    except (TypeError, ValueError):  # no signature to read (a builtin): called without it
        parameter = None
    if parameter is None or parameter.kind in (parameter.POSITIONAL_ONLY,
                                               parameter.VAR_POSITIONAL):
        return phi

    def with_mdp(observations: Any, step: int) -> Any:
        return phi(observations, step, mdp=mdp)

    return with_mdp


def guarded(function: Callable[..., Any], label: str) -> Callable[..., Any]:
    """``function`` whose exceptions become a :class:`UserCodeError` saying the call (``label``
    names ``function``), the exception and the line of ``function``'s file it came from."""
    files = set()
    with contextlib.suppress(TypeError):  # a builtin or a callable object without a file
        files.add(inspect.getsourcefile(inspect.unwrap(function)) or "")

    @functools.wraps(function)
    def call(*arguments: Any, **keywords: Any) -> Any:
        try:
            return function(*arguments, **keywords)
        except UserCodeError:
            raise
        except Exception as error:
            shown = ", ".join([*("observations" if hasattr(a, "shape") else _short(a)
                                 for a in arguments),
                               *(f"{name}={_short(value)}" for name, value in keywords.items())])
            raise UserCodeError(f"{label}({shown}) raised {type(error).__name__}: {error}"
                                f"{_where(error, files)}") from error

    return call


def _short(value: object) -> str:
    """A call's argument as an error shows it: its ``repr``, or its type when long."""
    shown = repr(value)
    return shown if len(shown) <= 30 else type(value).__name__


def load_policies(text: str, flag: str, mdp: object) -> list[Any] | dict[int, list[Any]]:
    """The policies ``text`` = ``MODULE:NAME`` names (:func:`load_object`), as
    :func:`homer.policy_evaluation.evaluate_policies` takes them: ``NAME`` is either the
    policies themselves - a list of policies (the cover of every step) or a dict step (1-based)
    -> list (a cover per step) - or a function of one argument, called with the Block MDP
    ``mdp``, that returns them. A policy is a function ``(observations, step) -> actions`` (or
    action probabilities); each is :func:`guarded` once (one object per policy, so a policy in
    the covers of several steps is scored once)."""
    loaded = load_object(text, flag)
    what = text.rpartition(":")[2]
    if callable(loaded) and not isinstance(loaded, list | tuple | Mapping):
        try:
            inspect.signature(loaded).bind(mdp)
        except TypeError:
            raise UserCodeError(
                f"{flag} {text}: {what} cannot be called with one argument, the MDP; expected "
                "a function of the MDP returning the policies, or the policies themselves (a "
                f"list, or a dict step -> list: one policy is the list [{what}])") from None
        except ValueError:  # no signature to check (a builtin): the call will tell
            pass
        loaded, what = guarded(loaded, f"{flag} {text}")(mdp), f"{what}(mdp)"
    wrapped: dict[int, Callable[..., Any]] = {}

    def policies(items: object, where: str) -> list[Any]:
        if not isinstance(items, list | tuple):
            raise UserCodeError(f"{flag} {text}: {where} is of type {type(items).__name__}; "
                                "expected a list of policies, or a dict step -> list")
        for k, policy in enumerate(items):
            if not callable(policy):
                raise UserCodeError(f"{flag} {text}: {where}[{k}] is not callable (of type "
                                    f"{type(policy).__name__}); a policy is a function "
                                    "(observations, step) -> actions")
            if id(policy) not in wrapped:
                wrapped[id(policy)] = guarded(policy, f"{flag} {text}: {where}[{k}]")
        return [wrapped[id(policy)] for policy in items]

    if isinstance(loaded, Mapping):
        return {step: policies(cover, f"{what}[{step!r}]") for step, cover in loaded.items()}
    return policies(loaded, what)
