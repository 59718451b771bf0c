#!/bin/bash
# CI width against wall time (issue 15, defect 12): the four rep/run-ms
# splits of about the same timed work, interleaved, ROUNDS times.
# Usage: width.sh OUTDIR [ROUNDS]; then width.py OUTDIR/index.txt
set -eu
out=$1 rounds=${2:-3}
here=$(dirname "$0")
for ((k = ${FIRST:-1}; k < ${FIRST:-1} + rounds; k++)); do
	for cfg in "6 100" "12 50" "24 25" "48 12"; do
		set -- $cfg
		"$here/runs.sh" "$out" "r$1x$2" 1 -t none,bpf:tp/count,ftrace:syscall/noread \
			--reps "$1" --run-ms "$2" --seed "$k"
		# runs.sh numbers each label's runs from 1: keep them apart
		mv "$out/r$1x$2-1.json" "$out/r$1x$2-k$k.json"
		mv "$out/r$1x$2-1.err" "$out/r$1x$2-k$k.err"
		sed -i "\$s/^r$1x$2 1 /r$1x$2 k$k /" "$out/index.txt"
	done
done
