"""Every public exception (and warning) that a module of ``kinematic``, ``proofs_checks`` or
``homer`` defines is importable from its package's top level and listed in its ``__all__``, so
that a user catches it without knowing which module raised it. A new exception that is not
exported fails here."""

import importlib
import pkgutil
from types import ModuleType

import pytest

PACKAGES = ("kinematic", "proofs_checks", "homer")


def _defined_exceptions(package: ModuleType) -> dict[str, type[BaseException]]:
    """Public name -> exception class, for the classes the package's modules define."""
    found: dict[str, type[BaseException]] = {}
    modules = [package.__name__] + [
        info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
        if not info.name.endswith("__main__")]  # running it is python -m
    for name in modules:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__ == name and not attribute.startswith("_")):
                found[attribute] = value
    return found


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_exception_is_exported_from_its_package(name):
    package = importlib.import_module(name)
    defined = _defined_exceptions(package)
    missing = sorted(attribute for attribute, exception in defined.items()
                     if getattr(package, attribute, None) is not exception
                     or attribute not in package.__all__)
    assert not missing, f"{name} does not export {missing} (import them in {name}/__init__.py " \
                        "and list them in __all__)"


def test_the_walk_finds_the_exceptions_it_should():
    """Control: the walk sees exceptions of submodules, warnings included."""
    kinematic = _defined_exceptions(importlib.import_module("kinematic"))
    assert {"TooLarge", "InexactTable", "SlowExactAnalysis"} <= set(kinematic)
    homer = _defined_exceptions(importlib.import_module("homer"))
    assert set(homer) == {"CapacityTooSmall", "CheckpointError", "PsdpFallbackWarning",
                          "SmallCapacityWarning", "UnsafePathError", "UserCodeError"}



@pytest.mark.parametrize("name", ["state_policy", "observation_policy", "observation_visitation",
                                  "StateValues", "ObservationValues"])
def test_the_by_name_api_is_exported_with_an_example(name):
    """Building a policy by state or observation name and reading results by name are public:
    importable from ``kinematic``, listed in ``__all__``, and shown by a doctest (``>>>`` in the
    docstring; ``--doctest-modules`` runs it)."""
    kinematic = importlib.import_module("kinematic")
    assert name in kinematic.__all__
    assert ">>>" in (getattr(kinematic, name).__doc__ or ""), f"{name} has no example"
