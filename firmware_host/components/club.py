"""The table's link to its club: live state and results out, the director's seating in.

The table's own store is the source of every result: its results table is written in the
same commit as the winning action. This component keeps an outbox beside it
(`club.sqlite3`): every revision of each result (id, revision, payload), and whether the
director has counted it. Every revision is sent, in order, because the director takes a
known result's revisions only one up at a time. Whatever the store holds and the outbox
lacks is added at start and after each step that wins or takes back a game, so a daemon
killed between the two loses nothing. A result is sent (QoS 1) on every connection and
again while the director's `counted` does not list it; the table plays on exactly as
alone while no broker answers.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware_host import clubwire as schema
from firmware_host.bus import ActionCommitted, EventBus, GameStarted
from firmware_host.errors import ClubError

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

    from firmware_host.components.games import GameEntry, GameService
    from firmware_host.config import ClubSettings
    from firmware_host.store import Store

log = logging.getLogger("crib.club")

STATE_EVERY_S = 0.1  # live state: at most ten messages a second, the latest always sent
RESEND_AFTER_S = 20.0  # a waiting result is sent again after this, while connected
KEEPALIVE_S = 15  # a broker gone quiet is noticed within about 1.5 times this

OUTBOX = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS revisions (
    id TEXT NOT NULL, rev INTEGER NOT NULL, payload TEXT NOT NULL,
    counted INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (id, rev)
);
CREATE TABLE IF NOT EXISTS seated (
    game_id INTEGER PRIMARY KEY, night TEXT NOT NULL, round INTEGER NOT NULL
);
"""


class Outbox:
    """The club's own SQLite file: results to send, games started from a seating, the
    latest seating. Thread-safe (one connection, one lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def open(self) -> None:
        """Open (create) the file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(OUTBOX)
        old = self._db.execute("SELECT name FROM sqlite_master WHERE name = 'outbox'").fetchall()
        if old:  # the outbox of an earlier version kept one revision per result
            self._db.executescript(
                "BEGIN; INSERT OR IGNORE INTO revisions (id, rev, payload, counted) "
                "SELECT id, rev, payload, counted FROM outbox; DROP TABLE outbox; COMMIT;")

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        assert self._db is not None, "the outbox is not open"
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def meta(self, key: str, make: Any = None) -> str | None:
        """A kept value; `make()` makes and keeps it when there is none."""
        rows = self._run("SELECT value FROM meta WHERE key = ?", (key,))
        if rows:
            return str(rows[0][0])
        if make is None:
            return None
        value = str(make())
        self._run("INSERT OR IGNORE INTO meta VALUES (?, ?)", (key, value))
        return self.meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self._run("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def rows(self) -> dict[str, tuple[int, schema.GameResult, bool]]:
        """Every result kept at its newest revision: id -> (rev, payload, counted)."""
        return {r[0]: (r[1], schema.GameResult.model_validate_json(r[2]), bool(r[3]))
                for r in self._run("SELECT id, rev, payload, counted FROM revisions r "
                                   "WHERE rev = (SELECT MAX(rev) FROM revisions WHERE id = r.id)")}

    def put(self, result: schema.GameResult) -> None:
        """Keep a result's new revision, not yet counted."""
        self._run("INSERT OR REPLACE INTO revisions (id, rev, payload, counted) "
                  "VALUES (?, ?, ?, 0)", (result.id, result.rev, result.model_dump_json()))

    def mark_counted(self, keys: set[str]) -> int:
        """Mark counted the revisions named "{id}@{rev}" in `keys`, and the earlier ones of
        the same result; returns how many changed."""
        changed = 0
        waiting = self._run("SELECT id, rev FROM revisions WHERE counted = 0")
        top: dict[str, int] = {}
        for key in keys:
            rid, _, rev = key.rpartition("@")
            if rev.isdigit():
                top[rid] = max(top.get(rid, -1), int(rev))
        for rid, rev in waiting:
            if rev <= top.get(rid, -1):
                self._run("UPDATE revisions SET counted = 1 WHERE id = ? AND rev = ?",
                          (rid, rev))
                changed += 1
        return changed

    def waiting(self) -> list[schema.GameResult]:
        """Revisions the director has not counted, oldest first."""
        rows = self._run("SELECT payload FROM revisions WHERE counted = 0 ORDER BY rowid")
        return [schema.GameResult.model_validate_json(r[0]) for r in rows]

    def waiting_results(self) -> int:
        """How many results have a revision the director has not counted."""
        return int(self._run("SELECT COUNT(DISTINCT id) FROM revisions WHERE counted = 0")[0][0])

    def seat(self, game_id: int, night: str, round_: int) -> None:
        self._run("INSERT OR REPLACE INTO seated VALUES (?, ?, ?)", (game_id, night, round_))

    def seated(self, game_id: int) -> tuple[str, int] | None:
        rows = self._run("SELECT night, round FROM seated WHERE game_id = ?", (game_id,))
        return (str(rows[0][0]), int(rows[0][1])) if rows else None


class ClubLink:
    """The daemon's club component: off (nothing runs) unless `[club] broker` is set."""

    def __init__(self, settings: ClubSettings, state_dir: Path, store: Store,
                 games: GameService, bus: EventBus) -> None:
        self.settings = settings
        self.store = store
        self.games = games
        self.outbox = Outbox(state_dir / "club.sqlite3")
        self.client: mqtt.Client | None = None
        self.connected = False
        self.seating: schema.Seating | None = None
        self._instance = ""
        self._since = 0.0
        self._sent_at: dict[str, float] = {}  # "{id}@{rev}" -> when last sent
        self._sync_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._state_at = 0.0
        self._state_timer: threading.Timer | None = None
        self._resend_timer: threading.Timer | None = None
        if settings.enabled:
            bus.register_event_handler(GameStarted, self._started)
            bus.register_event_handler(ActionCommitted, self._committed)

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Open the outbox, add what the store holds, connect in the background (a broker
        that is down never holds the daemon up)."""
        if not self.enabled:
            return
        import paho.mqtt.client as mqtt

        self.outbox.open()
        self._instance = self.outbox.meta("instance", lambda: secrets.token_hex(4)) or ""
        self._since = float(self.outbox.meta("since", time.time) or 0)
        kept = self.outbox.meta("seating")
        if kept:
            self.seating = schema.Seating.model_validate_json(kept)
        self.sync()
        s = self.settings
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             # the client id is the user's: the club's broker ties them
                             client_id=s.table, protocol=mqtt.MQTTv311)
        client.username_pw_set(s.table, s.secret())
        if s.tls:
            client.tls_set(ca_certs=str(s.ca_file) if s.ca_file else None)
        client.will_set(self._topic("online"), schema.encode(schema.Online(online=False)),
                        qos=1, retain=True)
        client.reconnect_delay_set(1, 30)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.connect_async(s.broker, s.broker_port, keepalive=KEEPALIVE_S)
        client.loop_start()
        self.client = client
        log.info("club %s, table %s: connecting to %s:%d", s.club, s.table, s.broker,
                 s.broker_port)

    def stop(self) -> None:
        """Say offline, disconnect, close the outbox."""
        for timer in (self._state_timer, self._resend_timer):
            if timer is not None:
                timer.cancel()
        client, self.client = self.client, None
        if client is not None:
            if self.connected:
                info = client.publish(self._topic("online"),
                                      schema.encode(schema.Online(online=False)), 1, True)
                info.wait_for_publish(1)
            client.disconnect()
            client.loop_stop()
        self.connected = False
        if self.enabled:
            self.outbox.close()

    # -- what the page and health say ---------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What GET /api/club answers: on or off, connected, results waiting, the line."""
        if not self.enabled:
            return {"enabled": False, "connected": False, "waiting": 0, "line": "club: off",
                    "seating": None}
        waiting = self.outbox.waiting_results()
        return {"enabled": True, "connected": self.connected, "waiting": waiting,
                "line": self.line(waiting),
                "seating": self.seating.model_dump() if self.seating else None}

    def line(self, waiting: int | None = None) -> str:
        """"club: offline, 2 results waiting" or "club: tuesday · table t1 · connected"."""
        if not self.enabled:
            return "club: off"
        n = self.outbox.waiting_results() if waiting is None else waiting
        results = f"{n} result{'' if n == 1 else 's'} waiting"
        if not self.connected:
            return f"club: offline, {results}" if n else "club: offline"
        s = self.settings
        return f"club: {s.club} · table {s.table} · connected" + (f", {results}" if n else "")

    # -- starting the seated game -------------------------------------------------------------
    def start_seated(self, defaults: dict[str, Any]) -> GameEntry:
        """Start the game the director seated here; raises ClubError when there is none."""
        seat = self.seating
        if not self.enabled:
            raise ClubError("this table is not in a club (no [club] broker in its settings)")
        if seat is None or len(seat.names) < 2:
            raise ClubError("the director has not seated anyone at this table yet"
                            if seat is None else
                            f"nobody plays at table {seat.table} in round {seat.round}")
        params = {**defaults, "variant": seat.variant, "names": list(seat.names),
                  "target": seat.target, "skunk": seat.skunk, "muggins": seat.muggins,
                  "dealer": None}
        entry = self.games.create(params)
        self.outbox.seat(entry.id, seat.night, seat.round)
        self._publish_state()
        return entry

    # -- results --------------------------------------------------------------------------
    def sync(self) -> None:
        """Bring the outbox level with the store's results: new ones at rev 0, a win taken
        back as void (rev + 1), won again (rev + 1). Then send what waits."""
        if not self.enabled:
            return
        with self._sync_lock:
            kept = self.outbox.rows()
            seen: set[str] = set()
            for row in self.store.results():
                if row["finished_at"] < self._since:
                    continue
                try:
                    result = self._result(row)
                except ValueError as exc:  # pydantic's: a result the wire would refuse
                    log.error("club: game %s's result cannot be sent: %s", row["game_id"], exc)
                    continue
                if result is None:
                    continue
                seen.add(result.id)
                old = kept.get(result.id)
                if old is None:
                    self.outbox.put(result)
                elif old[1].void or _shape(old[1]) != _shape(result):
                    self.outbox.put(result.model_copy(update={"rev": old[0] + 1}))
            for rid, (rev, payload, _) in kept.items():
                if rid not in seen and not payload.void:
                    self.outbox.put(payload.model_copy(update={"rev": rev + 1, "void": True}))
        self.send_waiting()

    def _result(self, row: dict[str, Any]) -> schema.GameResult | None:
        res, players = row["result"], row["players"]
        sides: dict[int, list[str]] = {}
        for p in players:
            sides.setdefault(int(p["side"]), []).append(p["name"])
        if len(sides) < 2 or len(sides) > 3:
            return None
        scores = res["scores"]
        try:
            rules = self.games.entry(row["game_id"]).game.rules
            target, skunk = rules.target, rules.skunk.value
        except Exception:  # a game the store no longer loads: what its result says
            target, skunk = max(scores), "skunk"
        seated = self.outbox.seated(row["game_id"])
        return schema.GameResult(
            id=f"{self.settings.table}.{self._instance}.{row['game_id']}.{row['match_game']}",
            table=self.settings.table, night=seated[0] if seated else None,
            round=seated[1] if seated else None,
            sides=[schema.Side(names=sides[i], score=scores[i]) for i in sorted(sides)],
            winner=res["winner"], kind=res["kind"], target=target, skunk=skunk,
            variant=row.get("variant") or "six-card", finished_at=row["finished_at"])

    def send_waiting(self, *, older_than: float = 0.0) -> None:
        """Send every result the director has not counted (those sent in the last
        `older_than` seconds excepted)."""
        client = self.client
        if client is None or not self.connected:
            return
        now = time.monotonic()
        for result in self.outbox.waiting():
            key = result.counted_key()
            if now - self._sent_at.get(key, -1e9) < older_than:
                continue
            self._sent_at[key] = now
            client.publish(self._topic("results"), schema.encode(result), qos=1)

    # -- the bus --------------------------------------------------------------------------
    def _started(self, event: GameStarted) -> None:
        self._publish_state()

    def _committed(self, event: ActionCommitted) -> None:
        from cribbage.game.events import GameWon, Redone, Undone

        if any(isinstance(e, GameWon | Undone | Redone) for e in event.events):
            self.sync()
        if event.current:
            self._publish_state()

    # -- live state -----------------------------------------------------------------------
    def _publish_state(self) -> None:
        """Send the live state now, or when the last one is STATE_EVERY_S old."""
        with self._state_lock:
            wait = self._state_at + STATE_EVERY_S - time.monotonic()
            if wait > 0:
                if self._state_timer is None:
                    self._state_timer = threading.Timer(wait, self._send_state)
                    self._state_timer.daemon = True
                    self._state_timer.start()
                return
        self._send_state()

    def _send_state(self) -> None:
        with self._state_lock:
            self._state_timer = None
            self._state_at = time.monotonic()
        client = self.client
        if client is None or not self.connected:
            return
        try:
            payload = self.state()
        except Exception:
            log.exception("club: the live state could not be made")
            return
        client.publish(self._topic("state"), schema.encode(payload), qos=0, retain=True)

    def state(self) -> schema.TableState:
        """The table's live state: the current game as the board shows it."""
        entry = self.games.current()
        seated = self.outbox.seated(entry.id) if entry is not None else None
        game = None
        if entry is not None:
            k = entry.game
            pegs = k.pegs
            dealer = k.dealer
            game = schema.LiveGame(
                id=entry.id, variant=str(entry.params.get("variant", "six-card"))[:32],
                target=k.target,
                sides=[schema.Side(names=[k.names[p] for p in members][:2],
                                   score=pegs[i].front, back=pegs[i].back)
                       for i, members in enumerate(k.sides)],
                dealer=k.names[dealer] if dealer is not None else None,
                hand=k.hand_number, phase=str(getattr(k.phase, "value", k.phase))[:32],
                winner=k.result.winner if k.result is not None else None)
        return schema.TableState(table=self.settings.table, game=game,
                                 round=seated[1] if seated else None, at=time.time())

    # -- MQTT -----------------------------------------------------------------------------
    def _topic(self, leaf: str) -> str:
        return schema.table_topic(self.settings.club, self.settings.table, leaf)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any = None) -> None:
        if reason.is_failure:
            log.warning("club: the broker refused table %s: %s", self.settings.table, reason)
            return
        self.connected = True
        log.info("club: connected to %s", self.settings.broker)
        client.subscribe([(self._topic("seating"), 1), (self._topic("counted"), 1)])
        client.publish(self._topic("online"), schema.encode(schema.Online(online=True)), 1, True)
        self._sent_at.clear()
        self.send_waiting()
        self._send_state()
        if self.settings.homeassistant:
            self._discovery(client)
        self._arm_resend()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any = None) -> None:
        if self.connected:
            log.warning("club: lost the broker (%s); playing on, results kept", reason)
        self.connected = False

    def _arm_resend(self) -> None:
        if self._resend_timer is not None:
            self._resend_timer.cancel()
        if self.client is None:
            return

        def tick() -> None:
            self.send_waiting(older_than=RESEND_AFTER_S)
            self._arm_resend()

        self._resend_timer = threading.Timer(RESEND_AFTER_S, tick)
        self._resend_timer.daemon = True
        self._resend_timer.start()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: Any) -> None:
        leaf = message.topic.rsplit("/", 1)[-1]
        try:
            if leaf == "seating":
                if not message.payload:
                    self.seating = None
                    return
                seating = schema.decode(schema.Seating, message.payload)
                if seating.table != self.settings.table:
                    raise schema.PayloadError(f"Seating: for table {seating.table!r}, this is "
                                              f"{self.settings.table!r}")
                self.outbox.set_meta("seating", seating.model_dump_json())
                self.seating = seating
                log.info("club: round %d seats %s here", seating.round,
                         " v ".join(seating.names) or "nobody")
            elif leaf == "counted":
                counted = schema.decode(schema.Counted, message.payload)
                if self.outbox.mark_counted(set(counted.ids)):
                    self.send_waiting(older_than=RESEND_AFTER_S)
            else:
                raise schema.PayloadError(f"unexpected topic {message.topic!r}")
        except schema.PayloadError as exc:
            log.warning("club: refused a message on %s: %s", message.topic, exc)
        except Exception:
            log.exception("club: a message on %s failed", message.topic)

    def _discovery(self, client: mqtt.Client) -> None:
        """Home Assistant's MQTT discovery: one sensor per side's score."""
        s = self.settings
        device = {"identifiers": [f"crib-{s.club}-{s.table}"], "name": f"Cribbage {s.table}",
                  "manufacturer": "cribbage-table"}
        for i in range(2):
            side = f"value_json.game.sides[{i}]"
            config = {
                "name": f"Side {i + 1} score",
                "unique_id": f"crib_{s.club}_{s.table}_score_{i}",
                "state_topic": self._topic("state"),
                "value_template": f"{{{{ {side}.score if value_json.game else 0 }}}}",
                "json_attributes_topic": self._topic("state"),
                "json_attributes_template": f"{{{{ {{'names': {side}.names}} | tojson "
                                            "if value_json.game else '{}' }}",
                "availability_topic": self._topic("online"),
                "availability_template": "{{ 'online' if value_json.online else 'offline' }}",
                "device": device,
            }
            client.publish(f"homeassistant/sensor/{s.table}/score_{i}/config",
                           json.dumps(config).encode(), qos=1, retain=True)


def _shape(result: schema.GameResult) -> tuple[Any, ...]:
    """What a revision changes: the sides, the winner, the kind, the seating."""
    return (tuple((tuple(s.names), s.score) for s in result.sides), result.winner,
            result.kind, result.night, result.round)
