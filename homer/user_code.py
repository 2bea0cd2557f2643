"""The user's own code named on the command line (``homer evaluate --abstraction`` and
``--policies``): ``MODULE:NAME``, an importable module (the working directory is on the path)
and an attribute of it, or ``path/to/file.py:NAME``, a Python file run as a module (its
directory put first on the path, as ``python path/to/file.py`` does, so it can import its
neighbours). Importing it runs it: that is what the user asked for.

Everything that goes wrong is a :class:`UserCodeError` (a ``ValueError``) naming the flag and
the text given: a module that is not there or fails to import, a missing attribute, an object
of the wrong kind; and an exception raised later by the loaded code, with the line of the
user's file it came from (:func:`guarded`). "Exception" here is any ``BaseException`` but
``KeyboardInterrupt`` (the reader's Ctrl-C stays theirs): a file that parses the command line
or calls ``sys.exit`` when imported is named with its exit status and the last line it wrote to
stderr (its usage error), which is held back while it is imported - not the script's own exit.
A path or a reference that does not print as itself (a newline in it) is shown quoted
(:func:`kinematic.json_input.display_path`), so that every error is one line.

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
import io
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homer.policy_evaluation import PolicyCover, read_cover
from kinematic.json_input import display_path
from kinematic.lookup import closest_names

if TYPE_CHECKING:
    from kinematic.model import BlockMDP

__all__ = ["UserCodeError", "flag_text", "guarded", "load_abstraction", "load_function",
           "load_object", "load_policies", "split_reference"]


class UserCodeError(ValueError):
    """The user's code named by a flag cannot be loaded, is not what the flag needs, or
    raised an exception."""


def flag_text(flag: str, text: str) -> str:
    """``flag text`` as errors name the user's code: ``text`` quoted when it does not print as
    itself (:func:`kinematic.json_input.display_path`).

    >>> flag_text("--abstraction", "mine.py:phi"), flag_text("--abstraction", "p\\nq.py:phi")
    ('--abstraction mine.py:phi', "--abstraction 'p\\\\nq.py:phi'")
    """
    return f"{flag} {display_path(text)}"


def split_reference(text: str, flag: str) -> tuple[str, str]:
    """``MODULE:NAME`` or ``path/to/file.py:NAME`` -> ``(module or path, name)``; the last
    ``:`` splits."""
    source, colon, name = text.rpartition(":")
    if not colon or not source or not name.isidentifier():
        raise UserCodeError(f"{flag_text(flag, text)}: expected MODULE:FUNCTION or "
                            "path/to/file.py:FUNCTION (a module or a Python file, a colon, the "
                            "name of a function in it)")
    return source, name


def _raised(error: BaseException) -> str:
    """``Type: message`` of ``error`` (the type alone when the message is empty; the message
    quoted when it does not print on one line)."""
    message = str(error)
    shown = message if message.isprintable() else repr(message)
    return type(error).__name__ + (f": {shown}" if message else "")


def _where(error: BaseException, files: set[str]) -> str:
    """`` (file, line N)``: the innermost frame of ``error`` in one of ``files`` (else the
    innermost frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if frame.filename in files] or frames[-1:]
    return (f" ({display_path(ours[-1].filename)}, line {ours[-1].lineno})" if ours else "")


class _HeldStderr(io.StringIO):
    """``sys.stderr`` while the user's code is imported: its text held back, its file
    descriptor and terminal check those of the real stream (a library that asks for them when
    imported, as ``faulthandler.enable()`` does, still gets them)."""

    def __init__(self, real: Any) -> None:
        super().__init__()
        self.real = real

    def fileno(self) -> int:
        return int(self.real.fileno())

    def isatty(self) -> bool:
        return bool(self.real.isatty())


@contextlib.contextmanager
def _importing(flag: str, text: str, what: str, files: set[str]) -> Iterator[None]:
    """Import ``what`` (``text`` given to ``flag``) with what it writes to stderr held back:
    written out when the import succeeds; when it raises (any ``BaseException`` but
    ``KeyboardInterrupt``), a :class:`UserCodeError` naming it, with the last line held back
    (an argument parser's usage error) and the line of ``files`` it came from."""
    held = _HeldStderr(sys.stderr)
    try:
        with contextlib.redirect_stderr(held):
            yield
    except (KeyboardInterrupt, UserCodeError):
        sys.stderr.write(held.getvalue())
        raise
    except BaseException as error:  # the user's SystemExit is an error too
        written = [line for line in held.getvalue().splitlines() if line.strip()]
        wrote = f" after writing {written[-1]!r} to stderr" if written else ""
        if isinstance(error, SystemExit):
            happened = (f"exited (SystemExit {error.code!r}){wrote}{_where(error, files)}; code "
                        "that parses the command line or exits belongs under if __name__ == "
                        "'__main__':")
        else:
            happened = f"raised {_raised(error)}{wrote}{_where(error, files)}"
        raise UserCodeError(f"{flag_text(flag, text)}: importing {display_path(what)} "
                            f"{happened}") from error
    sys.stderr.write(held.getvalue())


def _import_file(path: Path, flag: str, text: str) -> Any:
    """The module of the file ``path``, executed again when the file changed since it was
    last loaded (a reader editing their function between calls)."""
    if not path.is_file():
        raise UserCodeError(f"{flag_text(flag, text)}: {display_path(path)} is not a file")
    name = f"homer_user_code_{abs(hash(str(path.resolve())))}"
    version = path.stat().st_mtime_ns
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__homer_version__", None) == version:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserCodeError(f"{flag_text(flag, text)}: {display_path(path)} cannot be imported "
                            "as a Python module")
    module = importlib.util.module_from_spec(spec)
    module.__homer_version__ = version  # type: ignore[attr-defined]
    directory = str(path.resolve().parent)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    sys.modules[name] = module
    try:
        with _importing(flag, text, str(path), {str(path), str(path.absolute())}):
            spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import_module(source: str, flag: str, text: str) -> Any:
    try:
        with _importing(flag, text, source, set()):
            return importlib.import_module(source)
    except UserCodeError as error:
        missing = error.__cause__
        if (isinstance(missing, ModuleNotFoundError) and missing.name is not None
                and (source == missing.name or source.startswith(missing.name + "."))):
            raise UserCodeError(f"{flag_text(flag, text)}: no module named {missing.name!r} "
                                "(give an importable MODULE:FUNCTION, or "
                                "path/to/file.py:FUNCTION)") from None
        raise


def load_object(text: str, flag: str) -> Any:
    """The object ``NAME`` of the module or file ``text`` = ``MODULE:NAME`` or
    ``path/to/file.py:NAME`` names; every failure a :class:`UserCodeError` naming ``flag``."""
    source, name = split_reference(text, flag)
    if source.endswith(".py") or "/" in source or "\\" in source:
        module, kind = _import_file(Path(source), flag, text), f"the file {display_path(source)}"
    else:
        module, kind = _import_module(source, flag, text), f"the module {display_path(source)}"
    try:
        return getattr(module, name)
    except AttributeError:
        names = [n for n in dir(module) if not n.startswith("_")]
        close = closest_names(name, names)
        hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
        raise UserCodeError(f"{flag_text(flag, text)}: {kind} has no attribute {name!r}{hint}"
                            ) from None
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # a module's __getattr__ is user code
        raise UserCodeError(f"{flag_text(flag, text)}: reading {name} of {kind} raised "
                            f"{_raised(error)}{_where(error, set())}") from error


def load_function(text: str, flag: str, arguments: str) -> Callable[..., Any]:
    """:func:`load_object`, which must be callable (``arguments`` says with what, for the
    error), wrapped by :func:`guarded`."""
    loaded = load_object(text, flag)
    if not callable(loaded):
        raise UserCodeError(f"{flag_text(flag, text)}: not callable (of type "
                            f"{type(loaded).__name__}); expected a function {arguments}")
    return guarded(loaded, flag_text(flag, text))


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
    """``function`` whose exceptions - any ``BaseException`` but ``KeyboardInterrupt``: a
    ``sys.exit`` in it too - become a :class:`UserCodeError` saying the call (``label`` names
    ``function``), the exception and the line of ``function``'s file it came from."""
    files = set()
    with contextlib.suppress(TypeError):  # a builtin or a callable object without a file
        files.add(inspect.getsourcefile(inspect.unwrap(function)) or "")

    @functools.wraps(function)
    def call(*arguments: Any, **keywords: Any) -> Any:
        try:
            return function(*arguments, **keywords)
        except (UserCodeError, KeyboardInterrupt):
            raise
        except BaseException as error:  # the user's SystemExit is an error too
            shown = ", ".join([*("observations" if hasattr(a, "shape") else _short(a)
                                 for a in arguments),
                               *(f"{name}={_short(value)}" for name, value in keywords.items())])
            raise UserCodeError(f"{label}({shown}) raised {_raised(error)}"
                                f"{_where(error, files)}") from error

    return call


def _short(value: object) -> str:
    """A call's argument as an error shows it: its ``repr``, or its type when long."""
    shown = repr(value)
    return shown if len(shown) <= 30 else type(value).__name__


def load_policies(text: str, flag: str, mdp: BlockMDP) -> PolicyCover:
    """The policy cover ``text`` = ``MODULE:NAME`` names (:func:`load_object`), read by
    :func:`homer.policy_evaluation.read_cover` as :func:`homer.policy_evaluation.evaluate_policies`
    reads it: ``NAME`` is either the policies themselves - a list of policies (the cover of
    every step) or a dict step (1-based) -> list (a cover per step; the steps it leaves out are
    reported as having no policies) - or a function of one argument, called with the Block MDP
    ``mdp``, that returns them. A policy is a function ``(observations, step) -> actions`` (or
    action probabilities); each distinct one is :func:`guarded` once, named by where it was
    found (``--policies mine.py:cover[2][0]``)."""
    loaded = load_object(text, flag)
    name = flag_text(flag, text)
    what = text.rpartition(":")[2]
    if callable(loaded) and not isinstance(loaded, list | tuple | Mapping):
        try:
            inspect.signature(loaded).bind(mdp)
        except TypeError:
            raise UserCodeError(
                f"{name}: {what} cannot be called with one argument, the MDP; expected a "
                "function of the MDP returning the policies, or the policies themselves (a "
                f"list, or a dict step -> list: one policy is the list [{what}])") from None
        except ValueError:  # no signature to check (a builtin): the call will tell
            pass
        loaded, name = guarded(loaded, name)(mdp), f"{name}(mdp)"
    try:
        cover = read_cover(mdp, loaded, name)
    except (TypeError, ValueError) as error:
        raise UserCodeError(str(error)) from None
    return replace(cover, policies=[guarded(policy, label) for policy, label
                                    in zip(cover.policies, cover.names, strict=True)])
