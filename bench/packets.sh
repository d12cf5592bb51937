#!/usr/bin/env bash
# packets.sh times `rocetrace packets` against tshark on the same captures
# (issue 20: "packets --json and packets -Y rates stated in frames/s against
# tshark's -T fields and -Y"), alternating, and prints medians, frames/s and
# the ratio tshark/rocetrace.
#
#   bench/packets.sh [-r ROUNDS] [-t TSHARK_ROUNDS] FILE...
#
# Each round runs, on each file:
#   rocetrace packets --json F                    (every field of every frame)
#   rocetrace packets -T fields $FIELDS F         (the fields tshark prints below)
#   tshark -r F -T fields $FIELDS                 (first TSHARK_ROUNDS rounds)
#   rocetrace packets -Y "$EXPR" -T fields -e frame.number F
#   tshark -r F -Y "$EXPR" -T fields -e frame.number   (first TSHARK_ROUNDS rounds)
# FIELDS = frame.number ip.src ip.dst infiniband.bth.opcode
# infiniband.bth.destqp infiniband.bth.psn; EXPR (override with $EXPR) =
# CE-marked or NAK/RNR frames. The first round also checks that rocetrace's
# -T fields and -Y outputs are byte-identical to tshark's (a mismatch is
# reported and the script exits 1 at the end). tshark needs ~30 s per million
# frames for -T fields, so TSHARK_ROUNDS defaults to 1 (ROUNDS to 5).
# ROCETRACE=path times a given binary instead of building this tree. Raw
# samples go to $BENCH_OUT (default: a temporary directory), raw.tsv.
set -euo pipefail

rounds=5
trounds=1
while getopts "r:t:" opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	t) trounds=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-t TSHARK_ROUNDS] FILE..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# = 0 ]; then
	echo "usage: $0 [-r ROUNDS] [-t TSHARK_ROUNDS] FILE...  (make files with bench/gen.sh)" >&2
	exit 2
fi
[ -x /usr/bin/time ] || { echo "packets.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }
command -v tshark >/dev/null 2>&1 || { echo "packets.sh: needs tshark" >&2; exit 2; }

out=${BENCH_OUT:-$(mktemp -d /tmp/rocetrace-packets.XXXXXX)}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
rt=${ROCETRACE:-}
if [ -z "$rt" ]; then
	rt="$out/rocetrace"
	(cd "$root" && go build -o "$rt" ./cmd/rocetrace)
fi
fields=(-e frame.number -e ip.src -e ip.dst -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn)
expr=${EXPR:-'ip.dsfield.ecn == 3 || infiniband.aeth.syndrome >= 0x20'}
raw="$out/raw.tsv"
: >"$raw"
bad=0

# sample NAME FILE OUTFILE CMD... runs CMD once, its output to OUTFILE, and
# appends "NAME FILE wall user sys rss cpu" to raw.tsv.
sample() {
	local name=$1 file=$2 o=$3
	shift 3
	local t0 t1 st=0
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S %M" -o "$out/time.txt" "$@" >"$o" 2>"$out/stderr.txt" || st=$?
	t1=$(date +%s%N)
	if [ $st != 0 ]; then
		echo "packets.sh: $name on $file: exit status $st: $(tail -3 "$out/stderr.txt")" >&2
		return 1
	fi
	read -r u s m <"$out/time.txt"
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$file" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", (b-a)/1e9}')" \
		"$u" "$s" "$m" "$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')" >>"$raw"
}

# same NAME A B reports whether two outputs are byte-identical.
same() {
	if cmp -s "$2" "$3"; then
		echo "check: $1 byte-identical to tshark ($(wc -l <"$2") lines)" >&2
	else
		echo "packets.sh: $1 differs from tshark: $(cmp "$2" "$3" 2>&1 | head -1)" >&2
		bad=1
	fi
}

declare -A frames matched
for f in "$@"; do
	frames[$f]=$("$rt" report --json "$f" | awk -F'[:,]' '/"packets"/ && !done {gsub(/ /,"",$2); print $2; done=1}')
done
for ((r = 1; r <= rounds; r++)); do
	for f in "$@"; do
		echo "round $r/$rounds: $f" >&2
		cat "$f" >/dev/null # untimed: back into the page cache
		sample json "$f" /dev/null "$rt" packets --json "$f"
		sample fields "$f" "$out/rt-fields.txt" "$rt" packets -T fields "${fields[@]}" "$f"
		sample filter "$f" "$out/rt-y.txt" "$rt" packets -Y "$expr" -T fields -e frame.number "$f"
		if [ "$r" -le "$trounds" ]; then
			sample tfields "$f" "$out/ts-fields.txt" tshark -r "$f" -T fields "${fields[@]}"
			sample tfilter "$f" "$out/ts-y.txt" tshark -r "$f" -Y "$expr" -T fields -e frame.number
		fi
		if [ "$r" = 1 ]; then
			same "packets -T fields on $f" "$out/rt-fields.txt" "$out/ts-fields.txt"
			same "packets -Y on $f" "$out/rt-y.txt" "$out/ts-y.txt"
			matched[$f]=$(wc -l <"$out/rt-y.txt")
		fi
	done
done

# median NAME FILE COLUMN prints the median of a column (3 wall, 7 CPU).
median() {
	awk -F'\t' -v n="$1" -v f="$2" -v c="$3" '$1==n && $2==f {print $c}' "$raw" | sort -g |
		awk '{v[NR]=$1} END{if (NR==0) {print ""} else if (NR%2) {print v[(NR+1)/2]} else {printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}}'
}
# row LABEL NAME FILE prints a table row: wall, CPU, frames/s (wall).
row() {
	local w c
	w=$(median "$2" "$3" 3) c=$(median "$2" "$3" 7)
	awk -v l="$1" -v w="$w" -v c="$c" -v n="${frames[$3]}" 'BEGIN{printf "| %s | %.3f | %.2f | %.0f |", l, w, c, n/w}'
}

echo
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(tshark --version 2>/dev/null | head -1), $rounds rounds (tshark: $trounds)"
echo "fields: $(printf "%s " "${fields[@]}" | sed "s/-e //g"); -Y: $expr"
echo
echo "| capture | command | wall s | CPU s | frames/s | tshark / rocetrace (wall) |"
echo "|---|---|---:|---:|---:|---:|"
for f in "$@"; do
	b=$(basename "$f")
	echo "$(echo "| $b ")$(row "packets --json" json "$f") |"
	echo "$(echo "| $b ")$(row "packets -T fields" fields "$f") $(awk -v t="$(median tfields "$f" 3)" -v r="$(median fields "$f" 3)" 'BEGIN{printf "%.1f", t/r}') |"
	echo "$(echo "| $b ")$(row "tshark -T fields" tfields "$f") |"
	echo "$(echo "| $b ")$(row "packets -Y (${matched[$f]} match)" filter "$f") $(awk -v t="$(median tfilter "$f" 3)" -v r="$(median filter "$f" 3)" 'BEGIN{printf "%.1f", t/r}') |"
	echo "$(echo "| $b ")$(row "tshark -Y" tfilter "$f") |"
done
echo
echo "frames/s = frames / median wall s (${rounds} rounds of rocetrace, ${trounds} of tshark). Raw samples: $raw"
exit $bad
