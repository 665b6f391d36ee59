"""The deploy files stay in step with pyproject.toml: a Procfile platform's Python buildpack
installs from `requirements.txt` (the runtime lock plus the project), so a dependency pinned
in pyproject.toml but not in the lock, or locked at another version, would ship something
other than what the tests ran on."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# The files by which the buildpack picks a package manager; more than one is a failed build.
PACKAGE_MANAGER_FILES = ("requirements.txt", "Pipfile", "Pipfile.lock", "poetry.lock", "uv.lock")
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")
COMPILED_BY = re.compile(r"^#\s+(uv pip compile .+)$", re.M)
DIRECT = "pressline (pyproject.toml)"  # uv's note on a dependency pyproject.toml names


@dataclass
class Lock:
    pins: dict[str, str] = field(default_factory=dict)
    direct: set[str] = field(default_factory=set)
    command: str = ""


def read_lock(name: str) -> Lock:
    """A uv-compiled lock: its pins, the ones pyproject.toml asked for, and its command."""
    text = (ROOT / name).read_text(encoding="utf-8")
    lock = Lock()
    header = COMPILED_BY.search(text)
    assert header is not None, f"{name} does not say which command compiled it"
    lock.command = header.group(1).strip()
    current = ""
    for line in text.splitlines():
        pinned = PIN.match(line)
        if pinned:
            current = canonicalize_name(pinned.group(1))
            lock.pins[current] = pinned.group(2)
        elif line.startswith(" ") and DIRECT in line:
            lock.direct.add(current)
    return lock


def pinned(requirements: list[str]) -> dict[str, str]:
    """pyproject.toml's requirements as name -> version; each must be an exact pin."""
    found = {}
    for text in requirements:
        requirement = Requirement(text)
        [spec] = list(requirement.specifier)
        assert spec.operator == "==", f"{text}: pyproject.toml pins every dependency exactly"
        found[canonicalize_name(requirement.name)] = spec.version
    return found


RUNTIME = pinned(PYPROJECT["dependencies"])
DEV = pinned(PYPROJECT["optional-dependencies"]["dev"])
LOCKS = ("requirements.lock", "requirements-dev.lock")  # runtime, then runtime plus dev


@pytest.mark.parametrize(
    ("name", "wanted"), list(zip(LOCKS, [RUNTIME, {**RUNTIME, **DEV}], strict=True))
)
def test_each_lock_pins_exactly_what_pyproject_names(name, wanted):
    lock = read_lock(name)
    assert {dep: lock.pins.get(dep) for dep in wanted} == wanted
    assert lock.direct == set(wanted), f"{name} was compiled from another pyproject.toml"


def test_the_dev_lock_runs_the_tests_on_the_runtime_versions():
    runtime, dev = read_lock("requirements.lock"), read_lock("requirements-dev.lock")
    assert {dep: dev.pins.get(dep) for dep in runtime.pins} == runtime.pins


def test_requirements_txt_installs_the_runtime_lock_and_the_project():
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if line.strip() and not line.startswith("#")] == [
        "-r requirements.lock",
        ".",
    ]
    assert PYPROJECT["scripts"]["pressline"]  # what installing "." puts on the PATH


def test_the_buildpack_sees_one_package_manager_and_the_locks_python():
    present = [name for name in PACKAGE_MANAGER_FILES if (ROOT / name).exists()]
    assert present == ["requirements.txt"]
    version = (ROOT / ".python-version").read_text(encoding="utf-8").strip()
    assert re.fullmatch(r"3\.\d+", version)
    assert SpecifierSet(PYPROJECT["requires-python"]).contains(f"{version}.0")
    for name in LOCKS:
        assert f"--python-version {version}" in read_lock(name).command


def test_the_readme_gives_the_command_that_compiled_both_locks():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line for line in readme.splitlines() if line.startswith("uv pip compile")]
    assert len(commands) == 1, "one command, on one line, rebuilds the locks"
    [command] = commands
    steps = [step.strip().replace(" -q ", " ") for step in command.split("&&")]
    assert steps == [read_lock(name).command for name in LOCKS]
