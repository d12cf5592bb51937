#!/usr/bin/env bash
# run.sh times rocetrace against cat (and tshark) on the same captures, in
# one go and alternating, and prints the BENCHMARKS.md table: medians of the
# wall-clock time, the ratios rocetrace/cat and tshark/rocetrace, and peak
# RSS (maximum resident set, /usr/bin/time %M).
#
#   bench/run.sh [-r ROUNDS] [-t TSHARK_ROUNDS] [-x] [-q "QPS..."] FILE...
#
# Each round runs, one after the other on each file:
#   cat F >/dev/null
#   rocetrace report F >/dev/null
#   rocetrace report --json F >/dev/null
#   rocetrace export --force -o DIR F >/dev/null   (skipped when export does not work in this build, or with -x)
#   handparse -q F   (the bare-parser ceiling of issue 20, built from
#       $HANDPARSE_SRC, default ../shared/bench/handparse next to the
#       repository; skipped with a note when absent)
#   tui.test -test.bench LoadFile   (the TUI's full load of F: Open,
#       every frame indexed, the final report; tui's BenchmarkLoadFile, one
#       iteration, built once with go test -c and the binary's PGO profile)
#   tshark -r F -T fields -e infiniband.bth.psn >/dev/null
#       (when installed; only on captures of at most $TSHARK_MAX_FRAMES
#       frames, default 1000010, and in the first TSHARK_ROUNDS rounds,
#       default 1: it needs ~40 s per million frames)
# With -q "40000 200000 1000000" it then runs the flow-scale series: for
# each QP count N a capture of max(1M, 2N) frames ($SCALE_MIN_FRAMES for 1M) from bench/cmd/gencap
# -qps N (2N flows), made once in $BENCH_DIR (default
# /tmp/rocetrace-bench), timed ROUNDS times with report --json and export,
# and tabled with CPU time and peak RSS per flow and the extra RSS per
# extra flow between consecutive sizes (the memory of an idle flow).
#
# The rounds alternate the commands so that a noisy neighbour slows every command alike; the ratios are taken
# from medians of the same run. ROUNDS defaults to 5. An untimed `cat` before
# each round's commands on a file brings it (back) into the page cache, so
# that every timed command, `cat` included, reads a cached file: the 10M
# captures and the exports' output do not all stay cached together on a
# 24 GB machine, and a timed `cat` that read from disk would flatter the
# commands after it.
#
# The binary is built from this tree (go build ./cmd/rocetrace) unless
# $ROCETRACE names one. Raw samples (command, wall s, user s, sys s, RSS KB)
# (command, file, wall s, user s, sys s, RSS KB, CPU s = user+sys) go to
# $BENCH_OUT (default: a temporary directory), raw.tsv. A second table gives
# the median CPU time of each command (10 ms resolution): on a shared
# machine it is the steadier measure of the work done.
set -euo pipefail

rounds=5
trounds=1
noexport=0
scale=""
while getopts "r:t:xq:" opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	t) trounds=$OPTARG ;;
	x) noexport=1 ;;
	q) scale=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-t TSHARK_ROUNDS] [-x] [-q \"QPS...\"] FILE..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# = 0 ]; then
	echo "usage: $0 [-r ROUNDS] [-t TSHARK_ROUNDS] [-x] [-q \"QPS...\"] FILE...  (make files with bench/gen.sh)" >&2
	exit 2
fi
[ -x /usr/bin/time ] || { echo "run.sh: needs /usr/bin/time (GNU time) for peak RSS" >&2; exit 2; }

out=${BENCH_OUT:-$(mktemp -d /tmp/rocetrace-run.XXXXXX)}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
rt=${ROCETRACE:-}
if [ -z "$rt" ]; then
	rt="$out/rocetrace"
	(cd "$root" && go build -o "$rt" ./cmd/rocetrace)
fi
hp=""
hpsrc=${HANDPARSE_SRC:-$root/../shared/bench/handparse}
if [ -f "$hpsrc/main.go" ] && (cd "$hpsrc" && go build -o "$out/handparse" .) 2>"$out/handparse-build.err"; then
	hp="$out/handparse"
fi
tuitest="$out/tui.test"
# Built with the binary's profile (cmd/rocetrace/default.pgo, which go build
# uses by itself), so that the TUI's load and report compare like for like.
pgo=off
[ -f "$root/cmd/rocetrace/default.pgo" ] && pgo="$root/cmd/rocetrace/default.pgo"
(cd "$root" && go test -c -pgo="$pgo" -o "$tuitest" ./tui) || tuitest=""
tshark_max=${TSHARK_MAX_FRAMES:-1000010}
have_tshark=0
command -v tshark >/dev/null 2>&1 && have_tshark=1
raw="$out/raw.tsv"
: >"$raw"
notes=()

# sample NAME FILE CMD... runs CMD once and appends "NAME FILE wall user sys rss".
sample() {
	local name=$1 file=$2
	shift 2
	local t0 t1 st=0
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/stderr.txt" || st=$?
	t1=$(date +%s%N)
	if [ $st != 0 ]; then
		echo "run.sh: $name on $file: exit status $st: $(tail -3 "$out/stderr.txt")" >&2
		return 1
	fi
	read -r u s m <"$out/time.txt"
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$file" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", (b-a)/1e9}')" "$u" "$s" "$m" "$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')" >>"$raw"
}

# Does export work in this build?
do_export=0
if [ $noexport = 0 ]; then
	if "$rt" export --force -o "$out/export-check" "$1" >/dev/null 2>"$out/export-check.err"; then
		do_export=1
	else
		notes+=("export skipped: \`rocetrace export\` failed in this build: $(head -1 "$out/export-check.err")")
	fi
	rm -rf "$out/export-check"
else
	notes+=("export skipped (-x)")
fi
[ $have_tshark = 1 ] || notes+=("tshark not installed: skipped")
[ -n "$hp" ] || notes+=("handparse skipped: no $hpsrc/main.go (or it did not build)")
[ -n "$tuitest" ] || notes+=("tui load skipped: go test -c ./tui failed")

declare -A frames
for f in "$@"; do
	cat "$f" >/dev/null
	frames[$f]=$("$rt" report --json "$f" | awk -F'[:,]' '/"packets"/ && !done {gsub(/ /,"",$2); print $2; done=1}')
done

for ((r = 1; r <= rounds; r++)); do
	for f in "$@"; do
		echo "round $r/$rounds: $f" >&2
		cat "$f" >/dev/null # untimed: the file may have left the page cache since the last round
		sample cat "$f" cat "$f"
		sample report "$f" "$rt" report "$f"
		sample json "$f" "$rt" report --json "$f"
		if [ $do_export = 1 ]; then
			sample export "$f" "$rt" export --force -o "$out/export" "$f"
			rm -rf "$out/export"
		fi
		[ -z "$hp" ] || sample handparse "$f" "$hp" -q "$f"
		[ -z "$tuitest" ] || sample tui "$f" env ROCETRACE_BENCH_FILE="$f" "$tuitest" -test.run '^$' -test.bench LoadFile -test.benchtime 1x
		if [ $have_tshark = 1 ] && [ "$r" -le "$trounds" ] && [ "${frames[$f]:-0}" -le "$tshark_max" ]; then
			sample tshark "$f" tshark -r "$f" -T fields -e infiniband.bth.psn
		fi
	done
done

# median NAME FILE COLUMN prints the median of a column (3 wall, 6 RSS KB, 7 CPU).
median() {
	awk -F'\t' -v n="$1" -v f="$2" -v c="$3" '$1==n && $2==f {print $c}' "$raw" | sort -g |
		awk '{v[NR]=$1} END{if (NR==0) {print ""} else if (NR%2) {print v[(NR+1)/2]} else {printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}}'
}
maxcol() {
	awk -F'\t' -v n="$1" -v f="$2" -v c="$3" '$1==n && $2==f && $c>m {m=$c} END{if (m!="") print m}' "$raw"
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN{if (b>0) printf "%.2f", a/b}'; }
secs() { [ -n "$1" ] && awk -v a="$1" 'BEGIN{printf "%.3f", a}'; }
mb() { [ -n "$1" ] && awk -v a="$1" 'BEGIN{printf "%.0f", a/1024}'; }

echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(go version 2>/dev/null | awk '{print $3}'), $rounds rounds (tshark: $trounds)"
echo
echo "| capture | frames | MB | cat s | report s | report --json s | export s | tshark s | report/cat | json/cat | export/report | tshark/report | RSS MB report / json / export |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for f in "$@"; do
	c=$(median cat "$f" 3)
	rp=$(median report "$f" 3)
	js=$(median json "$f" 3)
	ex=$(median export "$f" 3)
	ts=$(median tshark "$f" 3)
	size=$(stat -c %s "$f")
	echo "| $(basename "$f") | ${frames[$f]} | $((size / 1000000)) | $(secs "$c") | $(secs "$rp") | $(secs "$js") | $(secs "$ex") | $(secs "$ts") |" \
		"$(ratio "$rp" "$c") | $(ratio "$js" "$c") | $(ratio "$ex" "$rp") | $(ratio "$ts" "$rp") |" \
		"$(mb "$(maxcol report "$f" 6)") / $(mb "$(maxcol json "$f" 6)") / $(mb "$(maxcol export "$f" 6)") |"
done
echo
echo "Issue 20 (medians; wall s, CPU s = user+sys in brackets):"
echo
echo "| capture | handparse s | report --json s | json/handparse | export/json | tui load s | tui/json | RSS MB handparse / json / export / tui |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for f in "$@"; do
	h=$(median handparse "$f" 3) js=$(median json "$f" 3) ex=$(median export "$f" 3) tu=$(median tui "$f" 3)
	echo "| $(basename "$f") | $(secs "$h") [$(median handparse "$f" 7)] | $(secs "$js") [$(median json "$f" 7)] | $(ratio "$js" "$h") | $(ratio "$ex" "$js") |" \
		"$(secs "$tu") [$(median tui "$f" 7)] | $(ratio "$tu" "$js") |" \
		"$(mb "$(maxcol handparse "$f" 6)") / $(mb "$(maxcol json "$f" 6)") / $(mb "$(maxcol export "$f" 6)") / $(mb "$(maxcol tui "$f" 6)") |"
done
echo
echo "CPU seconds (user+sys), medians:"
echo
echo "| capture | cat | handparse | report | report --json | export | tui load | tshark |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for f in "$@"; do
	echo "| $(basename "$f") | $(median cat "$f" 7) | $(median handparse "$f" 7) | $(median report "$f" 7) | $(median json "$f" 7) | $(median export "$f" 7) | $(median tui "$f" 7) | $(median tshark "$f" 7) |"
done
if [ -n "$scale" ]; then
	sdir=${BENCH_DIR:-/tmp/rocetrace-bench}
	smin=${SCALE_MIN_FRAMES:-1000000}
	mkdir -p "$sdir"
	(cd "$root" && go build -o "$out/gencap" ./bench/cmd/gencap)
	for q in $scale; do
		sf="$sdir/scale-$q.pcap"
		[ -s "$sf" ] || "$out/gencap" -frames $((2 * q > smin ? 2 * q : smin)) -qps "$q" -snaplen 128 -seed 1 -o "$sf" >/dev/null
	done
	for ((r = 1; r <= rounds; r++)); do
		for q in $scale; do
			sf="$sdir/scale-$q.pcap"
			echo "scale round $r/$rounds: $q QPs" >&2
			cat "$sf" >/dev/null
			sample sjson "$sf" "$rt" report --json "$sf"
			if [ $do_export = 1 ]; then
				sample sexport "$sf" "$rt" export --force -o "$out/export" "$sf"
				rm -rf "$out/export"
			fi
		done
	done
	echo
	echo "Flow scale (gencap -qps N -snaplen 128, 2N flows; medians; CPU us and RSS bytes per flow; extra: RSS growth per extra flow from the previous size):"
	echo
	echo "| QPs | flows | frames | json CPU s | json RSS MB | json us/flow | json B/flow | json extra B/flow | export CPU s | export RSS MB | export B/flow | export extra B/flow |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	pj="" pe="" pn=""
	for q in $scale; do
		sf="$sdir/scale-$q.pcap"
		n=$((2 * q)) fr=$((2 * q > smin ? 2 * q : smin))
		jc=$(median sjson "$sf" 7) jr=$(maxcol sjson "$sf" 6) ec=$(median sexport "$sf" 7) er=$(maxcol sexport "$sf" 6)
		awk -v q="$q" -v n="$n" -v fr="$fr" -v jc="$jc" -v jr="$jr" -v ec="$ec" -v er="$er" -v pj="$pj" -v pe="$pe" -v pn="$pn" 'BEGIN{
			xj = (pn != "") ? sprintf("%.0f", (jr - pj) * 1024 / (n - pn)) : ""
			xe = (pn != "" && er != "") ? sprintf("%.0f", (er - pe) * 1024 / (n - pn)) : ""
			printf "| %d | %d | %d | %s | %.0f | %.2f | %.0f | %s | %s | %.0f | %.0f | %s |\n", q, n, fr, jc, jr/1024, jc*1e6/n, jr*1024/n, xj, ec, er/1024, er*1024/n, xe}'
		pj=$jr pe=$er pn=$n
	done
fi
echo
echo "Times are medians of wall-clock seconds; ratios are of those medians; RSS is the largest of the rounds."
for n in "${notes[@]}"; do echo "Note: $n"; done
echo "Raw samples: $raw"
