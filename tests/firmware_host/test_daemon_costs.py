"""What keeps a pegging action cheap, kept honest: STATUS= lines coalesced in a burst, the
action route's own body parsing (still the token first, still FastAPI's error body and
schema)."""

from __future__ import annotations

import asyncio
import json

import pytest

from firmware_host.components.health import Health
from tests.firmware_host.conftest import Client


class Lines:
    """A notifier that keeps the status lines it was given."""

    enabled = True
    watchdog_s = None

    def __init__(self) -> None:
        self.sent: list[str] = []

    def status(self, line: str) -> bool:
        self.sent.append(line)
        return True

    def stopping(self) -> bool:
        return True


def test_a_burst_of_changes_is_one_status_now_and_one_at_its_end() -> None:
    notifier = Lines()
    state = {"n": 0}
    health = Health(notifier, lambda: True, lambda: f"game 1: Ann {state['n']}")  # type: ignore[arg-type]
    health.STATUS_EVERY_S = 0.05

    async def burst() -> list[str]:
        health.bind(asyncio.get_running_loop())
        for _ in range(100):
            state["n"] += 1
            health.changed()
        first = list(notifier.sent)
        await asyncio.sleep(0.2)
        return first

    first = asyncio.run(burst())
    assert first == ["game 1: Ann 1"]  # the first change at once
    assert notifier.sent == ["game 1: Ann 1", "game 1: Ann 100"]  # the last one, once


def test_a_change_from_another_thread_is_sent_from_the_loop() -> None:
    notifier = Lines()
    health = Health(notifier, lambda: True, lambda: "board idle; no game")  # type: ignore[arg-type]

    async def run() -> None:
        health.bind(asyncio.get_running_loop())
        await asyncio.to_thread(health.changed)
        await asyncio.sleep(0.05)

    asyncio.run(run())
    assert notifier.sent == ["board idle; no game"]


def test_stop_cancels_a_status_that_is_due() -> None:
    notifier = Lines()
    health = Health(notifier, lambda: True, lambda: "x")  # type: ignore[arg-type]

    async def run() -> None:
        health.bind(asyncio.get_running_loop())
        health.changed()
        health.changed()  # due in STATUS_EVERY_S
        health.stop()
        await asyncio.sleep(health.STATUS_EVERY_S + 0.05)

    asyncio.run(run())
    assert notifier.sent == ["x"]


def test_an_action_without_a_token_is_401_before_its_body_is_read(client: Client) -> None:
    game = client.new_game(dealer=0)
    r = client.req("POST", f"/api/games/{game['id']}/actions", {"version": "nope"}, auth=False)
    assert r.status_code == 401 and r.json()["code"] == "unauthorized", r.text


def test_a_bad_action_body_gets_the_validation_error_body(client: Client) -> None:
    game = client.new_game(dealer=0)
    r = client.req("POST", f"/api/games/{game['id']}/actions",
                   {"version": "1", "op_id": "", "action": {"type": "fly"}})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "invalid_request"
    assert {p.split(":")[0] for p in body["problems"]} == {"version", "op_id", "action.type"}
    raw = client.http.post(f"/api/games/{game['id']}/actions", content=b'{"version": 0,',
                           headers={"Authorization": f"Bearer {client.token}",
                                    "Content-Type": "application/json"})
    assert raw.status_code == 422 and raw.json()["code"] == "invalid_request", raw.text
    assert client.req("GET", f"/api/games/{game['id']}", auth=False).json()["version"] == 0


def test_the_schema_still_names_the_action_body(client: Client) -> None:
    spec = client.req("GET", "/openapi.json", auth=False).json()
    body = spec["paths"]["/api/games/{game_id}/actions"]["post"]["requestBody"]
    assert body["required"] is True
    ref = body["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/ActionIn"
    schemas = spec["components"]["schemas"]
    action_in = schemas["ActionIn"]
    assert set(action_in["required"]) == {"version", "op_id", "action"}
    nested = action_in["properties"]["action"]["$ref"].rsplit("/", 1)[1]
    assert "peg" in json.dumps(schemas[nested])


@pytest.mark.timeout(30)
def test_a_signal_handler_that_notifies_inside_a_send_does_not_hang(tmp_path) -> None:
    # SIGTERM's handler sends STOPPING=1 on the main thread; it may run while that thread
    # is inside a send (READY=1 just after the start): that once deadlocked the daemon.
    import signal
    import socket
    import threading

    from firmware_host.notify import Notifier

    path = str(tmp_path / "notify.sock")
    reader = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    reader.bind(path)
    reader.settimeout(2)
    notifier = Notifier(path=path, watchdog_usec="")
    previous = signal.signal(signal.SIGUSR2, lambda *_: notifier.stopping())
    done = threading.Event()

    def ready_while_signalled() -> None:
        class Interrupted(socket.socket):
            signalled = False

            def sendto(self, *args):  # type: ignore[no-untyped-def, override]
                if not self.signalled:
                    self.signalled = True
                    signal.raise_signal(signal.SIGUSR2)  # handled here, inside the lock
                return super().sendto(*args)

        notifier._sock = Interrupted(socket.AF_UNIX, socket.SOCK_DGRAM)
        notifier.ready("starting")
        done.set()

    try:
        # Signal handlers run on the main thread: so does this test's send (a hang here is
        # ended by pytest-timeout).
        ready_while_signalled()
        got = {reader.recv(4096).decode().splitlines()[0] for _ in range(2)}
        assert done.is_set() and got == {"STOPPING=1", "READY=1"}
    finally:
        signal.signal(signal.SIGUSR2, previous)
        notifier.close()
        reader.close()


def test_the_heap_is_settled_once_after_the_start_not_during_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from firmware_host.api import app as app_module

    calls: list[str] = []
    monkeypatch.setattr(app_module, "SETTLE_AFTER_S", 0.05)
    monkeypatch.setattr(app_module, "settle", lambda: calls.append("settle"))
    loopish = SimpleNamespace(bind=lambda loop: None)
    services = SimpleNamespace(hub=loopish, health=loopish, start=lambda: calls.append("start"),
                               stop=lambda: calls.append("stop"))

    async def run(wait: float) -> None:
        async with app_module.lifespan(services)(None):  # type: ignore[arg-type]
            assert calls[-1] == "start"  # started: READY comes before any settling
            await asyncio.sleep(wait)

    asyncio.run(run(0.3))
    assert calls == ["start", "settle", "stop"]
    calls.clear()
    asyncio.run(run(0.0))  # stopped at once: nothing is left scheduled
    assert calls == ["start", "stop"]


def test_a_game_id_that_is_no_number_is_refused_as_fastapi_would(client: Client) -> None:
    r = client.req("POST", "/api/games/abc/actions",
                   {"version": 0, "op_id": "x", "action": {"type": "peg", "side": 0,
                                                           "points": 1}})
    assert r.status_code == 422 and r.json()["problems"][0].startswith("path.game_id:"), r.text
    r = client.req("POST", "/api/games/999999/actions",
                   {"version": 0, "op_id": "x", "action": {"type": "peg", "side": 0,
                                                           "points": 1}})
    assert r.status_code == 404, r.text


def test_the_stream_encodes_each_message_once_for_every_subscriber() -> None:
    from firmware_host.components.events import EventHub

    hub = EventHub()

    async def run() -> tuple[dict, list, list]:  # type: ignore[type-arg]
        hub.bind(asyncio.get_running_loop())
        hub.publish({"type": "game", "game": {"id": 1}})  # nobody listens: only counted
        snap, a = hub.subscribe(lambda: {"game": None})
        _, b = hub.subscribe(lambda: {"game": None})
        hub.publish({"type": "board", "board": {"lines": [91, 61]}, "say": "é"})
        return snap, [a.get_nowait()], [b.get_nowait()]

    snap, (one,), (two,) = asyncio.run(run())
    assert snap["seq"] == 1  # the message before the subscription is in the snapshot's seq
    assert one is two  # the same text object: encoded once
    assert json.loads(one) == {"type": "board", "board": {"lines": [91, 61]}, "say": "é",
                               "seq": 2}
