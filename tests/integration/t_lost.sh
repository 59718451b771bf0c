# Lost events are counted, never hidden: with buffers sized by tracetax a
# run loses nothing; with a buffer made deliberately tiny the same workload loses
# events, and every one of them is still a hit (seen, then dropped), so
# hits == events holds while lost > 0.
. "$(dirname "$0")/lib.sh"
need_root

# run NAME THREADS N TRACERS [ENV...]: one cell per tracer, N getpid per
# thread, JSON in $TMP/NAME.json. The tiny-buffer runs use one thread per
# CPU, so that a reader must compete with the workload for a CPU: it then
# cannot keep up, whatever the machine. The tracers share a run (the
# environment variables each size one family's buffers): a run per tracer
# cost each its start-up, and every BPF run its own measure of what stats cost.
# Sized buffers are held to 200k a thread; a tiny one overflows within a few
# hundred events, and lost 40 to 99% of 200k: 50k make it lose as surely.
run() {
	local name=$1 threads=$2 n=$3 tracers=$4; shift 4
	env "$@" "$TT" run -q -w getpid -t "$tracers" -T "$threads" -n "$n" --reps 1 \
		--json "$TMP/$name.json" >"$TMP/out" 2>&1 ||
		fail "$tracers ($*): $(cat "$TMP/out")"
}
check() {  # check NAME TRACER=lost|none|any...: one python for every cell of a run
	python3 - "$TMP/$1.json" "${@:2}" <<'PY' || exit 1
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
bad = 0
for arg in sys.argv[2:]:
    name, want = arg.rsplit("=", 1)
    mine = [c for c in cells if c["tracer"] == name]
    if len(mine) != 1:
        print("FAIL: %d cells of %s in the run" % (len(mine), name)); bad = 1; continue
    c = mine[0]
    r = c["runs"][0]
    msg = "%s: hits %s lost %s events %s" % (name, r["hits"], r["lost"], r["events"])
    print(msg)
    if c["status"] != "ok" or r["hits"] != r["events"]:
        print("FAIL: hits must equal events:", msg, c["reason"]); bad = 1
    elif want == "lost" and not r["lost"] > 0:
        print("FAIL: a tiny buffer lost nothing:", msg); bad = 1
    elif want == "none" and r["lost"] != 0:
        print("FAIL: buffer sized by tracetax lost events:", msg); bad = 1
    elif want == "lost" and "lost" not in (c["note"] or ""):
        print("FAIL: lost events not in the note:", c["note"]); bad = 1
sys.exit(bad)
PY
}
list() { tr '\n' ',' | sed 's/,$//'; }

# ftrace: with a reader, 16 KiB may still be enough (splice is fast): then it
# loses nothing and that is right too; hits must stay exact either way.
# perf:sample and the ring buffers: a tiny buffer loses. ringbuf-batch first:
# the first BPF cell of a run also measures what BPF stats cost, and it is the
# cheaper of the two.
ftrace=$(for t in ftrace:syscall/noread ftrace:syscall/read ftrace:syscall/splice ftrace:syscall/mmap \
	ftrace:syscall/pipe ftrace:raw/mmap; do available "$t"; done)
others=$(for t in perf:sample bpf:tp/ringbuf-batch bpf:tp/ringbuf; do available "$t"; done)
tracers=$(echo "$ftrace $others" | xargs -n1 | list)
[ -n "$tracers" ] || skip "no buffered tracer available"
run ok 1 200000 "$tracers"
check ok $(for t in $ftrace $others; do echo "$t=none"; done)
run tiny "$(nproc)" 50000 "$tracers" TRACETAX_FTRACE_BUFFER_KB=16 TRACETAX_PERF_PAGES=1 TRACETAX_RINGBUF_BYTES=4096
check tiny $(for t in $ftrace $others; do
	case $t in ftrace:syscall/noread|perf:*|bpf:*) echo "$t=lost" ;; *) echo "$t=any" ;; esac
done)
# A reader that cannot keep up, whatever the machine: the fault switch keeps
# the mmap readers asleep until the drain, so 16 KiB must overflow; the
# meta pages' counts must still add up to every event. The trace_pipe
# reader then reads "[LOST N EVENTS]" lines, which are not events: its lines
# counted must still equal the kernel's read events.
stalled=$(for t in ftrace:syscall/mmap ftrace:raw/mmap ftrace:syscall/pipe; do available "$t"; done)
if [ -n "$stalled" ]; then
	run stalled "$(nproc)" 50000 "$(echo "$stalled" | list)" TRACETAX_FTRACE_BUFFER_KB=16 \
		TRACETAX_FAULT="$(for t in $stalled; do echo "$t@stall-reader"; done | list)"
	check stalled $(for t in $stalled; do echo "$t=lost"; done)
fi
assert_clean
