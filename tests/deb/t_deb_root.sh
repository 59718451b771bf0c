#!/bin/bash
# The Debian package built as Debian builds it and installed on a machine
# that never saw the source tree. A fresh debootstrap root of this release
# (minbase, cached under build/deb-root/, copied anew for each use) with
# build-essential and only debian/control's Build-Depends (`apt-get
# build-dep`) builds it: `dpkg-buildpackage -us -uc -b` on a clean copy of
# the tree (scripts/deb.sh --source), `debian/rules clean` first; lintian
# (no errors, no warnings) reads the result. Then another fresh copy, where
# `apt-get install ./tracetax_*.deb` pulls the dependencies from the mirror
# apt uses here, and:
# - /usr/bin/tracetax run -t none,bpf:tp/count works, bpf:tp/count's
#   hits == events (the load and its libraries found in /usr/lib/tracetax);
# - the man page, the completion, the experiments, the docs, the units, the dashboard
#   and the conffiles are where the package says;
# - the service's ExecStart (tests/unit_exec.py, the installed unit and
#   /etc/default/tracetax, no path mapped) records into
#   /var/lib/tracetax/results.db and writes node_exporter's textfile.
# The root sees the host's /proc, /sys, tracefs, bpffs, /dev and /run/lock
# (the machine's lock: a run in the root waits for the host's runs), mounted
# in a mount namespace of the test's own: they go with it, on every path.
#
# Minutes, not seconds (the package's build, apt): `make check-deb`, not in
# `make check`. Exit 77 (skip) when debootstrap cannot reach the mirror.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
skip() { echo "$*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
for c in dpkg-buildpackage dh lintian debootstrap unshare chroot python3; do
	command -v "$c" >/dev/null || skip "no $c (Debian: dpkg-dev debhelper lintian debootstrap util-linux python3)"
done
[ -d /sys/kernel/tracing/events ] || skip "no tracefs at /sys/kernel/tracing"
export TRACETAX_WAIT=${TRACETAX_WAIT:-86400}
start=$(date +%s)

# --- the cached root: debootstrap once
base=$(scripts/deb-root.sh build/deb-root) ; rc=$?
[ "$rc" = 77 ] && skip "$(echo "$base" | tail -n 1)"
[ "$rc" = 0 ] || fail "scripts/deb-root.sh exited $rc: $base"
base=$(echo "$base" | tail -n 1)
echo "root: $base (cached), $(( $(date +%s) - start )) s"

# --- a fresh copy of the root, removed on every path once nothing is mounted in it
T=$(mktemp -d "$ROOT/build/deb-root/run.XXXXXX") || fail "mktemp"
cleanup() {
	if grep -qF " $T/" /proc/mounts; then
		echo "FAIL: mounts left under $T, not removed: $(grep -F " $T/" /proc/mounts)"
		exit 1
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$ROOT/build/deb-root/archives/partial"

# --- the package, built in a root with build-essential and Build-Depends only
BR=$T/build-root
cp -a "$base" "$BR" || fail "cannot copy the root"
src=$(scripts/deb.sh --source "$BR/build" 2>"$T/source.err" | tail -n 1) && [ -d "$src" ] ||
	fail "scripts/deb.sh --source: $(cat "$T/source.err")"
unshare --mount --propagation private bash -s "$BR" "$ROOT/build/deb-root/archives" "/build/${src##*/}" \
	>"$T/build.log" 2>&1 <<'BUILD'
set -u
R=$1 ARCHIVES=$2 SRC=$3
fail() { echo "FAIL: $*"; exit 1; }
mount -t proc proc "$R/proc" || fail "mount proc"
mount --rbind /dev "$R/dev" || fail "mount /dev"
mount --bind "$ARCHIVES" "$R/var/cache/apt/archives" || fail "mount the apt cache"
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	DEBIAN_FRONTEND=noninteractive DEB_BUILD_OPTIONS=parallel=2 "$@"; }
in_root apt-get update -qq >"$R/../apt-update.log" 2>&1 || fail "apt-get update: $(tail -3 "$R/../apt-update.log")"
in_root apt-get install -y -q --no-install-recommends build-essential >"$R/../apt.log" 2>&1 ||
	fail "apt-get install build-essential: $(tail -n 5 "$R/../apt.log")"
# Build-Depends and nothing else, as a buildd installs them
in_root sh -c "cd $SRC && apt-get build-dep -y -q --no-install-recommends ./" >>"$R/../apt.log" 2>&1 ||
	fail "apt-get build-dep: $(tail -n 5 "$R/../apt.log")"
echo "build root: $(in_root dpkg-query -W -f '${Package}\n' | wc -l) packages, build-essential and Build-Depends"
in_root sh -c "cd $SRC && dpkg-buildpackage -us -uc -b" >"$R/../dpkg-buildpackage.log" 2>&1 ||
	fail "dpkg-buildpackage in the clean root: $(tail -n 15 "$R/../dpkg-buildpackage.log")"
grep -E '^dh clean|^ *debian/rules clean|^dpkg-deb: building package' "$R/../dpkg-buildpackage.log"
BUILD
rc=$?
cat "$T/build.log"
cp "$T/apt.log" "$T/dpkg-buildpackage.log" build/deb-root/ 2>/dev/null	# kept for a look after
[ "$rc" = 0 ] || fail "the package's build in a clean root (exit $rc; build/deb-root/dpkg-buildpackage.log)"
deb=$(ls "$BR"/build/tracetax_*.deb 2>/dev/null | head -n 1)
[ -f "$deb" ] || fail "no .deb after the build in the clean root"
scripts/deb.sh --lintian "${deb%.deb}.changes" >"$T/lintian.out" 2>&1 || fail "lintian: $(tail -n 20 "$T/lintian.out")"
grep -E '^lintian' "$T/lintian.out" || fail "no lintian summary: $(cat "$T/lintian.out")"
echo "package: $deb, built in a clean root, $(( $(date +%s) - start )) s"

# --- installed in another fresh copy
R=$T/root
cp -a "$base" "$R" || fail "cannot copy the root"
cp "$deb" "$R/tmp/" || fail "cp $deb"
rm -rf "$BR"
cp tests/unit_exec.py "$R/tmp/"

# Everything with mounts runs in a mount namespace of its own: its mounts
# end with it, whatever ends it.
unshare --mount --propagation private bash -s "$R" "$ROOT/build/deb-root/archives" "$(basename "$deb")" \
	>"$T/inside.log" 2>&1 <<'INSIDE'
set -u
R=$1 ARCHIVES=$2 DEB=$3
fail() { echo "FAIL: $*"; exit 1; }
mount -t proc proc "$R/proc" || fail "mount proc"
for d in /sys /dev /run/lock; do
	mkdir -p "$R$d"
	mount --rbind "$d" "$R$d" || fail "mount $d"
done
# tracefs and bpffs are mounts of their own under /sys: --rbind brought them
[ -d "$R/sys/kernel/tracing/events" ] || fail "no tracefs in the root"
mount --bind "$ARCHIVES" "$R/var/cache/apt/archives" || fail "mount the apt cache"
in_root() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	TRACETAX_WAIT="${TRACETAX_WAIT:-86400}" DEBIAN_FRONTEND=noninteractive "$@"; }

in_root apt-get update -qq >/tmp/apt-update.log 2>&1 || fail "apt-get update in the root: $(tail -3 /tmp/apt-update.log)"
in_root sh -c 'cd /tmp && apt-get install -y -q --no-install-recommends ./tracetax_*.deb' >"$R/../apt.log" 2>&1 ||
	fail "apt-get install ./$DEB: $(tail -n 5 "$R/../apt.log")"
grep -E '^(Setting up|[0-9]+ upgraded)' "$R/../apt.log"
echo "installed: $(in_root dpkg-query -W -f '${Package} ${Version} ${Status}' tracetax)"

[ "$(in_root sh -c 'command -v tracetax')" = /usr/bin/tracetax ] || fail "tracetax is not /usr/bin/tracetax"
for f in /usr/lib/tracetax/tracetax-load /usr/lib/tracetax/libtracetax-target.so \
	 /usr/lib/tracetax/libtracetax-preload.so /usr/share/man/man1/tracetax.1.gz \
	 /usr/share/bash-completion/completions/tracetax /usr/share/tracetax/experiments/close-1000.tt \
	 /lib/systemd/system/tracetax-measure.service /lib/systemd/system/tracetax-measure.timer \
	 /usr/share/tracetax/grafana/tracetax.json /etc/default/tracetax /etc/tracetax/plan \
	 /var/lib/prometheus/node-exporter /usr/share/doc/tracetax/experiments.md.gz; do
	[ -e "$R$f" ] || fail "the package has no $f"
done
in_root dpkg-query -W -f '${Conffiles}\n' tracetax | grep -q '/etc/default/tracetax' || fail "/etc/default/tracetax is no conffile"
[ "$(stat -c %a "$R/etc/default/tracetax")" = 600 ] || fail "/etc/default/tracetax is not 0600"
in_root tracetax experiment list >/tmp/exp.out 2>&1 || fail "experiment list: $(cat /tmp/exp.out)"
grep -q close-1000 /tmp/exp.out || fail "experiment list: no close-1000"

# the run the issue names, from /usr/bin
in_root /usr/bin/tracetax run -t none,bpf:tp/count --reps 4 --run-ms 30 --json /tmp/r.json \
	--store /tmp/results.db >"$R/tmp/run.out" 2>&1; rc=$?
cat "$R/tmp/run.out"
# exit 3: another tracer came or went on this shared machine; the figures stand, marked
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "tracetax run in the root exited $rc"
python3 - "$R/tmp/r.json" <<'PY' || fail "the run's cells"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["tracer"]: x for x in d["cells"]}
for t in ("none", "bpf:tp/count"):
    if c[t]["status"] != "ok":
        sys.exit(f"{t}: {c[t]['status']} {c[t]['reason']}")
b = c["bpf:tp/count"]
if b["hits"] != b["events"]:
    sys.exit(f"bpf:tp/count: hits {b['hits']} != events {b['events']}")
print(f"in the root: tracetax {d['environment']['tracetax_version']}, bpf:tp/count "
      f"{b['overhead_ns_per_event']['mean']:.1f} ns/event, hits {b['hits']} == events")
PY

# the service's ExecStart, as installed: a short plan in /etc/tracetax/plan
printf 'tracers = none, bpf:tp/count\nreps = 4\nrun_ms = 30\n' >"$R/etc/tracetax/plan"
python3 "$R/tmp/unit_exec.py" "$R/lib/systemd/system/tracetax-measure.service" "$R" >"$R/tmp/unit.json" ||
	fail "unit_exec"
install -d -m 700 "$R/var/lib/tracetax"		# StateDirectory=
python3 - "$R" "$R/tmp/unit.json" <<'PY'; rc=$?
import json, os, sys
root, u = sys.argv[1], json.load(open(sys.argv[2]))
pid = os.fork()
if pid == 0:
    os.chroot(root)
    os.chdir("/")
    os.umask(int(u["umask"], 8))
    os.execve(u["argv"][0], u["argv"], u["env"])
_, st = os.waitpid(pid, 0)
rc = os.waitstatus_to_exitcode(st)
print("ExecStart:", " ".join(u["argv"]), "->", rc)
sys.exit(0 if rc in u["success"] else 1)
PY
[ "$rc" = 0 ] || fail "the service's ExecStart failed in the root"
python3 - "$R/var/lib/tracetax/results.db" "$R/var/lib/prometheus/node-exporter/tracetax.prom" <<'PY' ||
import sqlite3, sys
n = sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM cells").fetchone()[0]
prom = open(sys.argv[2]).read()
if n != 2 or 'tracetax_overhead_per_event_seconds{tracer="bpf:tp/count"' not in prom:
    sys.exit(f"store: {n} cells; textfile: {prom[:200]}")
print(f"service in the root: /var/lib/tracetax/results.db {n} cells, tracetax.prom {prom.count(chr(10))} lines")
PY
	fail "the service's store or textfile"
INSIDE
rc=$?
cat "$T/inside.log"
[ "$rc" = 0 ] || fail "in the root (exit $rc)"
echo "ok: $(( $(date +%s) - start )) s"
