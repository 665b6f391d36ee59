"""Admin passwords: the length rule and argon2id hashing, in one place for the admin and the CLI.

Hashing costs memory (argon2's memory cost, per hash in flight), so a process never runs
more than SLOTS hashes at once, whoever asks and however many threads it has; logins wait
for a slot on this module's own threads (never the event loop's), at most WAITING of them.
Nothing is hashed at import.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import dataclasses
import functools
import re
import threading
from collections.abc import Iterator

from argon2 import Parameters, PasswordHasher, Type, extract_parameters
from argon2.exceptions import InvalidHashError, VerificationError

from models.errors import DomainError, InvalidFields

MIN_LENGTH = 12
MAX_LENGTH = 1024  # hashing cost grows with length; nobody types more
_NOT_TEXT = re.compile("[\ud800-\udfff]")  # lone surrogates: bytes read with surrogateescape

# OWASP's Password Storage Cheat Sheet: argon2id, 19 MiB, 2 iterations, 1 lane. Hashes made
# with other parameters (before 2026-11-26: argon2-cffi's default, RFC 9106's low-memory
# profile, 64 MiB, t=3, p=4) still verify, and are made again with these at the next login.
PARAMETERS = Parameters(
    type=Type.ID, version=19, salt_len=16, hash_len=32, time_cost=2, memory_cost=19456,
    parallelism=1,
)  # fmt: skip
_hasher = PasswordHasher.from_parameters(PARAMETERS)

# Verified when no user matches, so an unknown email costs the same as a wrong password: a
# constant made once with PARAMETERS (tests/models/test_passwords.py checks they agree).
DECOY = (
    "$argon2id$v=19$m=19456,t=2,p=1$x5YpTQwxh7KdPpCP7jwqTA"
    "$0fOj8NzTQULhdbKHNVg9W45RO57plPO7nnMyeQlSc2Y"
)

SLOTS = 2  # hashes one process runs at once: at most 2 x 19 MiB of argon2 memory
WAITING = 64  # logins that may wait for a slot; the next one is refused as Busy


class Busy(DomainError):
    """Every slot is taken and WAITING logins already wait for one."""


class Slots:
    """At most `size` hashes at once, taken first come first served. A hash whose memory cost
    is above PARAMETERS' (an old hash being verified) takes every slot, so the bound on
    memory holds while old hashes remain."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free = size
        self._next = 0  # the ticket the next caller takes
        self._turn = 0  # the ticket whose holder may take its slots now
        self._abandoned: set[int] = set()  # tickets whose holder stopped waiting
        self._changed = threading.Condition()

    def _next_turn(self) -> None:
        self._turn += 1
        while self._turn in self._abandoned:
            self._abandoned.remove(self._turn)
            self._turn += 1
        self._changed.notify_all()

    @contextlib.contextmanager
    def held(self, count: int) -> Iterator[None]:
        count = min(count, self.size)
        with self._changed:
            ticket, self._next = self._next, self._next + 1
            try:
                self._changed.wait_for(lambda: self._turn == ticket and self._free >= count)
            except BaseException:  # interrupted while waiting: the turn must not stop here
                if self._turn == ticket:
                    self._next_turn()
                else:
                    self._abandoned.add(ticket)
                raise
            self._free -= count
            self._next_turn()
        try:
            yield
        finally:
            with self._changed:
                self._free += count
                self._changed.notify_all()


slots = Slots(SLOTS)
_threads = concurrent.futures.ThreadPoolExecutor(SLOTS, thread_name_prefix="password-hash")
_admitted = 0  # logins on _threads, running or waiting
_admitting = threading.Lock()


def check(password: str, field: str = "password") -> str:
    """The password if it may be used; else InvalidFields naming `field`."""
    problems: list[str] = []
    if len(password) < MIN_LENGTH:
        problems.append(f"must be at least {MIN_LENGTH} characters")
    elif len(password) > MAX_LENGTH:
        problems.append(f"must be at most {MAX_LENGTH} characters")
    if "\x00" in password:
        problems.append("must not contain NUL characters")
    if not password.isascii() and _NOT_TEXT.search(password):  # undecodable bytes, as read
        problems.append("must be text (it holds bytes that are not UTF-8)")
    if problems:
        raise InvalidFields({field: problems})
    return password


_M_MMAP_THRESHOLD = -3  # glibc's malloc.h


@functools.cache
def _give_hash_memory_back() -> None:
    """After the first hash is freed, glibc raises its mmap threshold to the hash's 19 MiB
    and serves the next from the hashing thread's own heap, which then keeps 19 MiB for good
    (two threads: +38 MiB for the life of the process). A fixed threshold of 1 MiB keeps
    every hash on mmap, given back as it ends. Nothing to do on another C library."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, 1 << 20)


def _hash(password: str) -> str:
    _give_hash_memory_back()
    with slots.held(1):
        return _hasher.hash(password)


def hash_password(password: str) -> str:
    """A new hash with PARAMETERS (blocks: call it off the event loop)."""
    return _hash(check(password))


def verify(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored`; a user without a password never matches
    (blocks: call it off the event loop)."""
    _give_hash_memory_back()
    try:
        memory = extract_parameters(stored or DECOY).memory_cost
        with slots.held(1 if memory <= PARAMETERS.memory_cost else SLOTS):
            return _hasher.verify(stored or DECOY, password) and bool(stored)
    except (VerificationError, InvalidHashError, UnicodeEncodeError):
        return False  # UnicodeEncodeError: a password no hash can have been made from


def outdated(stored: str) -> bool:
    """Whether `stored` was made with parameters other than PARAMETERS."""
    try:
        return _hasher.check_needs_rehash(stored)
    except InvalidHashError:
        return True


@dataclasses.dataclass(frozen=True)
class Verdict:
    right: bool
    upgraded: str | None = None  # the password hashed again, when `stored` was outdated


def _check_login(stored: str | None, password: str, upgrade: bool) -> Verdict:
    right = verify(stored, password)
    if right and upgrade and stored is not None and outdated(stored):
        return Verdict(right, _hash(password))  # not `check`ed: it is already this user's
    return Verdict(right)


async def check_login(stored: str | None, password: str, *, upgrade: bool) -> Verdict:
    """`verify` on this module's threads, with the password hashed again with PARAMETERS when
    it is right, `upgrade` is set and `stored` is outdated. Busy, without checking, when
    WAITING logins already wait for a slot."""
    global _admitted
    with _admitting:
        if _admitted >= SLOTS + WAITING:
            raise Busy("Too many logins are being checked right now. Try again in a moment.")
        _admitted += 1
    try:
        return await asyncio.wrap_future(_threads.submit(_check_login, stored, password, upgrade))
    finally:
        with _admitting:
            _admitted -= 1
