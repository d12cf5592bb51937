#!/usr/bin/env bash
# run.sh times rocetrace against cat (and tshark) on the same captures, in
# one go and alternating, and prints the BENCHMARKS.md table: medians of the
# wall-clock time, the ratios rocetrace/cat and tshark/rocetrace, and peak
# RSS (maximum resident set, /usr/bin/time %M).
#
#   bench/run.sh [-r ROUNDS] [-t TSHARK_ROUNDS] [-x] FILE...
#
# Each round runs, one after the other on each file:
#   cat F >/dev/null
#   rocetrace report F >/dev/null
#   rocetrace report --json F >/dev/null
#   rocetrace export --force -o DIR F >/dev/null   (skipped when export does not work in this build, or with -x)
#   tshark -r F -T fields -e infiniband.bth.psn >/dev/null
#       (when installed; only on captures of at most $TSHARK_MAX_FRAMES
#       frames, default 1000010, and in the first TSHARK_ROUNDS rounds,
#       default 1: it needs ~40 s per million frames)
# so that a noisy neighbour slows every command alike; the ratios are taken
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
while getopts "r:t:x" opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	t) trounds=$OPTARG ;;
	x) noexport=1 ;;
	*) echo "usage: $0 [-r ROUNDS] [-t TSHARK_ROUNDS] [-x] FILE..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# = 0 ]; then
	echo "usage: $0 [-r ROUNDS] [-t TSHARK_ROUNDS] [-x] FILE...  (make files with bench/gen.sh)" >&2
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
echo "CPU seconds (user+sys), medians:"
echo
echo "| capture | cat | report | report --json | export | tshark |"
echo "|---|---:|---:|---:|---:|---:|"
for f in "$@"; do
	echo "| $(basename "$f") | $(median cat "$f" 7) | $(median report "$f" 7) | $(median json "$f" 7) | $(median export "$f" 7) | $(median tshark "$f" 7) |"
done
echo
echo "Times are medians of wall-clock seconds; ratios are of those medians; RSS is the largest of the rounds."
for n in "${notes[@]}"; do echo "Note: $n"; done
echo "Raw samples: $raw"
