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
    broker.add_argument("--tables", required=True,
                        help="table names, comma-separated (run again to add one: the "
                             "others keep their passwords)")
    broker.add_argument("--dir", required=True, metavar="DIR", help="where to write them")
    broker.add_argument("--port", type=int, default=1883, help="the broker's port (1883)")
    broker.add_argument("--user", help="who a broker started as root runs as: the files "
                                       "become theirs (mosquitto)")
    broker.add_argument("--debian", action="store_true",
                        help="for Debian's mosquitto service: an include in --conf-d, the "
                             "files the mosquitto user's")
    broker.add_argument("--conf-d", metavar="DIR", default="/etc/mosquitto/conf.d",
                        help="Debian's include directory (/etc/mosquitto/conf.d)")
    broker.set_defaults(func=cmd_broker_config)
    install = csub.add_parser("install", help="install and start the director's service "
                                              "(systemd, with its watchdog)")
    install.add_argument("--config", metavar="PATH", default="/etc/cribbage-table/club.toml",
                         help="the director's TOML (/etc/cribbage-table/club.toml)")
    install.add_argument("--unit-dir", metavar="DIR", default="/etc/systemd/system",
                         help="where the unit goes (/etc/systemd/system)")
    install.add_argument("--user", default="cribbage", help="the service's user (cribbage)")
    install.add_argument("--no-start", action="store_true",
                         help="write the unit only (no systemctl)")
    install.set_defaults(func=cmd_install)
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
    from firmware_host.club.broker import (
        BrokerConfigError,
        read_passwords,
        write_config,
        write_passwords,
    )
    from firmware_host.clubwire import DIRECTOR_USER, check_slug

    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    if not tables:
        return fail(args, "--tables: name at least one table (t1,t2,...)")
    if len(set(tables)) != len(tables):
        return fail(args, "--tables: a table is named twice")
    for table in tables:
        try:
            check_slug("table", table)
        except ValueError as exc:
            return fail(args, f"--tables: {exc}")
    if not 1 <= args.port <= 65535:
        return fail(args, f"--port {args.port}: use 1-65535")
    directory = Path(args.dir)
    user = "mosquitto" if args.debian and not args.user else args.user
    try:
        kept = read_passwords(directory)
    except BrokerConfigError as exc:
        return fail(args, exc)
    passwords = {DIRECTOR_USER: kept.get(DIRECTOR_USER) or secrets.token_urlsafe(18)}
    passwords |= {t: kept.get(t) or secrets.token_urlsafe(18) for t in tables}
    try:
        conf = write_config(directory, args.club, passwords, port=args.port, user=user,
                            include=args.debian)
        listing = write_passwords(directory, args.club, passwords)
    except BrokerConfigError as exc:
        return fail(args, exc)
    except OSError as exc:
        return fail(args, f"--dir {directory}: {exc.strerror}")
    new = [t for t in tables if t not in kept]
    same = [t for t in tables if t in kept]
    gone = sorted(set(kept) - set(passwords))
    print(f"wrote {conf}, {directory / 'acl'}, {directory / 'passwd'} and {listing} (0600)")
    if kept:
        print(f"kept the passwords of {', '.join([DIRECTOR_USER, *same])}"
              + (f"; new: {', '.join(new)}" if new else "")
              + (f"; removed: {', '.join(gone)}" if gone else ""))
    if args.debian:
        include = Path(args.conf_d) / f"crib-{args.club}.conf"
        try:
            include.write_text(conf.read_text())
        except OSError as exc:
            return fail(args, f"--conf-d {args.conf_d}: {exc.strerror} (run it with sudo)")
        print(f"wrote {include} (an include beside Debian's /etc/mosquitto/mosquitto.conf)")
    print("next:")
    print("  1. start the broker:", NEXT_BROKER_DEBIAN if args.debian else
          NEXT_BROKER.format(conf=conf))
    print(f"  2. the director's {DIRECTOR_TOML}: club = \"{args.club}\", port = {args.port}, "
          f"password = the 'director' line of {listing}; then: sudo crib club install")
    print("  3. each table's config.toml [club]: broker = this machine, club = "
          f"\"{args.club}\", table = its name, password = its line of {listing.name}")
    return 0


NEXT_BROKER = "mosquitto -c {conf}"
NEXT_BROKER_DEBIAN = "sudo systemctl restart mosquitto"
DIRECTOR_TOML = "/etc/cribbage-table/club.toml"


def cmd_install(args: argparse.Namespace) -> int:
    from firmware_host.club.director.unit import UnitError, install

    try:
        for line in install(Path(args.config), Path(args.unit_dir), user=args.user,
                            start=not args.no_start):
            print(line)
    except UnitError as exc:
        return fail(args, exc)
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
    # As for `crib serve`: the environment overrides the file.
    host = os.environ.get("CRIB_HOST") or host
    if os.environ.get("CRIB_PORT"):
        text = os.environ["CRIB_PORT"]
        if not text.isdigit() or not 1 <= int(text) <= 65535:
            fail(args, f"environment CRIB_PORT: {text!r} is not a port")
            return None
        port = int(text)
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
