# The results store: runs record by default (not with --no-store), history
# lists them, show reprints the table the run printed (of a mixed plan
# too, every part of it); a store that cannot
# be written (read-only, full, corrupt) costs the record, not the table:
# one line, exit 1, the database as it was; two writers at once both
# succeed; a version 1 store is migrated.
. "$(dirname "$0")/lib.sh"
DB=$TRACETAX_DB
quick=(-t none -n 2000 --reps 2)

runs_in() {  # runs_in DB: how many runs history lists
	"$TT" history --store "$1" --limit 1000 | grep -c '^ *[0-9]'
}

# Two runs, then one with --no-store: history lists the two.
"$TT" run "${quick[@]}" >"$TMP/run1.out" 2>"$TMP/run1.err" || fail "run 1 exited $?: $(cat "$TMP/run1.err")"
grep -q "^recorded as run 1 in '$DB'" "$TMP/run1.err" || fail "run 1 does not say where: $(cat "$TMP/run1.err")"
# a first run in a new store: its repeat95 takes the assumed drift, and says so
grep -q "tau 10%: ASSUMED, not measured on this host (a first run: no earlier run of this host;" \
	"$TMP/run1.out" || fail "run 1's repeat95 line: $(tail -3 "$TMP/run1.out")"
"$TT" run "${quick[@]}" -q >"$TMP/run2.out" 2>&1 || fail "run 2 exited $?"
"$TT" run "${quick[@]}" --no-store >"$TMP/run3.out" 2>&1 || fail "run 3 exited $?"
"$TT" history >"$TMP/hist" || fail "history exited $?"
cat "$TMP/hist"
[ "$(grep -c '^ *[0-9]' "$TMP/hist")" = 2 ] || fail "want 2 runs in history (--no-store records nothing)"
grep -q '^ *2  .*  1/0/0  *1: none$' "$TMP/hist" || fail "run 2's line"
# show reprints what the run printed, to the byte
"$TT" show 1 >"$TMP/show1" || fail "show 1 exited $?"
cmp -s "$TMP/show1" "$TMP/run1.out" || fail "show 1 differs from run 1's table: $(diff "$TMP/run1.out" "$TMP/show1")"
"$TT" show last~1 | cmp -s - "$TMP/run1.out" || fail "show last~1 is not run 1"
"$TT" history -t none | grep -q '^ *none  *getpid  *1T  .* ns/event' || fail "history -t: no overhead line"
for bad in 3 last~2 0x1; do
	"$TT" show "$bad" >/dev/null 2>"$TMP/err"
	rc=$?
	[ "$rc" = 2 ] || fail "show $bad exited $rc, want 2"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "show $bad: $(cat "$TMP/err")"
done
"$TT" history --store "$TMP/none.db" >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 1 ] && grep -q "no results store at '$TMP/none.db'" "$TMP/err" || fail "missing store: exit $rc: $(cat "$TMP/err")"
[ -e "$TMP/none.db" ] && fail "history created a store"
echo "recorded, listed, shown"

# show reprints every part of a table from the document, to the byte: the
# clock and --latency header lines, BPF stats, program time, a tool's
# start/exit, latency percentiles and histograms, the scaling view, per hit
# and per byte; from the store and from the --json document alike.
if [ "$(id -u)" = 0 ]; then
	mixed=(--store "$TMP/mixed.db" --color never --reps 2 -n 2000)
	"$TT" run "${mixed[@]}" -w getpid -t none,bpf:tp/count,strace -T 1,2 --latency \
		--json "$TMP/m1.json" >"$TMP/m1.out" 2>"$TMP/m1.err"
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "mixed run 1 exited $rc: $(cat "$TMP/m1.err")"
	"$TT" run "${mixed[@]}" -w tcp -t none,bpf:tp/count --target tcp:tcp_probe \
		--json "$TMP/m2.json" >"$TMP/m2.out" 2>"$TMP/m2.err"
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "mixed run 2 exited $rc: $(cat "$TMP/m2.err")"
	for part in '^timed with CLOCK_MONOTONIC' '^--latency: each call' '^scaling: ' '^latency: ns per call'; do
		grep -q "$part" "$TMP/m1.out" || fail "mixed run 1 printed no '$part': $(cat "$TMP/m1.out")"
	done
	for i in 1 2; do
		"$TT" show "$i" --store "$TMP/mixed.db" --color never >"$TMP/s$i" || fail "show $i exited $?"
		cmp -s "$TMP/s$i" "$TMP/m$i.out" ||
			fail "show $i differs from mixed run $i's table: $(diff "$TMP/m$i.out" "$TMP/s$i")"
		"$TT" show "$TMP/m$i.json" --color never >"$TMP/s$i" || fail "show m$i.json exited $?"
		cmp -s "$TMP/s$i" "$TMP/m$i.out" ||
			fail "show m$i.json differs from its run's table: $(diff "$TMP/m$i.out" "$TMP/s$i")"
	done
	echo "mixed: show reprints $(wc -l <"$TMP/m1.out") and $(wc -l <"$TMP/m2.out") lines"
fi

# A corrupt database: one line, exit 1, the table printed, the file untouched.
head -c 8192 /dev/urandom >"$TMP/junk.db"
sum=$(cksum <"$TMP/junk.db")
"$TT" run "${quick[@]}" --store "$TMP/junk.db" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "corrupt store: exit $rc, want 1: $(cat "$TMP/err")"
grep -q '^none ' "$TMP/out" || fail "corrupt store: no table: $(cat "$TMP/out")"
# lines of the shared machine, not of this store: another measurement holds
# the lock (TRACETAX_WAIT), or a killed one's leftovers were cleaned up
others() { grep -v -e '^\[' -e '^tracetax: waiting up to ' -e '^tracetax: warning: removed .* left by a killed tracetax' "$@"; }
others "$TMP/err" >"$TMP/err.lines"
[ "$(wc -l <"$TMP/err.lines")" = 1 ] || fail "corrupt store: want one line: $(cat "$TMP/err")"
grep -q "^tracetax: error: cannot record the run: cannot open results store '$TMP/junk.db': file is not a database" \
	"$TMP/err.lines" || fail "corrupt store: $(cat "$TMP/err.lines")"
[ "$(cksum <"$TMP/junk.db")" = "$sum" ] || fail "the corrupt file was changed"
echo "corrupt: $(cat "$TMP/err.lines")"

# Read-only and full: a tmpfs of our own, in a mount namespace of our own.
# Where none can be made (a chroot whose / is no mount point: "unshare:
# cannot change root filesystem propagation"), this part alone is skipped.
ns_skip=
if [ "$(id -u)" != 0 ]; then
	ns_skip="needs root"
elif ! command -v unshare >/dev/null; then
	ns_skip="no unshare (util-linux)"
elif ! unshare -m true 2>"$TMP/unshare.err"; then
	ns_skip="no mount namespace here: $(head -n 1 "$TMP/unshare.err")"
fi
[ -n "$ns_skip" ] && echo "read-only and full disk: skipped: $ns_skip"
if [ -z "$ns_skip" ]; then
	mkdir "$TMP/fs"
	unshare -m bash -c '
		set -u
		TT=$1 TMP=$2; shift 2
		mount -t tmpfs -o size=512k tmpfs "$TMP/fs" || exit 77
		"$TT" run "$@" --store "$TMP/fs/r.db" >/dev/null 2>&1 || { echo "first run: $?"; exit 1; }
		sum=$(cat "$TMP"/fs/r.db* | cksum)
		mount -o remount,ro "$TMP/fs" || exit 77
		"$TT" run "$@" --store "$TMP/fs/r.db" >"$TMP/ro.out" 2>"$TMP/ro.err"
		echo "ro exit $?"
		[ "$(cat "$TMP"/fs/r.db* | cksum)" = "$sum" ] || echo "ro: changed"
		mount -o remount,rw "$TMP/fs"
		dd if=/dev/zero of="$TMP/fs/filler" bs=4k 2>/dev/null
		sum=$(cat "$TMP"/fs/r.db* | cksum)
		"$TT" run "$@" --store "$TMP/fs/r.db" >"$TMP/full.out" 2>"$TMP/full.err"
		echo "full exit $?"
		rm -f "$TMP/fs/filler"
		"$TT" history --store "$TMP/fs/r.db" | grep -c "^ *[0-9]" | sed "s/^/full runs /"
		umount "$TMP/fs"' _ "$TT" "$TMP" "${quick[@]}" >"$TMP/ns" 2>&1
	rc=$?
	cat "$TMP/ns"
	if [ "$rc" = 77 ]; then
		echo "read-only and full disk: skipped: cannot mount a tmpfs here"
	else
		[ "$rc" = 0 ] || fail "namespace part exited $rc"
		grep -qx "ro exit 1" "$TMP/ns" || fail "read-only store: want exit 1"
		grep -q "ro: changed" "$TMP/ns" && fail "read-only store: the database changed"
		grep -q '^none ' "$TMP/ro.out" || fail "read-only store: no table"
		grep -q "^tracetax: error: cannot record the run.* '$TMP/fs/r.db': .*\(readonly\|Read-only\)" "$TMP/ro.err" ||
			fail "read-only: $(cat "$TMP/ro.err")"
		grep -qx "full exit 1" "$TMP/ns" || fail "full disk: want exit 1"
		grep -q '^none ' "$TMP/full.out" || fail "full disk: no table"
		grep -q "^tracetax: error: cannot record the run.* '$TMP/fs/r.db': .*\(disk is full\|No space left\)" "$TMP/full.err" ||
			fail "full disk: $(cat "$TMP/full.err")"
		for f in ro full; do
			[ "$(others "$TMP/$f.err" | grep -c '^tracetax: ')" = 1 ] ||
				fail "$f: want one line: $(cat "$TMP/$f.err")"
		done
		grep -qx "full runs 1" "$TMP/ns" || fail "full disk: want the one run of before"
		echo "read-only: $(grep cannot "$TMP/ro.err")"
		echo "full: $(grep cannot "$TMP/full.err")"
	fi
fi

# Two writers at once: import 8 documents each, at the same time.
docs=()
for i in 1 2 3 4 5 6 7 8; do docs+=(tests/fixtures/docs/small.json); done
"$TT" import "${docs[@]}" --store "$TMP/two.db" >"$TMP/w1" 2>&1 &
p1=$!
"$TT" import "${docs[@]}" --store "$TMP/two.db" >"$TMP/w2" 2>&1 &
p2=$!
wait $p1 || fail "writer 1 exited $?: $(cat "$TMP/w1")"
wait $p2 || fail "writer 2 exited $?: $(cat "$TMP/w2")"
grep -q locked "$TMP/w1" "$TMP/w2" && fail "database is locked"
[ "$(runs_in "$TMP/two.db")" = 16 ] || fail "two writers: want 16 runs"
echo "two writers: 16 runs"

# Version 1 (documents alone) is migrated to the current version on open.
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(open(sys.argv[2]).read()); c.close()' \
	"$TMP/v1.db" tests/fixtures/store-v1.sql || fail "cannot build the version 1 store"
"$TT" history -t 'bpf:tp/count' --store "$TMP/v1.db" >"$TMP/v1.out" 2>&1 || fail "history on v1: $(cat "$TMP/v1.out")"
[ "$(grep -c '^ *[0-9]' "$TMP/v1.out")" = 2 ] || fail "v1: want 2 runs: $(cat "$TMP/v1.out")"
[ "$(grep -c 'bpf:tp/count .* ns/event' "$TMP/v1.out")" = 4 ] || fail "v1: want 4 cells: $(cat "$TMP/v1.out")"
python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA user_version").fetchone()[0])' \
	"$TMP/v1.db" | grep -qx 5 || fail "v1: not at version 5 after the migration"
"$TT" show 2 --store "$TMP/v1.db" | grep -q '^bpf:tp/count ' || fail "v1: show 2"
# and a newer version is refused, not touched
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 6"); c.commit()' "$TMP/v1.db"
"$TT" history --store "$TMP/v1.db" >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 1 ] || fail "newer store: exit $rc"
grep -q "has schema version 6, newer than this tracetax's 5: use a newer tracetax" "$TMP/err" || fail "newer: $(cat "$TMP/err")"
echo "migrated: $(head -2 "$TMP/v1.out" | tail -1)"
assert_clean
