"""models/live.py's feed and models/db.py's after-commit hook (what SQLite's live updates rest
on): a change reaches only its workspace's streams, only once committed, and a slow stream's
queue stays bounded."""

from __future__ import annotations

import pytest

from models import db, live
from models.tables import Workspace


def _change(n: int, workspace_id: int = 1) -> live.Change:
    return live.Change(n, workspace_id, 10, "order.stage_changed")


async def test_after_commit_runs_once_the_outermost_transaction_commits(backend: str):
    if backend.startswith("postgres"):
        pytest.skip("SQLite's hook: PostgreSQL's NOTIFY waits for the commit itself")
    ran: list[str] = []
    async with db.transaction():
        async with db.transaction():  # nested: joins the outer one
            db.after_commit(lambda: ran.append("nested"))
        await Workspace.count()
        assert ran == []
    assert ran == ["nested"]
    db.after_commit(lambda: ran.append("outside"))  # no transaction: at once
    assert ran == ["nested", "outside"]


async def test_after_commit_never_runs_for_a_rollback(backend: str):
    if backend.startswith("postgres"):
        pytest.skip("SQLite's hook: PostgreSQL's NOTIFY waits for the commit itself")
    ran: list[str] = []
    with pytest.raises(ZeroDivisionError):
        async with db.transaction():
            db.after_commit(lambda: ran.append("rolled back"))
            _ = 1 / 0
    assert ran == []


def test_a_change_reaches_its_workspaces_streams_only():
    feed = live.Feed()
    mine, theirs = feed.subscribe(1), feed.subscribe(2)
    feed.publish(_change(5, workspace_id=1))
    assert list(mine.changes) == [_change(5, workspace_id=1)]
    assert list(theirs.changes) == []
    assert feed.last_id == 5
    feed.unsubscribe(mine)
    feed.unsubscribe(theirs)
    assert feed.streams == {}


def test_a_full_queue_is_emptied_and_marked_behind(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(live, "QUEUE_LIMIT", 3)
    feed = live.Feed()
    slow = feed.subscribe(1)
    for n in range(1, 5):
        feed.publish(_change(n))
    assert slow.behind
    assert len(slow.changes) == 0
    for n in range(5, 50):
        feed.publish(_change(n))
    assert len(slow.changes) <= 3


def test_a_lost_listen_connection_makes_every_stream_catch_up_and_closing_ends_them():
    feed = live.Feed()
    streams = [feed.subscribe(1), feed.subscribe(2)]
    feed.missed()
    assert all(s.behind for s in streams)
    feed.close()
    assert all(s.closed for s in streams)
    assert feed.subscribe(1).closed  # none opens while the process stops


@pytest.mark.parametrize(
    "payload", ["", "1:2:3", "a:2:3:order.created", "1:-2:3:order.created", "1:2:x:y"]
)
def test_a_malformed_notification_is_ignored(payload: str):
    assert live.decode(payload) is None


def test_a_notification_reads_back_as_the_change():
    assert live.decode("7:4182:10:order.stage_changed") == _change(4182, workspace_id=7)
