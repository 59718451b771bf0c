#!/usr/bin/env python3
"""Issue 33's check: budget --attached's prediction against the measured cost
of a real agent (docs/budget.md, "Checked against real agents").

  python3 scripts/study/attached-check.py BUILD STORE AGENT [AGENT...]

AGENT: bpftrace (a count on sys_enter_getuid), strace (strace -f -p),
perftrace (perf trace -p), ftrace (an instance with sys_enter_getuid read by
cat trace_pipe). For each agent, alone: the loop tt-syscall-mix (getuid +
close(1000) + stat("/tmp") a round), pinned on CPU 1, is timed in blocks of
runs detached and attached, alternating; with it attached and the loop
running, budget --attached --for 5 --store STORE predicts the agent's share
of the box. The measured share: the loop's extra time per round over its
attached time, on one CPU of the box's (the loop is the box's only busy
program: a quiet box). STORE must hold the costs, stored before (no agent
attached), e.g.:
  tracetax run -t bpf:tp/count,strace,perf-trace,ftrace:syscall/pipe -w getpid,getuid,stat -r 8 --placement rotate --store STORE
  tracetax run -t bpf:tp/count,ftrace:syscall/pipe,perf-trace -w getpid --target close -r 8 --placement rotate --store STORE
"""
import json, os, signal, statistics, subprocess, sys, time

B, STORE, AGENTS = sys.argv[1], sys.argv[2], sys.argv[3:]
TT, MIX = f"{B}/tracetax", f"{B}/tests/tt-syscall-mix"
T = "/sys/kernel/tracing"
N = int(os.environ.get("ROUNDS", "1000000"))
# strace and perf trace make a round 100 and 30 times dearer: fewer rounds
# keep their blocks to seconds (ROUNDS_STRACE, ROUNDS_PERFTRACE)
ROUNDS = {"strace": int(os.environ.get("ROUNDS_STRACE", N // 100)),
          "perftrace": int(os.environ.get("ROUNDS_PERFTRACE", N // 20))}
BLOCKS = int(os.environ.get("BLOCKS", "4"))
PER = int(os.environ.get("PER", "4"))


def timed(n):
    t = time.monotonic()
    subprocess.run(["taskset", "-c", "1", MIX, str(n)], check=True)
    return (time.monotonic() - t) / n


def attach(agent, target):
    """Start the agent on @target (a pid); returns (procs, cleanup)."""
    if agent == "bpftrace":
        p = subprocess.Popen(["bpftrace", "-e", "tracepoint:syscalls:sys_enter_getuid { @calls = count(); }"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        while "Attaching" not in p.stdout.readline():
            pass
        return [p], None
    if agent == "strace":
        return [subprocess.Popen(["strace", "-f", "-p", str(target), "-o", "/dev/null"],
                                 stderr=subprocess.DEVNULL)], None
    if agent == "perftrace":
        p = subprocess.Popen(["perf", "trace", "-p", str(target), "-o", "/dev/null"], stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        return [p], None
    if agent == "ftrace":
        inst = f"{T}/instances/chk-{os.getpid()}"
        os.mkdir(inst)
        open(f"{inst}/set_event", "w").write("syscalls:sys_enter_getuid\n")
        p = subprocess.Popen(["cat", f"{inst}/trace_pipe"], stdout=subprocess.DEVNULL)
        time.sleep(0.5)

        def gone():
            open(f"{inst}/set_event", "w").write("\n")
            os.rmdir(inst)
        return [p], gone
    raise SystemExit(f"unknown agent {agent}")


def detach(procs, gone):
    for p in procs:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if gone:
        gone()


def pid_agent(agent):
    """Agents that attach to a pid: the loop they watch must exist first"""
    return agent in ("strace", "perftrace")


def check(agent):
    n = ROUNDS.get(agent, N)
    # the prediction: the agent on the loop, the loop running
    loop = subprocess.Popen(["taskset", "-c", "1", MIX, "2000000000"])
    procs, gone = attach(agent, loop.pid)
    try:
        js = f"{os.path.dirname(os.path.abspath(STORE))}/attached-{agent}.json"
        out = subprocess.run([TT, "budget", "--attached", "--for", "5", "--store", STORE, "--no-store",
                              "--json", js], capture_output=True, text=True, check=True).stdout
        open(js[:-5] + ".txt", "w").write(out)
    finally:
        detach(procs, gone)
        loop.kill()
        loop.wait()
    d = json.load(open(js))
    pids = {p.pid for p in procs}
    rows = [c for c in d["consumers"] if pids & {h["pid"] for h in c["holders"]}]
    seen = sum(c["cost"]["share_pct"] or 0 for c in rows)
    coll = sum(c["collateral"]["share_pct"] or 0 for c in rows)
    lo = sum((c["cost"]["share_ci95"][0] or 0) + (c["collateral"]["share_ci95"][0] or 0) for c in rows)
    hi = sum((c["cost"]["share_ci95"][1] or 0) + (c["collateral"]["share_ci95"][1] or 0) for c in rows)
    # the measurement: blocks of runs detached, attached, alternating
    det, att = [], []
    for b in range(BLOCKS):
        for attached in ((False, True) if b % 2 == 0 else (True, False)):
            if attached:
                if pid_agent(agent):
                    # the agent attaches to each run: its loop waits on a pipe until it is on
                    for _ in range(PER):
                        r, w = os.pipe()
                        lp = subprocess.Popen(["sh", "-c", f"read x <&{r}; exec taskset -c 1 {MIX} {n}"],
                                              pass_fds=(r,))
                        pr, gn = attach(agent, lp.pid)
                        time.sleep(1.0 if agent == "strace" else 0)
                        t = time.monotonic()
                        os.write(w, b"g\n")
                        lp.wait()
                        att.append((time.monotonic() - t) / n)
                        detach(pr, gn)
                        os.close(r)
                        os.close(w)
                else:
                    pr, gn = attach(agent, 0)
                    att += [timed(n) for _ in range(PER)]
                    detach(pr, gn)
            else:
                det += [timed(n) for _ in range(PER)]
    md, ma = statistics.median(det), statistics.median(att)
    measured = (ma - md) / ma / d["cpus"] * 100
    err = (seen + coll - measured) / measured * 100
    print(json.dumps({"agent": agent, "predicted_pct": seen + coll, "predicted_ci95": [lo, hi],
                      "seen_pct": seen, "collateral_pct": coll, "measured_pct": measured,
                      "round_ns_detached": md * 1e9, "round_ns_attached": ma * 1e9,
                      "error_pct": err, "rows": [(c["key"], c["cost"]["workloads"],
                                                  c["cost"]["tracer_ns_per_event"],
                                                  c["collateral"]["ns_per_syscall"]) for c in rows]}))
    sys.stdout.flush()


for a in AGENTS:
    check(a)
