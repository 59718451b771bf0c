#!/bin/sh
# A unit's ProtectSystem=strict, as systemd lays it out, for a command run
# without a running systemd (t_service.sh): in the mount namespace this is
# started in (unshare -m --propagation private: its mounts end with it),
# every mount is made read-only but the API file systems (/dev, /proc,
# /sys) and /tmp (PrivateTmp= gives the service a writable one of its own);
# the paths the unit may write (ReadWritePaths=, StateDirectory=) are bound
# over themselves first, and stay writable. Then the command runs.
#
# Usage: unshare -m --propagation private tests/protect_system.sh [RW-PATH...] -- COMMAND...
set -eu
rw="/dev /proc /sys"
writable() {
	# ReadWritePaths=-PATH: a missing one is left out, as systemd does
	[ -e "$1" ] || return 0
	mount --bind "$1" "$1"
	rw="$rw $1"
}
writable /tmp
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	writable "$1"
	shift
done
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "usage: protect_system.sh [RW-PATH...] -- COMMAND..." >&2; exit 2; }
under_rw() {
	for p in $rw; do
		case $1 in "$p" | "$p"/*) return 0 ;; esac
	done
	return 1
}
# mountinfo's 5th field, the mount point (\040 for a space, as octal escapes)
cut -d' ' -f5 /proc/self/mountinfo | while read -r mp; do
	mp=$(printf '%b' "$mp")
	under_rw "$mp" || mount -o remount,bind,ro "$mp" 2>/dev/null ||
		{ echo "protect_system.sh: cannot make '$mp' read-only" >&2; exit 1; }
done
exec "$@"
