#!/usr/bin/env bash
# Remove the cribbage table service. The configuration, the games and the user stay unless --purge.
#
#   sudo ./systemd/uninstall.sh                  remove the service, the application and its files
#   sudo ./systemd/uninstall.sh --purge          also the configuration, the games, the user, and
#                                                what install.sh added: packages, groups, avahi
#   ./systemd/uninstall.sh --dry-run [--root DIR]  print what it would do (files under DIR)
#
# Options: --prefix DIR (default /opt/cribbage-table). DESTDIR=DIR is --root DIR.
# The host name install.sh may have set is left as it is.
set -euo pipefail

ROOT="${DESTDIR:-}"
DRY=0
PURGE=0
PREFIX=/opt/cribbage-table
SERVICE=cribbage-table
USER_NAME=cribbage
STATE_DIR=/var/lib/$SERVICE
CONFIG_DIR=/etc/cribbage-table
UNIT=/etc/systemd/system/$SERVICE.service
DROPIN_DIR=/etc/systemd/system/$SERVICE.service.d

die() { echo "uninstall.sh: $*" >&2; exit 1; }
say() { echo "==> $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY=1 ;;
        --purge) PURGE=1 ;;
        --root) [ $# -ge 2 ] || die "--root needs a directory"; ROOT="$2"; shift ;;
        --root=*) ROOT="${1#--root=}" ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a directory"; PREFIX="$2"; shift ;;
        --prefix=*) PREFIX="${1#--prefix=}" ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
done
case "$PREFIX" in /?*) ;; *) die "--prefix must be an absolute path below /, got '$PREFIX'" ;; esac
if [ -n "$ROOT" ]; then
    [ "$DRY" = 1 ] || die "--root DIR works on a throwaway tree; use it with --dry-run"
    ROOT="$(cd "$ROOT" && pwd)" || die "--root $ROOT does not exist"
    [ "$ROOT" != / ] || die "--root / is the real system: drop --root and --dry-run instead"
fi
if [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
    die "run it as root: sudo $0 $*"
fi

run() { if [ "$DRY" = 1 ]; then printf '+ %s\n' "$*"; else "$@"; fi; }
target() { printf '%s%s' "$ROOT" "$1"; }
remove() {  # remove PATH: files and trees under $ROOT (nothing in a plain dry run)
    local path="$1"
    if [ -e "$(target "$path")" ] || [ -L "$(target "$path")" ]; then
        echo "= remove $path"
        if [ "$DRY" = 0 ] || [ -n "$ROOT" ]; then rm -rf -- "$(target "$path")"; fi
    fi
}
keep() { [ -e "$(target "$1")" ] && echo "= keep $1 ($2)" || true; }

say "service $SERVICE"
run_sh() { if [ "$DRY" = 1 ]; then printf '+ %s\n' "$1"; else bash -c "$1"; fi; }
run_sh "systemctl disable --now $SERVICE 2>/dev/null || true"

say "files"
remove "$UNIT"
remove "$DROPIN_DIR/README.conf"
if [ "$PURGE" = 1 ]; then
    remove "$DROPIN_DIR"
elif [ -d "$(target "$DROPIN_DIR")" ] && [ -z "$(ls -A "$(target "$DROPIN_DIR")")" ]; then
    remove "$DROPIN_DIR"
else
    keep "$DROPIN_DIR" "your overrides"
fi
remove /etc/udev/rules.d/99-cribbage-board.rules
remove /etc/avahi/services/cribbage.service
if [ "$(readlink "$(target /usr/local/bin/crib)" 2>/dev/null)" = "$PREFIX/venv/bin/crib" ]; then
    remove /usr/local/bin/crib
fi
# Only what install.sh put there: a --prefix of /opt must not take /opt with it.
remove "$PREFIX/venv"
remove "$PREFIX/README.md"
if [ -d "$(target "$PREFIX")" ] && [ -z "$(ls -A "$(target "$PREFIX")")" ]; then remove "$PREFIX"; fi
run systemctl daemon-reload
run_sh "systemctl reset-failed $SERVICE 2>/dev/null || true"
# A container or a system without udev refuses the reload: the rule file is gone either way.
run_sh "udevadm control --reload-rules 2>/dev/null || echo '   warning: udev did not reload; the board rule goes at the next boot'"

# What install.sh added to the system (packages, groups, avahi enabled), as it recorded it.
RECORD="$CONFIG_DIR/installed-by-crib.txt"
ADDED_PKGS=()
ADDED_GROUPS=()
AVAHI_ADDED=0
if [ -r "$(target "$RECORD")" ]; then
    while read -r kind name; do
        case "$kind" in
            package) ADDED_PKGS+=("$name") ;;
            group) ADDED_GROUPS+=("$name") ;;
            enabled) [ "$name" = avahi-daemon ] && AVAHI_ADDED=1 ;;
        esac
    done < "$(target "$RECORD")"
fi

if [ "$PURGE" = 1 ]; then
    say "purge: configuration, games, user, and what install.sh added"
    run_sh "id -u $USER_NAME >/dev/null 2>&1 && userdel $USER_NAME || true"
    for g in "${ADDED_GROUPS[@]}"; do run_sh "getent group $g >/dev/null && groupdel $g || true"; done
    if [ "$AVAHI_ADDED" = 1 ]; then run_sh "systemctl disable --now avahi-daemon 2>/dev/null || true"; fi
    if [ "${#ADDED_PKGS[@]}" -gt 0 ]; then
        run_sh "DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq ${ADDED_PKGS[*]}"
    fi
    remove "$CONFIG_DIR"
    remove "$STATE_DIR"
else
    keep "$CONFIG_DIR" "configuration; --purge removes it"
    keep "$STATE_DIR" "games and history; --purge removes it"
    echo "   kept: user $USER_NAME; --purge removes it"
    [ "${#ADDED_GROUPS[@]}" -eq 0 ] || echo "   kept: groups ${ADDED_GROUPS[*]} (install.sh made them); --purge removes them"
    [ "$AVAHI_ADDED" = 0 ] || echo "   kept: avahi-daemon enabled (install.sh enabled it); --purge disables it"
    [ "${#ADDED_PKGS[@]}" -eq 0 ] || echo "   kept: packages ${ADDED_PKGS[*]} (install.sh installed them); --purge removes them"
fi
echo "   kept: this machine's host name ($(hostname 2>/dev/null || echo unknown)); rename it with hostnamectl if you wish"
if [ "$DRY" = 1 ]; then say "dry run: nothing was removed"; else say "done"; fi
