"""The daemon's fixtures (a live receiver, a fake clock, dispatchers) for webhook tests."""

from tests.daemon.conftest import fake_clock, make_dispatcher, make_store, receiver

__all__ = ["fake_clock", "make_dispatcher", "make_store", "receiver"]
