#!/bin/bash
# Back-to-back runs of one plan, each run's --json kept, for the studies of
# docs/method.md §5c. Usage: runs.sh OUTDIR LABEL COUNT [tracetax run options...]
# Writes OUTDIR/LABEL-N.json and appends "LABEL N start_epoch_s wall_s" to
# OUTDIR/index.txt. wall_s is the run's own elapsed_s (lock waits excluded).
set -eu
out=$1 label=$2 count=$3
shift 3
tt=${TRACETAX:-build/tracetax}
mkdir -p "$out"
for ((i = 1; i <= count; i++)); do
	start=$(date +%s.%N)
	"$tt" run "$@" --json "$out/$label-$i.json" --no-store >/dev/null 2>"$out/$label-$i.err" || true
	w=$(jq -r .elapsed_s "$out/$label-$i.json" 2>/dev/null || echo nan)
	echo "$label $i $start $w" >>"$out/index.txt"
done
