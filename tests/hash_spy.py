"""Watching argon2 itself: how many hashes run at once, seen where PasswordHasher calls into
argon2's C library (the real hashing still runs), so a bound is checked from outside the code
that sets it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from argon2 import _password_hasher


class HashSpy:
    def __init__(self) -> None:
        self.calls = 0
        self.peak = 0  # most hashes in flight at once
        self.peak_beside_old = 0  # most in flight at once while an old (64 MiB) one ran
        self._running: list[bool] = []  # per hash in flight: made with more memory than 19 MiB
        self._lock = threading.Lock()

    def _wrap(self, real: Any, old_of: Any) -> Any:
        def spied(*args: Any, **kwargs: Any) -> Any:
            old = old_of(*args, **kwargs)
            with self._lock:
                self.calls += 1
                self._running.append(old)
                self.peak = max(self.peak, len(self._running))
                if any(self._running):
                    self.peak_beside_old = max(self.peak_beside_old, len(self._running))
            try:
                return real(*args, **kwargs)
            finally:
                with self._lock:
                    self._running.remove(old)

        return spied


def _is_old(hash_: bytes, *_: Any) -> bool:
    return b"m=65536" in hash_


def watch(monkeypatch: pytest.MonkeyPatch) -> HashSpy:
    """A spy on every argon2 hash and verification PasswordHasher runs until the test ends."""
    spy = HashSpy()
    monkeypatch.setattr(
        _password_hasher, "verify_secret", spy._wrap(_password_hasher.verify_secret, _is_old)
    )
    monkeypatch.setattr(
        _password_hasher,
        "hash_secret",
        spy._wrap(_password_hasher.hash_secret, lambda **kw: kw["memory_cost"] > 19456),
    )
    return spy
