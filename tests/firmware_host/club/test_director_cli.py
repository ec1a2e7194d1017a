"""`crib club ...` as a user types it: configuration errors name the key, the token is the
director's alone, broker-config writes files a real Mosquitto runs with, and status asks a
table's daemon over real HTTP."""

from __future__ import annotations

import getpass
import json
import os
import stat
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.firmware_host.club.broker_helpers import MOSQUITTO, _free_port
from tests.firmware_host.club.director_helpers import REPO, wait_for


def crib(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware_host", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("text, words", [
    ('club = "c"\npassword = "x"\nprot = 1\n', "key 'prot': not a setting"),
    ('club = "c"\npassword = "x"\nport = "many"\n', "key 'port'"),
    ('club = "Tuesday Club"\npassword = "x"\n', "key 'club'"),
    ('password = "x"\n', "key 'club': missing"),
    ('club = "c"\npassword = "x"\ntables = ["t1", "t1"]\n', "key 'tables'"),
    ('club = "c" = 2\n', "not TOML"),
])
def test_serve_names_the_bad_key(tmp_path: Path, text: str, words: str) -> None:
    cfg = tmp_path / "club.toml"
    cfg.write_text(text)
    done = crib("club", "serve", "--config", str(cfg))
    assert done.returncode == 2
    assert done.stderr.startswith(f"crib club serve: config {cfg}: "), done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_serve_without_a_password_or_the_file_says_so(tmp_path: Path) -> None:
    cfg = tmp_path / "club.toml"
    cfg.write_text(f'club = "c"\nstate_dir = "{tmp_path / "s"}"\n')
    done = crib("club", "serve", "--config", str(cfg))
    assert done.returncode == 2 and "password" in done.stderr, done.stderr
    missing = crib("club", "serve", "--config", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_token_is_made_once_and_kept_private(tmp_path: Path) -> None:
    cfg = tmp_path / "club.toml"
    cfg.write_text(f'club = "c"\npassword = "x"\nstate_dir = "{tmp_path / "state"}"\n')
    first = crib("club", "token", "--config", str(cfg))
    assert first.returncode == 0, first.stderr
    token = first.stdout.strip()
    assert len(token) >= 40
    assert crib("club", "token", "--config", str(cfg)).stdout.strip() == token
    path = tmp_path / "state" / "director-token"
    assert path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_broker_config_writes_what_a_real_mosquitto_runs_with(tmp_path: Path) -> None:
    port = _free_port()
    out = tmp_path / "crib"
    done = crib("club", "broker-config", "--club", "tuesday", "--tables", "t1,t2", "--dir",
                str(out), "--port", str(port), "--user", getpass.getuser())
    assert done.returncode == 0, done.stderr
    assert f"mosquitto -c {out / 'mosquitto.conf'}" in done.stdout
    listing = out / "passwords.txt"
    assert stat.S_IMODE(listing.stat().st_mode) == 0o600
    passwords = dict(line.split() for line in listing.read_text().splitlines()
                     if line and not line.startswith("#"))
    assert sorted(passwords) == ["director", "t1", "t2"]
    assert len(set(passwords.values())) == 3 and all(len(p) >= 20 for p in passwords.values())
    assert not any(p in (out / "passwd").read_text() for p in passwords.values())  # hashed
    conf = (out / "mosquitto.conf").read_text()
    conf = conf.replace(f"listener {port}", f"listener {port} 127.0.0.1")
    (out / "mosquitto.conf").write_text(conf)
    broker = subprocess.Popen([MOSQUITTO, "-c", str(out / "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def pub(user: str, password: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-u", user, "-P",
                 password, "-t", "crib/v1/tuesday/tables/t1/online", "-m", '{"v":1}',
                 "-q", "1"], capture_output=True, text=True, timeout=10)

        wait_for("the broker accepts t1", lambda: pub("t1", passwords["t1"]).returncode == 0)
        assert pub("t1", passwords["t2"]).returncode != 0
    finally:
        broker.terminate()
        broker.wait(10)


def test_broker_config_refuses_a_bad_name(tmp_path: Path) -> None:
    done = crib("club", "broker-config", "--club", "Tuesday Night", "--tables", "t1",
                "--dir", str(tmp_path / "x"))
    assert done.returncode == 2
    assert done.stderr.startswith("crib club broker-config: club 'Tuesday Night'")
    twice = crib("club", "broker-config", "--club", "c", "--tables", "t1,t1", "--dir",
                 str(tmp_path / "y"))
    assert twice.returncode == 2 and "twice" in twice.stderr
    assert not (tmp_path / "y" / "passwords.txt").exists()


class _Table(BaseHTTPRequestHandler):
    """A table daemon's GET /api/club as the club design describes it."""

    answer: dict[str, object] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = json.dumps(self.answer).encode() if self.path == "/api/club" else b"{}"
        self.send_response(200 if self.path == "/api/club" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_status_prints_the_tables_club_line(tmp_path: Path) -> None:
    _Table.answer = {"enabled": True, "connected": False, "waiting": 2,
                     "line": "club: offline, 2 results waiting",
                     "seating": {"v": 1, "night": "n", "round": 3, "table": "t1",
                                 "names": ["Ann", "Bob"], "target": 121,
                                 "variant": "six-card", "skunk": "skunk", "muggins": False}}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Table)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        cfg = tmp_path / "config.toml"
        cfg.write_text(f'host = "0.0.0.0"\nport = {server.server_address[1]}\n'
                       '[club]\nbroker = "club-pi.local"\n')
        done = crib("club", "status", "--config", str(cfg))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["club: offline, 2 results waiting",
                                            "seated: round 3: Ann v Bob"]
    finally:
        server.shutdown()
        server.server_close()
    down = crib("club", "status", "--config", str(cfg))
    assert down.returncode == 1
    assert down.stderr.startswith("crib club status: the table's daemon does not answer at "
                                  f"127.0.0.1:{server.server_address[1]}")
