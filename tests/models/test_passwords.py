"""Password hashing: OWASP's parameters, nothing hashed at import, and at most SLOTS hashes
at once in a process whatever the number of threads asking (docs/security.md, "Passwords")."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from argon2 import PasswordHasher, extract_parameters, profiles

from models import passwords
from models.errors import InvalidFields
from tests.hash_spy import watch

ROOT = Path(__file__).resolve().parents[2]

# Every argon2 call into its C library during the imports and the web's start is counted; then
# one verification, so a count that stays 0 comes from a hook that works.
IMPORTED = """
import asyncio, sys
calls = []
def hook(frame, event, arg):
    if event == "c_call" and getattr(arg, "__name__", "") in ("argon2_hash", "argon2_verify"):
        calls.append(arg.__name__)
sys.setprofile(hook)
import models.passwords, cli, api.app
async def main():
    async with api.app.app.lifespan():
        pass
asyncio.run(main())
at_start = len(calls)
models.passwords.verify(None, "any password at all")
sys.setprofile(None)
print(at_start, len(calls))
"""

# Two threads hash eight times; VmRSS and VmHWM (KiB) before and after.
HASHED_IN_THREADS = """
import concurrent.futures
from models import passwords
from models.errors import InvalidFields
def memory():
    return [int(line.split()[1]) for line in open("/proc/self/status")
            if line.startswith(("VmRSS", "VmHWM"))]
before = memory()
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    list(pool.map(passwords.verify, [None] * 8, ["correct horse battery staple"] * 8))
print(*before, *memory())
"""

OLD = PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY)  # the 64 MiB profile, before


def test_nothing_is_hashed_at_import_or_at_the_web_process_start(tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'web.sqlite3'}"}
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", IMPORTED], cwd=ROOT, env=env, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    at_start, after_one_check = map(int, done.stdout.decode().split()[-2:])
    assert after_one_check == at_start + 1  # the hook sees a verification
    assert at_start == 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_hash_gives_its_memory_back_when_it_ends() -> None:
    """The process does not keep 19 MiB per hashing thread after the logins are over."""
    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", HASHED_IN_THREADS], cwd=ROOT, capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    _, rss_before, peak_after, rss_after = map(int, done.stdout.split())
    assert peak_after - rss_before > 15 * 1024  # the hashes held their 19 MiB
    assert rss_after - rss_before < 8 * 1024


def test_hashes_use_owasps_parameters_and_the_decoy_was_made_with_them() -> None:
    made = passwords.hash_password("correct horse battery staple")
    found = extract_parameters(made)
    assert (found.memory_cost, found.time_cost, found.parallelism) == (19456, 2, 1)
    assert made.startswith("$argon2id$")
    assert found == passwords.PARAMETERS == extract_parameters(passwords.DECOY)
    assert not passwords.outdated(made) and not passwords.outdated(passwords.DECOY)
    assert passwords.verify(made, "correct horse battery staple")
    assert not passwords.verify(made, "correct horse battery stapl")


def test_old_hashes_still_verify_and_are_outdated() -> None:
    old = OLD.hash("correct horse battery staple")
    assert passwords.verify(old, "correct horse battery staple")
    assert not passwords.verify(old, "wrong horse battery staple")
    assert passwords.outdated(old)


@pytest.mark.parametrize("stored", [None, "", "not a hash", "$argon2id$v=19$m=1,t=1,p=1$x$y"])
def test_no_usable_hash_never_matches(stored: str | None) -> None:
    assert not passwords.verify(stored, "not a password anyone has")
    assert not passwords.verify(stored, "correct horse battery staple")


def test_a_password_of_undecodable_bytes_is_refused_and_never_matches() -> None:
    """The command line reads standard input with surrogateescape in a C locale."""
    typed = b"correct horse \xff battery".decode("utf-8", "surrogateescape")
    with pytest.raises(InvalidFields) as refused:
        passwords.hash_password(typed)
    assert refused.value.errors == {
        "password": ["must be text (it holds bytes that are not UTF-8)"]
    }
    assert not passwords.verify(passwords.hash_password("correct horse battery"), typed)


def test_eight_threads_asking_at_once_hash_two_at_a_time(monkeypatch) -> None:
    """The bound holds for any caller (the CLI and the admin call from their own threads)."""
    spy = watch(monkeypatch)
    stored = passwords.hash_password("correct horse battery staple")
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(passwords.verify, [stored] * 16, ["correct horse battery staple"] * 16)
        )
    assert answers == [True] * 16
    assert spy.calls == 17
    assert spy.peak == passwords.SLOTS == 2


def test_an_old_hash_is_verified_alone(monkeypatch) -> None:
    """An old hash costs 64 MiB: it takes every slot, so hashing memory stays bounded while
    old hashes remain (a new one costs 19 MiB, two at once)."""
    old = OLD.hash("correct horse battery staple")
    spy = watch(monkeypatch)
    stored = [passwords.DECOY] * 10 + [old] * 2
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(passwords.verify, stored, ["correct horse battery staple"] * 12))
    assert answers == [False] * 10 + [True] * 2
    assert spy.calls == 12
    assert spy.peak == 2  # new hashes still run two at a time
    assert spy.peak_beside_old == 1


class GaveUp(Exception):
    pass


def _interrupted_wait(slots: passwords.Slots) -> None:
    """Wait for a slot on this (the main) thread until a signal interrupts the wait."""

    def give_up(*_: object) -> None:
        raise GaveUp

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(GaveUp), slots.held(1):
            pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _taken_within(slots: passwords.Slots, count: int, seconds: float) -> bool:
    taken = threading.Event()

    def take() -> None:
        with slots.held(count):
            taken.set()

    threading.Thread(target=take, daemon=True).start()
    return taken.wait(seconds)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="POSIX timers")
def test_a_wait_given_up_never_stops_the_queue() -> None:
    """Whether the caller who gives up was next in line or further back, later callers still
    get their turn (a lost turn would stop every login of the process)."""
    slots = passwords.Slots(2)
    with slots.held(2):
        _interrupted_wait(slots)  # next in line
    assert _taken_within(slots, 2, 10)
    with slots.held(2):
        behind = threading.Thread(target=_taken_within, args=(slots, 2, 10), daemon=True)
        behind.start()  # next in line
        while slots._next < 5:  # until it has taken its ticket (ours were 0 to 3)
            time.sleep(0.01)
        _interrupted_wait(slots)  # further back
    behind.join(10)
    assert _taken_within(slots, 2, 10)  # the turn went past the one given up
