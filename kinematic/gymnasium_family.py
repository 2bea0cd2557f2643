"""``python -m kinematic family gymnasium``: a gymnasium environment made from the command
line's ``--env``, ``--env-arg``, ``--seed`` and ``--allow-import``, then unrolled by
:func:`kinematic.finite_envs.from_gymnasium`.

Everything typed is checked before gymnasium makes anything, each refusal one line naming the
flag and what was typed: a ``module:id`` environment id (gymnasium would import ``module``,
from the working directory first) unless ``--allow-import``; a ``--env-arg`` given twice; an
``--env-arg`` that gymnasium's toy_text environment does not take, or whose value it cannot
use (:data:`TOY_TEXT_KEYWORDS`); a random FrozenLake map (``map_name=null``) without
``--seed``, and ``--seed`` where nothing is random. gymnasium is imported here, only when the
family is asked for.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from kinematic.finite_envs import environment_name, from_gymnasium
from kinematic.model import BlockMDP

__all__ = ["TOY_TEXT_KEYWORDS", "EnvArgument", "env_argument", "gymnasium_family"]


class EnvArgument(NamedTuple):
    """One ``--env-arg KEY=VALUE``: the key, the value (JSON when it parses, else the text) and
    the text as typed."""

    key: str
    value: object
    text: str


def env_argument(text: str) -> EnvArgument:
    """argparse ``type=`` of ``--env-arg``: ``KEY=VALUE``, the value JSON when it parses."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"must be KEY=VALUE with a non-empty KEY, got {text!r}")
    try:
        return EnvArgument(key, json.loads(value), text)
    except json.JSONDecodeError:
        return EnvArgument(key, value, text)


Check = Callable[[object], str | None]
"""What is wrong with a keyword argument's value, as the phrase after ``must be``; None if
nothing."""


def _boolean(value: object) -> str | None:
    return None if isinstance(value, bool) else "true or false (JSON: lower case)"


def _outside_the_table(value: object) -> str | None:
    """Taxi's ``fickle_passenger``: its passenger changes destination in ``step``, which
    :func:`from_gymnasium` does not read; only ``false`` builds the MDP it names."""
    return (None if value is False else "false: a fickle passenger changes destination in "
                                        "step, outside the table that is unrolled")


def _probability(value: object) -> str | None:
    return (None if isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and 0 <= value <= 1 else "a number in [0, 1]")


def _reward_schedule(value: object) -> str | None:
    return (None if isinstance(value, list) and len(value) == 3
            and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                    for v in value)
            else "3 finite numbers: the rewards of reaching the goal, a hole, a frozen cell, "
                 "e.g. [1,0,0]")


def _map_name(value: object) -> str | None:
    from gymnasium.envs.toy_text.frozen_lake import MAPS

    return (None if value is None or value in MAPS
            else f"one of {', '.join(MAPS)} or null (a random 8x8 map, with --seed)")


def _desc(value: object) -> str | None:
    rows_ok = (isinstance(value, list) and value and all(isinstance(row, str) for row in value)
               and len({len(row) for row in value}) == 1 and value[0]
               and set("".join(value)) <= set("SFHG") and "S" in "".join(value))
    return (None if rows_ok else "a list of rows of equal length of the letters S, F, H, G "
                                 "with at least one S, e.g. [\"SF\",\"HG\"]")


TOY_TEXT_KEYWORDS: dict[str, dict[str, Check]] = {
    "FrozenLakeEnv": {"map_name": _map_name, "desc": _desc, "is_slippery": _boolean,
                      "success_rate": _probability, "reward_schedule": _reward_schedule},
    "CliffWalkingEnv": {"is_slippery": _boolean},
    "TaxiEnv": {"is_rainy": _boolean, "fickle_passenger": _outside_the_table,
                "rainy_probability": _probability},
}
"""The keyword arguments of gymnasium's toy_text environments (gymnasium 1.4) that change
their table, and what each must be; ``render_mode`` is not one (nothing is rendered), nor is
Taxi's ``fickle_probability`` (it acts in ``step`` only)."""


def _toy_text_class(spec: object) -> str | None:
    """The class name of a spec's entry point when it is one of gymnasium's toy_text
    environments, else None."""
    entry_point = getattr(spec, "entry_point", None)
    if not isinstance(entry_point, str):
        return None
    module, _, name = entry_point.partition(":")
    return name if module.startswith("gymnasium.envs.toy_text.") else None


def _check_keywords(env_id: str, spec: object, given: Sequence[EnvArgument]) -> None:
    """Refuse an ``--env-arg`` of a toy_text environment that it does not take or whose value
    it cannot use."""
    keywords = TOY_TEXT_KEYWORDS.get(_toy_text_class(spec) or "")
    if keywords is None:
        return
    for argument in given:
        check = keywords.get(argument.key)
        if check is None:
            raise ValueError(f"--env-arg {argument.text}: {env_id} takes "
                             f"{', '.join(keywords)}, not {argument.key}")
        problem = check(argument.value)
        if problem is not None:
            raise ValueError(f"--env-arg {argument.text}: {argument.key} must be {problem}")


def gymnasium_family(args: argparse.Namespace) -> BlockMDP:
    """The MDP of ``family gymnasium`` from the parsed command line (``env``, ``env_arg``,
    ``seed``, ``allow_import``, ``horizon``, ``numbers``)."""
    env_id: str | None = args.env
    if env_id is None:
        raise ValueError("family gymnasium needs --env, a gymnasium environment id such as "
                         "FrozenLake-v1")
    module = env_id.partition(":")[0] if ":" in env_id else None
    if module is not None and not args.allow_import:
        raise ValueError(f"--env {env_id}: gymnasium would import the module {module!r} (from "
                         "the working directory first) and run its code to make this "
                         "environment; pass --allow-import if you mean to")
    given: list[EnvArgument] = args.env_arg
    seen: dict[str, EnvArgument] = {}
    for argument in given:
        if argument.key in seen:
            raise ValueError(f"--env-arg {argument.key} given twice: {seen[argument.key].text}, "
                             f"{argument.text}")
        seen[argument.key] = argument
    try:
        import gymnasium
    except ImportError:
        raise ValueError("family gymnasium needs the gymnasium package, part of the homer "
                         "extra: pip install -c constraints.txt '.[homer]'") from None
    shown = "".join(f" --env-arg {argument.text}" for argument in given)
    with warnings.catch_warnings():  # its checker's and version notes: only P is read, and
        warnings.simplefilter("ignore")  # an id too old to make raises an error that says so
        try:
            if module is not None:  # allowed: what gymnasium.make does first
                importlib.import_module(module)
            spec = gymnasium.spec(env_id.partition(":")[2] if module else env_id)
        except Exception as error:  # gymnasium's, or the imported module's
            raise ValueError(f"--env {env_id}: {type(error).__name__}: {error}") from None
        _check_keywords(env_id, spec, given)
        keywords: dict[str, Any] = {argument.key: argument.value for argument in given}
        random = (_toy_text_class(spec) == "FrozenLakeEnv"
                  and {**spec.kwargs, **keywords}.get("map_name", "4x4") is None
                  and keywords.get("desc") is None)
        if random and args.seed is None:
            raise ValueError(f"--env {env_id}{shown}: a random map differs from run to run; "
                             "--seed N fixes it (the seed of gymnasium's generate_random_map)")
        if not random and args.seed is not None:
            raise ValueError(f"--seed {args.seed}: {env_id}{shown} draws nothing at random; "
                             "--seed applies to family combolock and to a random FrozenLake map "
                             "(--env-arg map_name=null)")
        name = None
        if random:
            from gymnasium.envs.toy_text.frozen_lake import generate_random_map

            keywords["desc"] = generate_random_map(size=8, p=0.8, seed=args.seed)
            named = {**spec.kwargs, **keywords, "seed": args.seed}
            del named["desc"]
            name = environment_name(env_id, named, args.horizon)
        try:
            env = gymnasium.make(env_id, **keywords)
        except Exception as error:  # whatever the environment raises
            raise ValueError(f"--env {env_id}{shown}: gymnasium.make raised "
                             f"{type(error).__name__}: {error}") from None
    try:
        return from_gymnasium(env, args.horizon, numbers=args.numbers, name=name)
    finally:
        env.close()
