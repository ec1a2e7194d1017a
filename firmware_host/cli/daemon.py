"""`crib serve` and `crib token create|list|revoke`."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_host.cli import fail, until_stopped
from firmware_host.errors import DaemonError

if TYPE_CHECKING:
    from firmware_host.auth import Tokens
    from firmware_host.config import Settings


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add `serve` and `token` to the `crib` parser."""
    serve = sub.add_parser("serve", help="run the daemon (web API, page, devices)")
    serve.add_argument("--simulate", action="store_true", help="simulate every device")
    serve.add_argument("--config", metavar="PATH", help="TOML configuration (or CRIB_CONFIG)")
    serve.add_argument("--host", help="address to bind (default from the configuration; "
                       "off a Pi with no real device, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on")
    serve.set_defaults(func=cmd_serve)

    token = sub.add_parser("token", help="operator tokens for phones (run on the Pi)")
    tsub = token.add_subparsers(dest="token_command", metavar="ACTION")
    tsub.required = True
    create = tsub.add_parser("create", help="create a token and print it")
    create.add_argument("name")
    create.add_argument("--replace", action="store_true",
                        help="replace the token of that name (the phone using it is logged out)")
    create.set_defaults(func=cmd_token_create)
    lst = tsub.add_parser("list", help="list the tokens: name, when made, when last used")
    lst.set_defaults(func=cmd_token_list)
    revoke = tsub.add_parser("revoke", help="revoke a token by name")
    revoke.add_argument("name")
    revoke.set_defaults(func=cmd_token_revoke)
    for p in (create, lst, revoke):
        p.add_argument("--config", metavar="PATH", help="TOML configuration (or CRIB_CONFIG)")


def _settings(args: argparse.Namespace, **overrides: object) -> Settings | None:
    # Imported here: pydantic costs ~0.1 s, which `crib score` and the other commands skip.
    from firmware_host.config import load_settings

    try:
        return load_settings(getattr(args, "config", None), **overrides)
    except DaemonError as exc:
        fail(args, exc)
        return None


def cmd_serve(args: argparse.Namespace) -> int:
    from firmware_host.app_main import serve

    settings = _settings(args, host=args.host, port=args.port,
                         simulate=True if args.simulate else None)
    if settings is None:
        return 2
    settings = listen_address(settings)
    # Ctrl-C and SIGTERM stop a start-up too, whatever was inherited; once running, uvicorn
    # installs its own handlers for both and puts these back when it ends.
    with until_stopped():
        try:
            return serve(settings)
        except DaemonError as exc:
            fail(args, exc)
            return 2


def listen_address(settings: Settings, on_pi: bool | None = None) -> Settings:
    """The settings to serve with: off a Pi, with every device simulated or absent (by
    --simulate, or because "auto" means simulated there), listen on 127.0.0.1 unless an
    address was given (option, environment or file), so neither `make run` nor a bare
    `crib serve` opens a laptop's page to the whole network; on the Pi, or with a real device
    configured, the configured address."""
    from firmware_host.config import BoardMode, DeviceMode, on_raspberry_pi

    if "host" in settings.model_fields_set:
        return settings
    if on_raspberry_pi() if on_pi is None else on_pi:
        return settings
    hardware = {DeviceMode.REAL, BoardMode.REAL, BoardMode.SPI}
    if not settings.simulate and any(
        getattr(settings, device).mode in hardware for device in ("board", "shuffler", "inputs")
    ):
        return settings
    return settings.model_copy(update={"host": "127.0.0.1"})


# Written by systemd/install.sh; the service runs `crib serve --config` with it.
INSTALLED_CONFIG = Path("/etc/cribbage-table/config.toml")
SERVICE_USER = "cribbage"


def installed_config() -> Path | None:
    """The installed service's configuration file when this machine has one, else None.

    Its folder is looked at, not the file: only root and the service's group may read the
    file, and a user who cannot must be told so rather than handed another file."""
    return INSTALLED_CONFIG if INSTALLED_CONFIG.parent.is_dir() else None


def unreadable(path: Path, command: str) -> str | None:
    """The one line to print when `path` exists but this user may not read it (with the way
    to run `command` as someone who may), else None."""
    try:
        with path.open("rb"):
            return None
    except PermissionError as exc:
        return f"config {path}: this user cannot read it ({exc.strerror}): run `{command}`"
    except OSError:
        return None  # missing, a folder, ...: the loader names it itself


def _token_config(args: argparse.Namespace) -> Path | None:
    """The configuration `crib token` reads: --config, else $CRIB_CONFIG, else the installed
    service's file when there is one (so a token made on the Pi is the service's), else the
    default of `crib serve` (config.toml in the state directory)."""
    if args.config:
        return Path(args.config)
    env = os.environ.get("CRIB_CONFIG")
    if env:
        return Path(env)
    return installed_config()


@contextlib.contextmanager
def _tokens(args: argparse.Namespace) -> Iterator[Tokens | None]:
    """The token store of the configured state directory, closed afterwards; None on a
    configuration error (already printed)."""
    from firmware_host.auth import Tokens
    from firmware_host.store import Store

    path = _token_config(args)
    if path is not None:
        words = ["token", str(args.token_command), *([args.name] if "name" in args else []),
                 *(["--config", str(path)] if args.config else [])]
        problem = unreadable(path, f"sudo -u {SERVICE_USER} crib {shlex.join(words)}")
        if problem is not None:
            fail(args, problem)
            yield None
            return
    if not args.config and not os.environ.get("CRIB_CONFIG"):  # (the loader names CRIB_CONFIG)
        args.config = str(path) if path is not None else None
    settings = _settings(args)
    if settings is None:
        yield None
        return
    store = Store(settings.db_path)
    try:
        store.start()
    except DaemonError as exc:  # a state directory that can't be used: one line
        fail(args, exc)
        yield None
        return
    try:
        yield Tokens(store)
    finally:
        store.stop()


def cmd_token_create(args: argparse.Namespace) -> int:
    with _tokens(args) as tokens:
        if tokens is None:
            return 2
        from firmware_host.errors import NameTakenError

        try:
            print(tokens.create(args.name, replace=args.replace))
        except NameTakenError:
            return fail(args, f"a token named {args.name.strip()!r} exists already: give "
                        "another name, or add --replace to revoke it and make a new one", 1)
        except DaemonError as exc:
            fail(args, exc)
            return 2
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    with _tokens(args) as tokens:
        if tokens is None:
            return 2
        listed = tokens.list()
        if not listed:  # on stderr: a script reading the list sees an empty one
            print("no tokens yet: pair a phone, or `crib token create NAME`", file=sys.stderr)
        for t in listed:
            used = "never used" if not t["last_used"] else "used " + time.strftime(
                "%Y-%m-%d %H:%M", time.localtime(float(t["last_used"])))
            made = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(t["created_at"])))
            print(f"{t['name']}\tcreated {made}\t{used}")
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    with _tokens(args) as tokens:
        if tokens is None:
            return 2
        try:
            revoked = tokens.revoke(args.name)
        except DaemonError as exc:  # the storage refused the write
            fail(args, exc)
            return 2
        if not revoked:
            fail(args, f"no token named {args.name!r}")
            return 1
    print(f"revoked {args.name}")
    return 0
