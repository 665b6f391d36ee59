"""Admin passwords: the length rule and argon2id hashing, in one place for the admin and the CLI."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from models.errors import InvalidFields

MIN_LENGTH = 12
MAX_LENGTH = 1024  # hashing cost grows with length; nobody types more

_hasher = PasswordHasher()  # argon2id, with argon2-cffi's recommended cost (RFC 9106 low-memory)
# Verified when no user matches, so an unknown email costs the same time as a wrong password.
_DECOY = _hasher.hash("not a password anyone has")


def check(password: str, field: str = "password") -> str:
    """The password if it may be used; else InvalidFields naming `field`."""
    problems: list[str] = []
    if len(password) < MIN_LENGTH:
        problems.append(f"must be at least {MIN_LENGTH} characters")
    elif len(password) > MAX_LENGTH:
        problems.append(f"must be at most {MAX_LENGTH} characters")
    if "\x00" in password:
        problems.append("must not contain NUL characters")
    if problems:
        raise InvalidFields({field: problems})
    return password


def hash_password(password: str) -> str:
    return _hasher.hash(check(password))


def verify(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored`; a user without a password never matches."""
    try:
        return _hasher.verify(stored or _DECOY, password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False
