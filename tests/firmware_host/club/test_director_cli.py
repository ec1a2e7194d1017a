"""`crib club ...` as a user types it: configuration errors name the key, the token is the
director's alone, broker-config writes files a real Mosquitto runs with, and status asks a
table's daemon over real HTTP."""

from __future__ import annotations

import getpass
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.firmware_host.club.broker_helpers import MOSQUITTO
from tests.firmware_host.club.director_helpers import REPO, wait_for
from tests.processes import free_port


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
    ('club = "c"\npassword = "x"\ntables = ["director"]\n', "reserved"),
    ('club = "c"\npassword = "x"\ntiebreaks = ["luck"]\n', "key 'tiebreaks': 'luck'"),
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
    port = free_port()
    out = tmp_path / "crib"
    done = crib("club", "broker-config", "--club", "tuesday", "--tables", "t1,t2", "--dir",
                str(out), "--port", str(port), "--user", getpass.getuser())
    assert done.returncode == 0, done.stderr
    assert f"mosquitto -c {out / 'mosquitto.conf'}" in done.stdout
    assert "sudo crib club install" in done.stdout
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
    for reserved in ("director", "mosquitto", "admin"):
        done = crib("club", "broker-config", "--club", "c", "--tables", f"t1,{reserved}",
                    "--dir", str(tmp_path / "z"))
        assert done.returncode == 2 and "reserved" in done.stderr, done.stderr
        assert not (tmp_path / "z" / "passwords.txt").exists()


def _passwords(directory: Path) -> dict[str, str]:
    return dict(line.split() for line in (directory / "passwords.txt").read_text().splitlines()
                if line and not line.startswith("#"))


def test_adding_a_table_keeps_the_other_tables_passwords(tmp_path: Path) -> None:
    out = tmp_path / "crib"
    assert crib("club", "broker-config", "--club", "c", "--tables", "t1,t2", "--dir",
                str(out)).returncode == 0
    before = _passwords(out)
    again = crib("club", "broker-config", "--club", "c", "--tables", "t1,t2,t3", "--dir",
                 str(out))
    assert again.returncode == 0, again.stderr
    after = _passwords(out)
    assert {k: after[k] for k in before} == before and sorted(after) == [
        "director", "t1", "t2", "t3"]
    assert "kept the passwords of director, t1, t2; new: t3" in again.stdout


def _start(conf: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([MOSQUITTO, "-c", str(conf)], stdout=out,
                                stderr=subprocess.STDOUT)


def _pub_ok(port: int, user: str, password: str) -> bool:
    done = subprocess.run(
        ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(port), "-u", user, "-P", password,
         "-t", f"crib/v1/c/tables/{user}/online", "-m", '{"v":1,"online":true}', "-q", "1"],
        capture_output=True, text=True, timeout=10)
    return done.returncode == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can start a broker that drops to "
                    "the mosquitto user")
def test_user_mosquitto_can_read_what_broker_config_wrote(tmp_path: Path) -> None:
    # The broker is started as root and drops to `mosquitto`: then reads the password file
    # and ACL, and writes its persistence into data/, as that user.
    port = free_port()
    # Not under pytest's tmp_path: its parents are root's alone (0700), as /root is.
    base = Path(tempfile.mkdtemp(prefix="crib-broker-"))
    base.chmod(0o755)
    out = base / "etc-crib"
    done = crib("club", "broker-config", "--club", "c", "--tables", "t1", "--dir", str(out),
                "--port", str(port), "--user", "mosquitto")
    assert done.returncode == 0, done.stderr
    import pwd
    uid = pwd.getpwnam("mosquitto").pw_uid
    for name in ("passwd", "acl", "data"):
        assert (out / name).stat().st_uid == uid, name
    assert stat.S_IMODE((out / "passwd").stat().st_mode) == 0o600
    conf = out / "mosquitto.conf"
    conf.write_text(conf.read_text().replace(f"listener {port}", f"listener {port} 127.0.0.1"))
    broker = _start(conf, port, tmp_path / "broker.log")
    try:
        pw = _passwords(out)
        wait_for("t1 accepted by a broker running as mosquitto",
                 lambda: _pub_ok(port, "t1", pw["t1"]))
        broker.terminate()
        broker.wait(10)
        assert (out / "data" / "mosquitto.db").exists(), (tmp_path / "broker.log").read_text()
    finally:
        if broker.poll() is None:
            broker.terminate()
            broker.wait(10)
        shutil.rmtree(base, ignore_errors=True)


def test_the_debian_include_runs_beside_debians_main_conf() -> None:
    # Debian's /etc/mosquitto/mosquitto.conf, as the package ships it, in a throwaway root
    # that the mosquitto user may enter (a broker started as root drops to it).
    port = free_port()
    base = Path(tempfile.mkdtemp(prefix="crib-debian-"))
    base.chmod(0o755)
    etc = base / "etc-mosquitto"
    (etc / "conf.d").mkdir(parents=True)
    (base / "var").mkdir()
    if os.geteuid() == 0:
        shutil.chown(base / "var", "mosquitto", "mosquitto")
        shutil.chown(base, "mosquitto", "mosquitto")
    main = etc / "mosquitto.conf"
    main.write_text(f"pid_file {base / 'mosquitto.pid'}\npersistence true\n"
                    f"persistence_location {base / 'var'}/\n"
                    f"log_dest file {base / 'mosquitto.log'}\n"
                    f"include_dir {etc / 'conf.d'}\n")
    user = [] if os.geteuid() == 0 else ["--user", getpass.getuser()]
    done = crib("club", "broker-config", "--club", "c", "--tables", "t1,t2", "--dir",
                str(etc / "crib-c"), "--port", str(port), "--debian", "--conf-d",
                str(etc / "conf.d"), *user)
    assert done.returncode == 0, done.stderr
    assert "sudo systemctl restart mosquitto" in done.stdout
    include = etc / "conf.d" / "crib-c.conf"
    text = include.read_text()
    for key in ("persistence_location", "pid_file", "log_dest", "user "):
        assert key not in text, key
    include.write_text(text.replace(f"listener {port}", f"listener {port} 127.0.0.1"))
    broker = _start(main, port, base / "broker.out")
    try:
        pw = _passwords(etc / "crib-c")
        wait_for("Debian's mosquitto with the club's include",
                 lambda: broker.poll() is None and _pub_ok(port, "t1", pw["t1"]))
        assert not _pub_ok(port, "t1", pw["t2"])
    finally:
        broker.terminate()
        broker.wait(10)
        out = (base / "broker.out").read_text()
        shutil.rmtree(base, ignore_errors=True)
    assert "Duplicate" not in out and "Error" not in out, out


DOC = (REPO / "docs" / "club.md").read_text()


def test_the_docs_director_config_is_one_the_director_takes(tmp_path: Path) -> None:
    from firmware_host.club.director.config import load_config

    section = DOC[DOC.index("## 3. The director"):]
    block = section[section.index("```toml") + 7:section.index("```", section.index("```toml") + 7)]
    path = tmp_path / "club.toml"
    path.write_text(block.replace('"…"', '"x"'))
    config = load_config(path)
    assert config.tables[:2] == ["t1", "t2"] and "director" in config.allowed_hosts
    assert config.tiebreaks == ["game_points", "won", "spread"] and config.rounds == 9


def test_the_next_steps_are_the_docs_commands(tmp_path: Path) -> None:
    # Each route's "next:" text names the commands docs/club.md gives for the same step.
    hand = crib("club", "broker-config", "--club", "tuesday", "--tables", "t1", "--dir",
                str(tmp_path / "crib-tuesday"))
    assert hand.returncode == 0, hand.stderr
    assert f"mosquitto -c {tmp_path / 'crib-tuesday'}/mosquitto.conf" in hand.stdout
    assert "mosquitto -c ~/crib-tuesday/mosquitto.conf" in DOC
    user = [] if os.geteuid() == 0 else ["--user", getpass.getuser()]
    debian = crib("club", "broker-config", "--club", "tuesday", "--tables", "t1", "--dir",
                  str(tmp_path / "d"), "--debian", "--conf-d", str(tmp_path), *user)
    assert debian.returncode == 0, debian.stderr
    for words in ("sudo systemctl restart mosquitto", "sudo crib club install"):
        assert words in debian.stdout and words in DOC, words
    assert "--dir /etc/mosquitto/crib-tuesday --debian" in DOC
