#!/usr/bin/env bash
# Install or upgrade the cribbage table on a Raspberry Pi (Raspberry Pi OS Bookworm).
#
#   sudo ./systemd/install.sh                  install, or upgrade in place (config and games kept)
#   ./systemd/install.sh --dry-run             print what it would write and run; change nothing
#   ./systemd/install.sh --dry-run --root DIR  write the files under DIR, print the commands
#
# Options: --prefix DIR (default /opt/cribbage-table), --hostname NAME (mDNS name, default
# cribbage), --keep-hostname (never rename this machine), --no-start. DESTDIR=DIR is --root DIR.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HERE="$SRC/systemd"
ROOT="${DESTDIR:-}"
DRY=0
PREFIX=/opt/cribbage-table
WANT_HOST=cribbage
HOST_MODE=auto       # auto: rename only a stock "raspberrypi"; force: --hostname given; keep
START=1
SERVICE=cribbage-table
USER_NAME=cribbage
CONFIG_DIR=/etc/cribbage-table
CONFIG="$CONFIG_DIR/config.toml"
UNIT=/etc/systemd/system/$SERVICE.service
DROPIN_DIR=/etc/systemd/system/$SERVICE.service.d
UDEV_RULE=/etc/udev/rules.d/99-cribbage-board.rules
AVAHI_FILE=/etc/avahi/services/cribbage.service
# What this installer added to the system beyond its own files, for `uninstall.sh --purge`.
RECORD=$CONFIG_DIR/installed-by-crib.txt
ADDED=()

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "==> $*"; }
WARNINGS=()
warn() { echo "   warning: $*" >&2; WARNINGS+=("$*"); }

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY=1 ;;
        --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$2"; shift ;;
        --root=*) ROOT="${1#--root=}" ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; PREFIX="$2"; shift ;;
        --prefix=*) PREFIX="${1#--prefix=}" ;;
        --hostname) [ $# -ge 2 ] || die "--hostname needs a name"; WANT_HOST="$2"; HOST_MODE=force; shift ;;
        --keep-hostname) HOST_MODE=keep ;;
        --no-start) START=0 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
done

case "$PREFIX" in /*) ;; *) die "--prefix must be an absolute path, got '$PREFIX'" ;; esac
[[ "$WANT_HOST" =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]] || die "--hostname '$WANT_HOST' is not a valid host name"
if [ -n "$ROOT" ]; then
    [ "$DRY" = 1 ] || die "--root DIR writes a throwaway tree; use it with --dry-run"
    mkdir -p "$ROOT"
    ROOT="$(cd "$ROOT" && pwd)"
    [ "$ROOT" != / ] || die "--root / is the real system: drop --root and --dry-run instead"
fi
if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    die "run it as root: sudo $0 $*"
fi
VENV="$PREFIX/venv"

# Commands on the live system run for real, or are printed with a leading "+ ".
run() {
    if [ "$DRY" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi
}
run_sh() {
    if [ "$DRY" = 1 ]; then printf '+ %s\n' "$1"; else bash -c "$1"; fi
}
# A step a real system may refuse (no D-Bus answer, no udev in a container): warn with what to
# run later and go on, rather than stop half-way through.  try_run "LATER" CMD...
try_run() {
    local later="$1"; shift
    if [ "$DRY" = 1 ]; then printf '+ %s\n' "$*"; return 0; fi
    local err
    if ! err="$("$@" 2>&1)"; then
        warn "'$*' failed${err:+: ${err//$'\n'/ }}; later, run: $later"
    fi
}
# Files go to $ROOT$path (or nowhere in a plain dry run); "= " lines say what happened.
target() { printf '%s%s' "$ROOT" "$1"; }
writes_files() { [ "$DRY" = 0 ] || [ -n "$ROOT" ]; }
put() {  # put FROM DEST MODE
    local from="$1" dest="$2" mode="$3" how=new
    [ -e "$(target "$dest")" ] && how=updated
    if cmp -s "$from" "$(target "$dest")" 2>/dev/null; then how=unchanged; fi
    echo "= write $dest ($how)"
    if writes_files; then install -D -m "$mode" "$from" "$(target "$dest")"; fi
}
render() {  # render TEMPLATE > stdout, with the placeholders of this install
    sed -e "s#@PREFIX@#$PREFIX#g" -e "s#@VENV@#$VENV#g" -e "s#@CONFIG@#$CONFIG#g" \
        -e "s#@VERSION@#$VERSION#g" -e "s#@PORT@#$PORT#g" "$1"
}

# The boards that work, checked before anything is changed: pydantic-core (the web API's
# validator) has no wheel for armv6l, so pip would try a Rust build on 512 MB for hours.
ARCH="$(uname -m)"
case "$ARCH" in
    aarch64|arm64|armv7l|armv8l|x86_64|amd64) ;;
    armv6l|armv6*) die "this $ARCH board (a Pi Zero W, Zero or Pi 1) cannot run it: the web API's pydantic has no build for armv6l; use a Pi Zero 2 W, Pi 3, 4 or 5 (Raspberry Pi OS Bookworm, 64-bit best)" ;;
    *) die "this machine's architecture '$ARCH' is not one the installer knows; it works on a Pi Zero 2 W, 3, 4 or 5 (aarch64 or armv7l) and on x86_64" ;;
esac

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
    || die "Python 3.11 or newer is needed (Raspberry Pi OS Bookworm has it): sudo apt install python3"
source_version() {
    python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' \
        "$SRC/pyproject.toml"
}
VERSION="$(source_version)"

# 1. Debian packages. python3-lgpio comes from the Raspberry Pi archive (gpiozero's first choice,
#    and the only pin library that works on a Pi 5); the venv sees it through system site packages.
say "Debian packages"
PKGS=(python3-venv python3-pip avahi-daemon)
if [ "$DRY" = 1 ] || apt-cache show python3-lgpio >/dev/null 2>&1; then
    PKGS+=(python3-lgpio)
else
    echo "   python3-lgpio is not in this system's archives (not Raspberry Pi OS?): GPIO devices will be simulated"
fi
# spidev drives the direct-SPI board; Raspberry Pi OS packages it (no compiler needed).
if [ "$DRY" = 1 ] || apt-cache show python3-spidev >/dev/null 2>&1; then
    PKGS+=(python3-spidev)
else
    echo "   python3-spidev is not in this system's archives: the direct-SPI board will not open"
fi
if [ "$DRY" = 1 ]; then
    run apt-get install -y --no-install-recommends "${PKGS[@]}"
else
    missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
        for p in "${missing[@]}"; do ADDED+=("package $p"); done
    else
        echo "   all present"
    fi
fi

# 2. The service user, in the groups that open the GPIO chips, the serial port and SPI.
say "user $USER_NAME"
for g in gpio spi; do
    if [ "$DRY" = 1 ]; then
        run_sh "getent group $g >/dev/null || groupadd --system $g"
    elif ! getent group "$g" >/dev/null; then
        groupadd --system "$g" && ADDED+=("group $g")
    fi
done
run_sh "id -u $USER_NAME >/dev/null 2>&1 || useradd --system --user-group --home-dir /var/lib/$SERVICE --no-create-home --shell /usr/sbin/nologin --comment 'Cribbage table daemon' $USER_NAME"
run usermod -a -G gpio,dialout,spi "$USER_NAME"

# 3. The application in its own venv (upgraded in place when it exists).
say "application $VERSION in $VENV"
if ! "$(target "$VENV")/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    run python3 -m venv --system-site-packages --clear "$VENV"
fi
# The `board` extra brings mpremote, which `crib board flash` runs to copy the Pico's firmware.
# pip prints a line per package: on a Pi 3 this step takes minutes and must not look stuck.
echo "   pip: a line per package (a few minutes on a Pi 3)"
run "$VENV/bin/pip" install --progress-bar off --disable-pip-version-check --upgrade "$SRC[board]"
if [ "$DRY" = 0 ]; then
    VERSION="$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("cribbage-table"))')"
fi
put "$SRC/README.md" "$PREFIX/README.md" 0644
echo "= link /usr/local/bin/crib -> $VENV/bin/crib"
if writes_files; then
    mkdir -p "$(target /usr/local/bin)"
    ln -sfn "$VENV/bin/crib" "$(target /usr/local/bin/crib)"
fi

# 4. The host name the phones use: cribbage.local.
say "host name"
if [ -n "$ROOT" ] && [ -s "$ROOT/etc/hostname" ]; then
    CURRENT_HOST="$(tr -d '[:space:]' < "$ROOT/etc/hostname")"   # a throwaway root says its own
else
    CURRENT_HOST="$(hostname 2>/dev/null || cat /etc/hostname 2>/dev/null || echo unknown)"
fi
MDNS_HOST="$CURRENT_HOST"
if [ "$CURRENT_HOST" = "$WANT_HOST" ]; then
    echo "   already $WANT_HOST"
elif [ "$HOST_MODE" = force ] || { [ "$HOST_MODE" = auto ] && [ "$CURRENT_HOST" = raspberrypi ]; }; then
    echo "   renaming $CURRENT_HOST to $WANT_HOST (ssh $CURRENT_HOST.local becomes ssh $WANT_HOST.local)"
    try_run "sudo hostnamectl set-hostname $WANT_HOST, then rerun this installer" \
        hostnamectl set-hostname "$WANT_HOST"
    if [ "$DRY" = 1 ] || [ "$(hostname 2>/dev/null)" = "$WANT_HOST" ]; then
        run sed -i "s/^127\\.0\\.1\\.1[[:space:]].*/127.0.1.1\\t$WANT_HOST/" /etc/hosts
        run_sh "grep -q '^127\\.0\\.1\\.1' /etc/hosts || printf '127.0.1.1\\t$WANT_HOST\\n' >> /etc/hosts"
        run systemctl try-restart avahi-daemon
        MDNS_HOST="$WANT_HOST"
    else
        echo "   still '$CURRENT_HOST': it answers as $CURRENT_HOST.local until renamed"
    fi
else
    echo "   keeping this machine's name '$CURRENT_HOST': it answers as $CURRENT_HOST.local"
    echo "   (rerun with --hostname $WANT_HOST to answer as $WANT_HOST.local)"
fi

# 5. Configuration: written when there is none, never overwritten.
say "configuration $CONFIG"
echo "= dir $CONFIG_DIR"
if writes_files; then mkdir -p "$(target "$CONFIG_DIR")"; fi
if [ -e "$(target "$CONFIG")" ]; then
    echo "= keep $CONFIG (exists; the newest example is $CONFIG_DIR/config.example.toml)"
elif [ "$DRY" = 1 ] && [ -z "$ROOT" ] && [ -e "$CONFIG" ]; then
    echo "= keep $CONFIG (exists)"
else
    cp "$HERE/config.example.toml" "$TMP/config.toml"
    if [ "$MDNS_HOST" != cribbage ]; then
        sed -i "s/^allowed_hosts = \\[\"cribbage.local\", \"localhost\"\\]/allowed_hosts = [\"cribbage.local\", \"$MDNS_HOST.local\", \"localhost\"]/" "$TMP/config.toml"
    fi
    put "$TMP/config.toml" "$CONFIG" 0640
fi
put "$HERE/config.example.toml" "$CONFIG_DIR/config.example.toml" 0644
run chown root:"$USER_NAME" "$CONFIG_DIR" "$CONFIG"
run chmod 0750 "$CONFIG_DIR"

# The port the page listens on, from the configuration in force (8080 is the daemon's default).
config_port() {
    local file="$(target "$CONFIG")"
    [ -e "$file" ] || file="$HERE/config.example.toml"
    python3 -c 'import sys, tomllib; print(int(tomllib.load(open(sys.argv[1], "rb")).get("port", 8080)))' "$file" 2>/dev/null \
        || die "$CONFIG is not valid TOML; fix it, then rerun (crib doctor --config $CONFIG says more)"
}
PORT="$(config_port)"

# 6. systemd unit, its drop-in documentation, udev rule, Avahi announcement.
say "service files"
render "$HERE/$SERVICE.service" > "$TMP/$SERVICE.service"
put "$TMP/$SERVICE.service" "$UNIT" 0644
put "$HERE/$SERVICE.service.d/README.conf" "$DROPIN_DIR/README.conf" 0644
put "$HERE/99-cribbage-board.rules" "$UDEV_RULE" 0644
render "$HERE/cribbage.avahi.service" > "$TMP/cribbage.avahi.service"
put "$TMP/cribbage.avahi.service" "$AVAHI_FILE" 0644
try_run "sudo udevadm control --reload-rules && sudo udevadm trigger (or reboot)" \
    udevadm control --reload-rules
try_run "sudo udevadm trigger --subsystem-match=tty (or reboot)" \
    udevadm trigger --subsystem-match=tty --subsystem-match=gpio --subsystem-match=spidev
run systemctl daemon-reload
if [ "$DRY" = 0 ] && ! systemctl is-enabled --quiet avahi-daemon 2>/dev/null; then
    ADDED+=("enabled avahi-daemon")
fi
run systemctl enable avahi-daemon
run systemctl restart avahi-daemon

# 7. Enable and (re)start the service: a restart picks up an upgrade.
say "service $SERVICE"
run systemctl enable "$SERVICE"
if [ "$START" = 1 ]; then
    run systemctl restart "$SERVICE"
    if [ "$DRY" = 0 ]; then
        # Type=notify: the restart returns once READY=1 came, or the start failed.
        if ! systemctl is-active --quiet "$SERVICE"; then
            journalctl -u "$SERVICE" -n 30 --no-pager || true
            die "$SERVICE did not start; the log is above. Then: crib doctor --config $CONFIG"
        fi
    fi
fi

# What was added, kept across upgrades (a second run adds nothing it did not add).
if [ "$DRY" = 0 ] && [ "${#ADDED[@]}" -gt 0 ]; then
    printf '%s\n' "${ADDED[@]}" >> "$RECORD"
    sort -u -o "$RECORD" "$RECORD"
fi

# 8. Where to point the phone.
suffix=""
[ "$PORT" = 80 ] || suffix=":$PORT"
if [ "$DRY" = 1 ]; then
    say "dry run: nothing was installed, started or renamed"
    echo "After a real run, open on the phone:  http://$MDNS_HOST.local$suffix/"
    exit 0
fi
say "cribbage-table $VERSION installed"
echo "Open on the phone:  http://$MDNS_HOST.local$suffix/"
for ip in $(hostname -I 2>/dev/null || true); do
    case "$ip" in *:*) ;; *) echo "               or:  http://$ip$suffix/" ;; esac
done
echo "Check the Pi:       sudo crib doctor --config $CONFIG"
echo "Logs:               journalctl -u $SERVICE -f"
if [ "${#WARNINGS[@]}" -gt 0 ]; then
    echo "Left to do (${#WARNINGS[@]}):"
    for w in "${WARNINGS[@]}"; do echo "  - $w"; done
fi
