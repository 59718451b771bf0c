# make install DESTDIR=... puts tracetax, its load, libraries, experiments,
# man page and bash completion where they belong; the installed tree, moved
# elsewhere (nothing points back to the source tree), runs `list`, shows an
# experiment and a short run whose libraries it found itself (preload on a
# libc call, a uprobe on libtracetax-target.so: hits == events); man -l
# renders the page with its sections; the completion offers commands,
# tracer, workload and experiment names; make uninstall removes every file.
. "$(dirname "$0")/lib.sh"
need_root
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v man >/dev/null || skip "no man (Debian: man-db)"
san=
case $B in *build-san*) san=SAN=1 ;; esac

make --no-print-directory -C "$ROOT" $san install DESTDIR="$TMP/dest" PREFIX=/usr/local \
	>"$TMP/make.out" 2>&1 || fail "make install exited $?: $(cat "$TMP/make.out")"
P=$TMP/dest/usr/local
for f in bin/tracetax lib/tracetax/tracetax-load lib/tracetax/libtracetax-target.so \
	 lib/tracetax/libtracetax-preload.so share/man/man1/tracetax.1 \
	 share/bash-completion/completions/tracetax share/tracetax/experiments/close-1000.tt; do
	[ -e "$P/$f" ] || fail "make install: no $f: $(cd "$TMP/dest" && find . -type f)"
done
[ -x "$P/bin/tracetax" ] && [ -x "$P/lib/tracetax/tracetax-load" ] || fail "programs not executable"

# moved as a whole: it must find everything relative to itself
mkdir "$TMP/elsewhere"
cp -a "$P" "$TMP/elsewhere/opt"
I=$TMP/elsewhere/opt
cd "$TMP" || fail "cd"
env -u TRACETAX_LOAD -u TRACETAX_EXPERIMENTS "$I/bin/tracetax" list >"$TMP/list.out" 2>&1 ||
	fail "installed list exited $?: $(cat "$TMP/list.out")"
grep -q '^ *func-usdt' "$TMP/list.out" || fail "installed list: no workloads: $(cat "$TMP/list.out")"
grep -Eq '^ *preload .*available' "$TMP/list.out" ||
	fail "installed list: preload not available: $(grep preload "$TMP/list.out")"
env -u TRACETAX_EXPERIMENTS "$I/bin/tracetax" experiment show close-1000 >"$TMP/exp.out" 2>&1 ||
	fail "installed experiment show exited $?: $(cat "$TMP/exp.out")"
"$I/bin/tracetax" run -q -w getpid-libc,func -t none,preload,bpf:uprobe/count --reps 2 --run-ms 30 \
	--json "$TMP/r.json" >"$TMP/run.out" 2>&1; rc=$?
# exit 3: another tracer came or went on this shared machine; the figures stand, marked
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "installed run exited $rc: $(cat "$TMP/run.out")"
python3 - "$TMP/r.json" <<'PY' || fail "the installed run's cells"
import json, sys
cells = {(c["workload"], c["tracer"]): c for c in json.load(open(sys.argv[1]))["cells"]}
for key in (("getpid-libc", "preload"), ("func", "bpf:uprobe/count")):
    c = cells[key]
    if c["status"] != "ok" or c["hits"] != c["events"]:
        sys.exit(f"{key}: {c['status']} {c['reason']} hits {c['hits']} events {c['events']}")
print("installed run: preload and bpf:uprobe/count ok, hits == events")
PY
cd "$ROOT" || fail "cd"

# the man page renders, with the sections a man page has
MANWIDTH=80 man -l "$P/share/man/man1/tracetax.1" >"$TMP/man.out" 2>"$TMP/man.err" ||
	fail "man -l exited $?: $(cat "$TMP/man.err")"
[ -s "$TMP/man.err" ] && fail "man -l warns: $(cat "$TMP/man.err")"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS 'RUN OPTIONS' 'EXIT STATUS' ENVIRONMENT FILES EXAMPLES; do
	grep -q "^$s" "$TMP/man.out" || fail "man page: no section $s"
done
# every command and every run option of --help is in it
for c in run budget list clocks pair cleanup history show compare export import report experiment vm; do
	grep -Eq "^ +tracetax $c" "$TMP/man.out" || fail "man page: no synopsis of $c"
done
for o in $("$TT" run --help | grep -o -- '--[a-z-]*' | sort -u); do
	grep -q -- "$o" "$TMP/man.out" || fail "man page: no $o"
done
echo "man -l: $(wc -l <"$TMP/man.out") lines, every command and run option"

# completion: commands, tracer, workload and experiment names
complete_words() {  # complete_words WORD...: what the completion offers for the last
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tracetax
		printf "%s\n" "${COMPREPLY[@]}"' - "$P/share/bash-completion/completions/tracetax" "$@" 2>/dev/null
}
complete_words "$I/bin/tracetax" rep | grep -qx report || fail "completion: no command"
complete_words "$I/bin/tracetax" run -t none,bpf:tp/co | grep -qx 'none,bpf:tp/count' ||
	fail "completion: no tracer: $(complete_words "$I/bin/tracetax" run -t none,bpf:tp/co)"
complete_words "$I/bin/tracetax" run -w func-u | grep -qx func-usdt || fail "completion: no workload"
complete_words "$I/bin/tracetax" experiment run clo | grep -qx close-1000 || fail "completion: no experiment"
complete_words "$I/bin/tracetax" history --b | grep -qx -- --by || fail "completion: no history option"
echo "completion: commands, tracers, workloads, experiments"

make --no-print-directory -C "$ROOT" $san uninstall DESTDIR="$TMP/dest" PREFIX=/usr/local \
	>"$TMP/make.out" 2>&1 || fail "make uninstall exited $?: $(cat "$TMP/make.out")"
left=$(cd "$TMP/dest" && find . -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
[ -e "$P/lib/tracetax" ] && fail "make uninstall left lib/tracetax"
assert_clean
echo "ok"
