# Lost events are counted, never hidden: with buffers sized by tracetax a
# run loses nothing; with a buffer made deliberately tiny the same run loses
# events, and every one of them is still a hit (seen, then dropped), so
# hits == events holds while lost > 0.
. "$(dirname "$0")/lib.sh"
need_root

# run NAME [ENV...]: one cell, 200k getpid per thread, JSON in $TMP/NAME.json.
# The tiny-buffer runs use one thread per CPU, so that a reader must compete
# with the workload for a CPU: it then cannot keep up, whatever the machine.
run() {
	local name=$1 threads=1; shift
	[ $# -gt 0 ] && threads=$(nproc)
	env "$@" "$TT" run -q -w getpid -t "$tracer" -T "$threads" -n 200000 --reps 1 \
		--json "$TMP/$name.json" >"$TMP/out" 2>&1 ||
		fail "$tracer ($*): $(cat "$TMP/out")"
}
check() {  # check NAME lost|none
	python3 - "$TMP/$1.json" "$2" "$tracer" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))["cells"][0]
want, name = sys.argv[2], sys.argv[3]
r = c["runs"][0]
msg = "%s: hits %s lost %s events %s" % (name, r["hits"], r["lost"], r["events"])
print(msg)
if c["status"] != "ok" or r["hits"] != r["events"]:
    print("FAIL: hits must equal events:", msg, c["reason"]); sys.exit(1)
if want == "lost" and not r["lost"] > 0:
    print("FAIL: a tiny buffer lost nothing:", msg); sys.exit(1)
if want == "none" and r["lost"] != 0:
    print("FAIL: buffer sized by tracetax lost events:", msg); sys.exit(1)
if want == "lost" and "lost" not in (c["note"] or ""):
    print("FAIL: lost events not in the note:", c["note"]); sys.exit(1)
PY
}

tested=0
for tracer in ftrace:syscall/noread ftrace:syscall/read ftrace:syscall/splice ftrace:syscall/mmap \
	      ftrace:syscall/pipe ftrace:raw/mmap; do
	available "$tracer" | grep -q . || continue
	f=${tracer#ftrace:}; f=${f%%/*}-${f##*/}
	run "$f-ok"; check "$f-ok" none
	# with a reader, 16 KiB may still be enough (splice is fast): then it
	# loses nothing and that is right too; hits must stay exact either way
	run "$f-tiny" TRACETAX_FTRACE_BUFFER_KB=16; check "$f-tiny" "$([ "$f" = syscall-noread ] && echo lost || echo any)"
	tested=$((tested + 1))
done
# A reader that cannot keep up, whatever the machine: the fault switch keeps
# the mmap readers asleep until the drain, so 16 KiB must overflow; the
# meta pages' counts must still add up to every event. The trace_pipe
# reader then reads "[LOST N EVENTS]" lines, which are not events: its lines
# counted must still equal the kernel's read events.
for tracer in ftrace:syscall/mmap ftrace:raw/mmap ftrace:syscall/pipe; do
	available "$tracer" | grep -q . || continue
	f=${tracer#ftrace:}; f=${f%%/*}-stalled
	run "$f" TRACETAX_FTRACE_BUFFER_KB=16 TRACETAX_FAULT="$tracer@stall-reader"; check "$f" lost
done
tracer=perf:sample
if available "$tracer" | grep -q .; then
	run perf-ok; check perf-ok none
	run perf-tiny TRACETAX_PERF_PAGES=1; check perf-tiny lost
	tested=$((tested + 1))
fi
for tracer in bpf:tp/ringbuf bpf:tp/ringbuf-batch; do
	available "$tracer" | grep -q . || continue
	f=${tracer##*/}
	run "$f-ok"; check "$f-ok" none
	run "$f-tiny" TRACETAX_RINGBUF_BYTES=4096; check "$f-tiny" lost
	tested=$((tested + 1))
done
[ "$tested" -gt 0 ] || skip "no buffered tracer available"
assert_clean
