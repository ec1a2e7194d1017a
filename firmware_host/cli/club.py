"""`crib club serve|token|broker-config|status`: the club night's director, its broker's
configuration, and a table's view of the club."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

from firmware_host.cli import fail


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `club` and its actions to the `crib` parser."""
    club = sub.add_parser("club", help="club night: the director, its broker, a table's link")
    csub = club.add_subparsers(dest="club_command", metavar="ACTION")
    csub.required = True
    serve = csub.add_parser("serve", help="run the director (standings page, results intake)")
    serve.add_argument("--config", metavar="PATH",
                       help="the director's TOML (default /etc/cribbage-table/club.toml)")
    serve.set_defaults(func=cmd_serve)
    token = csub.add_parser("token", help="print the director's token (made if there is none)")
    token.add_argument("--config", metavar="PATH",
                       help="the director's TOML (default /etc/cribbage-table/club.toml)")
    token.set_defaults(func=cmd_token)
    broker = csub.add_parser("broker-config",
                             help="write Mosquitto's files for a club: a user per table, ACL")
    broker.add_argument("--club", required=True, help="the club's name (a slug)")
    broker.add_argument("--tables", required=True, help="table names, comma-separated")
    broker.add_argument("--dir", required=True, metavar="DIR", help="where to write them")
    broker.add_argument("--port", type=int, default=1883, help="the broker's port (1883)")
    broker.add_argument("--user", help="who a broker started as root runs as (mosquitto)")
    broker.set_defaults(func=cmd_broker_config)
    status = csub.add_parser("status", help="this table's club link, as its daemon says")
    status.add_argument("--config", metavar="PATH",
                        help="the table's TOML (or CRIB_CONFIG; default the installed one)")
    status.set_defaults(func=cmd_status)


def _config(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from firmware_host.club.director.config import DirectorConfigError, load_config

    try:
        return load_config(args.config)
    except DirectorConfigError as exc:
        fail(args, exc)
        return None


def cmd_serve(args: argparse.Namespace) -> int:
    from firmware_host.club.director.config import DirectorConfigError

    config = _config(args)
    if config is None:
        return 2
    try:
        config.broker_password()  # before anything is started: one line, not a traceback
    except DirectorConfigError as exc:
        return fail(args, exc)
    from firmware_host.club.director.serve import ServeError, serve
    from firmware_host.club.director.store import StoreError
    from firmware_host.errors import DaemonError

    try:
        return serve(config)
    except (DirectorConfigError, ServeError, StoreError, DaemonError) as exc:
        return fail(args, exc)


def cmd_token(args: argparse.Namespace) -> int:
    from firmware_host.club.director.token import ensure_token, token_path

    config = _config(args)
    if config is None:
        return 2
    try:
        print(ensure_token(config.state_dir))
    except OSError as exc:
        return fail(args, f"{token_path(config.state_dir)}: {exc.strerror} (run it as the "
                    "director's service user, or with sudo)")
    return 0


def cmd_broker_config(args: argparse.Namespace) -> int:
    from firmware_host.club.broker import BrokerConfigError, write_config
    from firmware_host.club.schema import DIRECTOR_USER

    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    if not tables:
        return fail(args, "--tables: name at least one table (t1,t2,...)")
    if len(set(tables)) != len(tables):
        return fail(args, "--tables: a table is named twice")
    if not 1 <= args.port <= 65535:
        return fail(args, f"--port {args.port}: use 1-65535")
    directory = Path(args.dir)
    passwords = {DIRECTOR_USER: secrets.token_urlsafe(18)}
    passwords |= {t: secrets.token_urlsafe(18) for t in tables}
    try:
        conf = write_config(directory, args.club, passwords, port=args.port, user=args.user)
    except BrokerConfigError as exc:
        return fail(args, exc)
    except OSError as exc:
        return fail(args, f"--dir {directory}: {exc.strerror}")
    listing = directory / "passwords.txt"
    fd = os.open(listing, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(f"# club {args.club}: broker users and passwords (keep this file private)\n")
        for user, password in passwords.items():
            fh.write(f"{user} {password}\n")
    os.chmod(listing, 0o600)
    print(f"wrote {conf}, {directory / 'acl'}, {directory / 'passwd'} and {listing} (0600)")
    print("next:")
    print(f"  1. run the broker with it: mosquitto -c {conf}")
    print(f"     or with Debian's service: sudo cp {conf} /etc/mosquitto/conf.d/"
          f"crib-{args.club}.conf && sudo systemctl restart mosquitto")
    print("     (a broker started as root reads the password file as its user: "
          "add --user mosquitto)")
    print(f"  2. the director's /etc/cribbage-table/club.toml: club = \"{args.club}\", "
          f"port = {args.port}, password = the 'director' line of {listing.name}")
    print("  3. each table's config.toml [club]: broker = this machine, club = "
          f"\"{args.club}\", table = its name, password = its line of {listing.name}")
    return 0


def _table_address(args: argparse.Namespace) -> tuple[str, int] | None:
    """The host and port of the table's daemon from its TOML (only those two keys)."""
    from firmware_host.cli.daemon import installed_config

    path = Path(args.config) if args.config else (
        Path(os.environ["CRIB_CONFIG"]) if os.environ.get("CRIB_CONFIG") else installed_config())
    host, port = "127.0.0.1", 8080
    if path is not None:
        try:
            with path.open("rb") as fh:
                raw = tomllib.load(fh)
        except FileNotFoundError:
            if args.config:
                fail(args, f"config {path}: no such file")
                return None
            raw = {}
        except (OSError, tomllib.TOMLDecodeError) as exc:
            fail(args, f"config {path}: cannot read it ({exc})")
            return None
        host = str(raw.get("host", "127.0.0.1"))
        port = raw.get("port", 8080)
        if not isinstance(port, int) or not 1 <= port <= 65535:
            fail(args, f"config {path}: key 'port': {port!r} is not a port")
            return None
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return host, port


def cmd_status(args: argparse.Namespace) -> int:
    where = _table_address(args)
    if where is None:
        return 2
    host, port = where
    url = f"http://{'[' + host + ']' if ':' in host else host}:{port}/api/club"
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            body = json.loads(reply.read(64 * 1024))
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return fail(args, f"the table's daemon at {host}:{port} has no club link "
                        "(an older version?)", 1)
        return fail(args, f"the table's daemon at {host}:{port} answered {exc.code}", 1)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return fail(args, f"the table's daemon does not answer at {host}:{port} ({reason}): "
                    "is `crib serve` running?", 1)
    line = body.get("line") if isinstance(body, dict) else None
    if not isinstance(line, str):
        return fail(args, f"the table's daemon at {host}:{port} sent no club line", 1)
    print(line)
    seating = body.get("seating")
    if isinstance(seating, dict) and seating.get("names"):
        print(f"seated: round {seating.get('round')}: {' v '.join(map(str, seating['names']))}")
    sys.stdout.flush()
    return 0
