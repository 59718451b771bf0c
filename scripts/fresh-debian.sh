#!/bin/bash
# The README on a fresh machine: debootstrap Debian 12 (bookworm, minbase,
# plus git and make) into DIR, bind this kernel's /sys (tracefs, bpffs and
# cgroups below it), /proc and /dev in, clone this repository inside at
# HEAD (or REV), and run the README's two commands there as root:
# `make run`, then `make check`. Prints how long each took, the packages
# `make run` installed and `make check`'s summary (passed, failed, skipped).
#
#   scripts/fresh-debian.sh [-r REV] [DIR]
#
# Run by hand, as root; not part of CI: it downloads a Debian system and
# every package of the tests, and takes a while (`make check` alone ~12 min).
# DIR (default: a new /var/tmp/tracetax-fresh.XXXXXX) must be new or empty;
# it is kept for a look after (rm -rf DIR). Packages come from the Debian
# mirror that apt uses here (MIRROR=URL to take another). On every path,
# also an interrupt, the processes started in DIR are ended and everything
# mounted in it is unmounted. The machine-wide tracetax lock (/run/lock) is
# the host's, so the runs inside wait for and hold off those outside.
set -euo pipefail

SUITE=bookworm
usage() { echo "usage: scripts/fresh-debian.sh [-r REV] [DIR]" >&2; exit 2; }
rev=HEAD
while getopts r:h opt; do
	case $opt in
	r) rev=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
say() { printf 'fresh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root: debootstrap, mount and chroot need it"
src=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
commit=$(git -C "$src" rev-parse --verify --quiet "$rev^{commit}") || die "no commit '$rev' in $src"
[ "$rev" != HEAD ] || [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
	say "warning: $src has uncommitted changes; the fresh machine gets $commit without them"

# The mirror of the Debian archive that apt uses here, as apt itself reads
# its sources (one-line or deb822); and every bookworm suite it has
# (updates, security), for the fresh machine's own sources.
suites=$("$(dirname "$0")"/apt-suites.sh "$SUITE")
MIRROR=${MIRROR:-$(awk -v s="$SUITE" '$2 == s { print $1; exit }' <<<"$suites")}
[ -n "$MIRROR" ] || die "apt has no source for $SUITE here: give one as MIRROR=URL"
[ -n "$suites" ] || suites="$MIRROR $SUITE"

if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

if [ $# = 1 ]; then
	root=$1
	mkdir -p "$root"
	[ -z "$(ls -A "$root")" ] || die "$root is not empty"
else
	root=$(mktemp -d /var/tmp/tracetax-fresh.XXXXXX)
fi
root=$(realpath "$root")
# mktemp -d makes it 0700: as the chroot's /, that locks out every user but
# root (t_nonroot, t_pg's postgres, test_lock's nobody). A root is 0755.
chmod 0755 "$root"
case $root in
/ | *[[:space:]]*) die "'$root': not a directory to make a system in" ;;
esac
log=$root.log
: >"$log"

mounts=()
# Processes whose root is the fresh system: started in it, by this script.
inside() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$root" ] && echo "${p#/proc/}"
	done
	return 0
}
end_inside() {
	local pids i
	pids=$(inside)
	[ -n "$pids" ] || return 0
	say "ending processes left in $root: $(tr '\n' ' ' <<<"$pids")"
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null || true
	for i in $(seq 50); do
		pids=$(inside)
		[ -n "$pids" ] || return 0
		sleep 0.1
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
	sleep 0.5
}
cleanup() {
	local rc=$? i left
	trap - EXIT INT TERM HUP
	end_inside
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -R "${mounts[i]}" 2>/dev/null || umount -R -l "${mounts[i]}" ||
			say "cannot unmount ${mounts[i]}"
	done
	left=$(awk -v r="$root" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo)
	[ -z "$left" ] || { say "still mounted: $left"; rc=1; }
	[ -z "$(inside)" ] || { say "processes left in $root: $(inside | tr '\n' ' ')"; rc=1; }
	say "the system stays in $root (rm -rf $root), the log in $log"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# mnt [--rbind SRC | -t TYPE SRC] DIR: mounted, and remembered to unmount
mnt() {
	local dir=${*: -1}
	mkdir -p "$dir"
	mount "$@"
	mounts+=("$dir")
	# a recursive bind must not hand its unmounts back to the host's mounts
	[ "$1" != --rbind ] || mount --make-rslave "$dir"
}

elapsed() { local s=$1; printf '%dm%02ds' $((s / 60)) $((s % 60)); }

say "debootstrap $SUITE (minbase, git, make) into $root from $MIRROR"
t0=$(date +%s)
debootstrap --variant=minbase --include=git,make "$SUITE" "$root" "$MIRROR" >>"$log" 2>&1 ||
	die "debootstrap failed: $(tail -n 5 "$log")"
say "debootstrap: $(elapsed $(($(date +%s) - t0)))"
awk '{ print "deb " $1 " " $2 " main" }' <<<"$suites" >"$root/etc/apt/sources.list"
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# its root a mount point of its own, as a machine's is: `unshare -m`
# (t_store) makes / private, which fails where / is not a mount point
mnt --bind "$root" "$root"
mnt -t proc proc "$root/proc"
mnt --rbind /sys "$root/sys"
mnt --rbind /dev "$root/dev"
# tracetax's lock is machine-wide: the host's, not one of the fresh system's own
mnt --bind /run/lock "$root/run/lock"
if [ ! -e "$root/sys/kernel/tracing/events" ]; then
	mnt -t tracefs nodev "$root/sys/kernel/tracing"
fi
[ -e "$root/sys/kernel/tracing/events" ] || die "no tracefs at /sys/kernel/tracing inside"

# chr: a command in the fresh system, as root logs in there
chr() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# shellcheck disable=SC2016
packages() { chr dpkg-query -W -f='${Package}\n' | sort; }

git -C "$src" bundle create "$root/root/tracetax.bundle" --all HEAD >>"$log" 2>&1 ||
	die "cannot bundle $src: $(tail -n 3 "$log")"
chr git clone -q -n /root/tracetax.bundle /root/tracetax >>"$log" 2>&1 || die "git clone failed"
chr git -C /root/tracetax checkout -q --detach "$commit" || die "cannot check $commit out"
rm -f "$root/root/tracetax.bundle"
say "tracetax at $(chr git -C /root/tracetax log -1 --format='%h %s')"
# shellcheck disable=SC2016
say "$(chr dpkg-query -W -f='.\n' | wc -l) packages, $(chr sh -c '. /etc/os-release; echo "$PRETTY_NAME"'), kernel $(uname -r)"

# step NAME: `make NAME` inside, its output on the terminal and in the log
step() {
	local t rc
	t=$(date +%s)
	echo "=== make $1" >>"$log"
	set +e
	chr /bin/bash -c "cd /root/tracetax && make $1" 2>&1 | tee -a "$log" "$root/make-$1.out"
	rc=${PIPESTATUS[0]}
	set -e
	took=$(($(date +%s) - t))
	end_inside
	return "$rc"
}
installed() {  # installed BEFORE AFTER: the new packages, their count and size
	local new kb
	new=$(comm -13 "$1" "$2")
	[ -n "$new" ] || { echo "nothing"; return; }
	# shellcheck disable=SC2016,SC2086
	kb=$(chr dpkg-query -W -f='${Installed-Size}\n' $new 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	echo "$(wc -w <<<"$new") packages, $((kb / 1024)) MB installed"
}

packages >"$root/pkgs.0"
run_rc=0
step run || run_rc=$?
run_took=$took
packages >"$root/pkgs.1"
check_rc=0
step check || check_rc=$?
check_took=$took
packages >"$root/pkgs.2"

summary() {
	echo
	echo "== fresh Debian 12 (minbase + git, make), tracetax $(chr git -C /root/tracetax describe --always)"
	echo "make run: exit $run_rc in $(elapsed "$run_took")"
	echo "  asked for:  $(sed -n 's/^tracetax: installing (run)://p' "$root/make-run.out")"
	echo "  installed:  $(installed "$root/pkgs.0" "$root/pkgs.1")"
	echo "make check: exit $check_rc in $(elapsed "$check_took")"
	echo "  asked for:  $(sed -n 's/^tracetax: installing (test)://p' "$root/make-check.out")"
	echo "  installed:  $(installed "$root/pkgs.1" "$root/pkgs.2")"
	# none skipped or failed is no error (set -e, pipefail)
	grep -E '^(skipped|failed): ' "$root/make-check.out" | sed 's/^/  /' || true
	echo "  $(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$root/make-check.out" | tail -n 1)"
}
summary | tee -a "$log"
[ "$run_rc" = 0 ] && [ "$check_rc" = 0 ]
