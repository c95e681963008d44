#!/bin/sh
# shellcheck disable=SC2046,SC2015,SC2017
# bench-gguf.sh - the GGUF reader: exact per-token figures for valid tiny models (computed
# here by hand from the ggml type sizes), exit 3 with the file, the offset and one line for
# each broken file, and the shape (never the speed) of a short bench run.
set -u
: "${NODEAUDIT:?}" "${JSUBSET:?}"
MKGGUF=${MKGGUF:-${top_builddir:-.}/tests/mkgguf}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-gguf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# The model mkgguf writes: 2 layers, n_embd 256, n_ff 512, n_vocab 64,
# 2 KV heads of 64 (K and V): KV width 128; norms are F32.
E=256 F=512 V=64 L=2 KVW=128 HD=64 KVH=2

# Block elements and bytes per ggml type (gguf-reference.md section 3).
blk() {
	case $1 in
	f32) echo "1 4 F32" ;; f16) echo "1 2 F16" ;; bf16) echo "1 2 BF16" ;;
	q8_0) echo "32 34 Q8_0" ;; q4_0) echo "32 18 Q4_0" ;; q5_1) echo "32 24 Q5_1" ;;
	q2_k) echo "256 84 Q2_K" ;; q4_k) echo "256 144 Q4_K" ;; q6_k) echo "256 210 Q6_K" ;;
	iq4_xs) echo "256 136 IQ4_XS" ;; iq1_m) echo "256 56 IQ1_M" ;; tq1_0) echo "256 54 TQ1_0" ;;
	mxfp4) echo "32 17 MXFP4" ;; nvfp4) echo "64 36 NVFP4" ;;
	q1_0) echo "128 18 Q1_0" ;; q2_0) echo "64 18 Q2_0" ;;
	esac
}
# bytes TYPE ELEMENTS
bytes() { set -- $(blk "$1") "$2"; echo $(($4 / $1 * $2)); }
tname() { set -- $(blk "$1"); echo "$3"; }

run_dry() { # run_dry FILE CTX -> $tmp/out.json, rc in $rc
	"$NODEAUDIT" bench "$1" --dry-run --ctx "$2" --format json >"$tmp/out.json" 2>"$tmp/err"
	rc=$?
}

### Valid models, one per matrix type ###
ctx=100
kv=$((L * ctx * KVH * (HD + HD) * 2))   # f16 KV cache
norms=$((4 * E * (2 * L + 1)))
for t in f32 f16 bf16 q8_0 q4_0 q5_1 q2_k q4_k q6_k iq4_xs iq1_m tq1_0 mxfp4 nvfp4 q1_0 q2_0; do
	for tie in llama tied; do
		"$MKGGUF" $tie "$tmp/m.gguf" $t >/dev/null || { notok "mkgguf $tie $t"; continue; }
		mat=$(( ( $(bytes $t $((E * E))) * 2 + $(bytes $t $((E * KVW))) * 2 + $(bytes $t $((E * F))) * 3 ) * L ))
		emb=$(bytes $t $((E * V)))
		row=$(bytes $t $E)
		if [ $tie = llama ]; then
			total=$((mat + norms + emb + emb)); weights=$((mat + norms + emb + row))
			wt=$((mat + emb + emb)); tied=false
		else
			total=$((mat + norms + emb)); weights=$((mat + norms + emb))
			wt=$((mat + emb)); tied=true
		fi
		if [ $t = f32 ]; then types="{\"F32\": $total}"
		else types="{\"$(tname $t)\": $wt, \"F32\": $norms}"; fi
		cnt=$((9 * L + 2)); [ $tie = llama ] && cnt=$((cnt + 1))
		cat >"$tmp/want.json" <<EOF
{"bench": {"model": {"architecture": "llama", "gguf_version": 3, "layers": $L,
  "embedding_length": $E, "context_length": 128, "tensor_count": $cnt,
  "tensor_bytes": $total, "types": $types, "tied_embeddings": $tied,
  "weight_bytes_per_token": $weights, "ctx": $ctx, "kv_type": "F16",
  "kv_bytes_per_position": $((kv / ctx)), "kv_bytes_per_token": $kv,
  "bytes_per_token": $((weights + kv))},
  "bandwidth": {"bytes_per_s": null}, "predicted": {"tokens_per_s": null}}}
EOF
		run_dry "$tmp/m.gguf" $ctx
		if [ $rc -eq 0 ] && "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then
			ok "$tie $t: $total tensor bytes, $((weights + kv)) bytes per token"
		else
			notok "$tie $t (exit $rc)"; cat "$tmp/err" "$tmp/diff"
		fi
	done
done

### Other valid layouts ###
check_model() { # check_MODEL NAME VARIANT TYPE CTX JSON
	"$MKGGUF" "$2" "$tmp/m.gguf" "$3" >/dev/null
	echo "$5" >"$tmp/want.json"
	run_dry "$tmp/m.gguf" "$4"
	if [ $rc -eq 0 ] && "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1; then ok "$1"
	else notok "$1 (exit $rc)"; cat "$tmp/err" "$tmp/diff"; fi
}
# Q4_K matrices of the model above, for the variants below.
q4mat=$(( (36864 * 2 + 18432 * 2 + 73728 * 3) * L ))   # 256x256: 256 blocks of 144, ...
[ $q4mat -eq $(( ( $(bytes q4_k 65536) * 2 + $(bytes q4_k 32768) * 2 + $(bytes q4_k 131072) * 3 ) * L )) ] \
	&& ok "Q4_K sizes by hand agree with the table" || notok "Q4_K sizes by hand"
check_model "GGUF v2 reads as v3" v2 q4_k 100 \
	"{\"bench\": {\"model\": {\"gguf_version\": 2, \"tensor_bytes\": $((q4mat + norms + 9216 * 2))}}}"
check_model "general.alignment 64" align64 q4_k 100 \
	"{\"bench\": {\"model\": {\"tensor_bytes\": $((q4mat + norms + 9216 * 2))}}}"
# head_count_kv [2, 1] per layer, key/value_length 64 stored as UINT64/UINT16.
check_model "per-layer KV heads" perlayer q4_k 100 \
	"{\"bench\": {\"model\": {\"kv_bytes_per_position\": $(( (2 + 1) * 128 * 2 )), \"kv_bytes_per_token\": $(( (2 + 1) * 128 * 2 * 100 )), \"bytes_per_token\": $(( q4mat + norms + 9216 + 144 + (2 + 1) * 128 * 2 * 100 ))}}}"
# No architecture: weights only, KV unknown with a gap.
check_model "no general.architecture" noarch q4_k 100 \
	"{\"bench\": {\"model\": {\"architecture\": null, \"kv_bytes_per_token\": null, \"bytes_per_token\": $(( q4mat + norms + 9216 + 144 ))}}}"
grep -q '"fact":.*"bench.model.kv_bytes_per_token"' "$tmp/out.json" && ok "no architecture: a gap for the KV cache" \
	|| notok "no architecture: gap"
# Mixed: attention and ffn_gate/up Q4_K, ffn_down and output Q6_K, token_embd Q8_0.
mixq4=$(( (36864 * 2 + 18432 * 2 + 73728 * 2) * L )); mixq6=$(( $(bytes q6_k 131072) * L + $(bytes q6_k 16384) ))
check_model "mixed types" mixed f16 0 \
	"{\"bench\": {\"model\": {\"types\": {\"Q8_0\": $(bytes q8_0 16384), \"Q4_K\": $mixq4, \"Q6_K\": $mixq6, \"F32\": $norms}, \"kv_bytes_per_token\": 0, \"bytes_per_token\": $(( mixq4 + mixq6 + norms + $(bytes q8_0 256) ))}}}"
# MoE: 4 experts of [256, 512] per ffn tensor, 2 used per token; router [256, 4] F32 read whole.
exps=$(bytes q4_k $((E * F * 4))); attn=$(( $(bytes q4_k $((E * E))) * 2 + $(bytes q4_k $((E * KVW))) * 2 ))
check_model "mixture of experts: expert_used_count / expert_count of the experts" moe q4_k 0 \
	"{\"bench\": {\"model\": {\"moe\": true, \"tensor_bytes\": $(( (attn + 3 * exps + 4096) * L + norms + 2 * 9216 )), \"bytes_per_token\": $(( (attn + 3 * exps / 4 * 2 + 4096) * L + norms + 9216 + 144 ))}}}"
"$MKGGUF" llama "$tmp/m.gguf" f16 >/dev/null
"$NODEAUDIT" bench "$tmp/m.gguf" --dry-run --ctx 10 --kv-type q8_0 --format json >"$tmp/out.json" 2>&1
echo "{\"bench\": {\"model\": {\"kv_type\": \"Q8_0\", \"kv_bytes_per_position\": $((L * KVH * 128 / 32 * 34)), \"kv_bytes_per_token\": $((L * KVH * 128 / 32 * 34 * 10))}}}" >"$tmp/want.json"
"$JSUBSET" "$tmp/want.json" "$tmp/out.json" >/dev/null 2>&1 && ok "--kv-type q8_0" || notok "--kv-type q8_0"
"$NODEAUDIT" bench "$tmp/m.gguf" --dry-run --format json >"$tmp/out.json" 2>&1
echo '{"bench": {"model": {"ctx": 128}}}' >"$tmp/want.json"
"$JSUBSET" "$tmp/want.json" "$tmp/out.json" >/dev/null 2>&1 && ok "default ctx: the training context when under 4096" \
	|| notok "default ctx"

### Broken files: exit 3, one line naming the file and the offset ###
broken() { # broken VARIANT WORDS [OFFSET]
	v=$1 words=$2
	off=$("$MKGGUF" "$v" "$tmp/b.gguf" q4_k)
	[ -n "${3:-}" ] && off=$3
	"$NODEAUDIT" bench "$tmp/b.gguf" --dry-run >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
	   grep -q "^nodeaudit: '$tmp/b.gguf': offset $off: .*$words" "$tmp/err"; then
		ok "$v: exit 3, offset $off"
	else
		notok "$v (exit $rc, want 3 and offset $off, '$words')"; cat "$tmp/err"
	fi
}
broken v1 "version 1 is no longer supported" 4
broken bigendian "big-endian" 4
broken truncated "truncated header" 8
broken huge-tensors "tensor count 1099511627776" 8
broken huge-kv "metadata count" 16
broken huge-string "over the 1 GiB limit"
broken huge-array "more than the"
broken bad-align "not a power of two"
broken align-type "must be UINT32"
broken overlap "overlaps the previous tensor"
broken gap "leaves a gap of 32 bytes"
broken misaligned "not a multiple of the alignment"
broken past-eof "runs past the end of the file"
broken dup-name "duplicate tensor name"
broken dup-key "duplicate key 'test.u8'"
broken empty-key "empty metadata key"
broken nested "nested arrays"
broken dims5 "5 dimensions"
broken overflow "element count overflows"
broken unknown-type "unknown type id 43"
broken removed-type "Q4_2"
broken bad-block "not a multiple of the Q4_K block size"
broken long-name "too long"
broken bad-vtype "unknown value type 13"
broken headkv-len "3 values for 2 layers"
# A KV cache whose bytes overflow 64 bits: a clear error, never a wrapped
# figure (2^57 elements per position x 4 bytes x 2^30 positions = 2^89).
"$MKGGUF" kv-huge "$tmp/b.gguf" >/dev/null
"$NODEAUDIT" bench "$tmp/b.gguf" --dry-run --ctx 1073741824 --kv-type f32 --format json >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "overflows 64 bits" "$tmp/err" &&
	ok "KV cache over 64 bits: exit 3, one line" || { notok "KV cache over 64 bits (exit $rc)"; cat "$tmp/err"; }
# 2^57 x 4 x 16 = 2^63 still fits: the exact figure.
"$NODEAUDIT" bench "$tmp/b.gguf" --dry-run --ctx 16 --kv-type f32 --format json >"$tmp/out.json" 2>"$tmp/err"
echo '{"bench": {"model": {"kv_bytes_per_position": 576460752303423488, "kv_bytes_per_token": 9223372036854775808}}}' >"$tmp/want.json"
"$JSUBSET" "$tmp/want.json" "$tmp/out.json" >/dev/null 2>&1 && ok "KV cache of 2^63 bytes: exact" || notok "KV cache of 2^63 bytes"
printf 'GGUX' >"$tmp/b.gguf"
"$NODEAUDIT" bench "$tmp/b.gguf" --dry-run 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "offset 0: not a GGUF file" "$tmp/err" && ok "bad magic" || notok "bad magic"
: >"$tmp/b.gguf"
"$NODEAUDIT" bench "$tmp/b.gguf" --dry-run 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "offset 0: empty file" "$tmp/err" && ok "empty file" || notok "empty file"
"$NODEAUDIT" bench "$tmp/none.gguf" --dry-run 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && grep -q "cannot read '$tmp/none.gguf'" "$tmp/err" && ok "missing file" || notok "missing file"
# Every prefix of a valid file is refused cleanly (no crash, exit 3).
"$MKGGUF" llama "$tmp/m.gguf" q4_k >/dev/null
size=$(wc -c <"$tmp/m.gguf"); cuts=0 bad=0
for cut in 1 4 7 12 20 23 24 30 100 500 1000 1500 2000 2500 2600 3000 3400 3600 3700 $((size - 1)); do
	head -c $cut "$tmp/m.gguf" >"$tmp/b.gguf"
	"$NODEAUDIT" bench "$tmp/b.gguf" --dry-run 2>/dev/null >/dev/null
	rc=$?; cuts=$((cuts + 1)); [ $rc -eq 3 ] || { bad=$((bad + 1)); echo "# cut at $cut: exit $rc"; }
done
[ $bad -eq 0 ] && ok "$cuts truncations all exit 3" || notok "truncations"

### Options ###
t_usage() { "$NODEAUDIT" bench "$@" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok "usage: $*" || { notok "usage: $* (exit $rc)"; cat "$tmp/err"; }; }
t_usage --size 12Q
t_usage --size 0
t_usage --threads 0
t_usage --seconds -1
t_usage --ctx x
t_usage --kv-type q4_k
t_usage --nodes 0-
t_usage a.gguf b.gguf
t_usage --nodes 999 --dry-run
t_usage --size 1T --dry-run

### A short run: the shape only, never the speed ###
"$NODEAUDIT" bench --size 16M --seconds 0.5 --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
cat >"$tmp/want.json" <<'EOF'
{"schema": "nodeaudit.bench/1", "bench": {"bandwidth": {"bytes_per_s": "<any>", "samples": "<any>"},
 "nodes": "<any>", "model": null, "peak_bytes_per_s": "<any>", "efficiency": "<any>",
 "predicted": {"tokens_per_s": null}, "threads": "<any>", "seconds": "<any>", "size_bytes": 16777216}}
EOF
if [ $rc -eq 0 ] && "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1 &&
   [ ! -s "$tmp/err" ] && grep -q '"node":' "$tmp/out.json" && grep -q '"cpus":' "$tmp/out.json" &&
   grep -Eq '"bytes_per_s":[[:space:]]+[0-9]' "$tmp/out.json"; then
	ok "bench --size 16M --seconds 0.5: output shape"
else
	notok "bench --size 16M (exit $rc)"; cat "$tmp/err" "$tmp/diff"
fi
"$MKGGUF" llama "$tmp/m.gguf" q4_k >/dev/null
"$NODEAUDIT" bench "$tmp/m.gguf" --seconds 0.3 --ctx 100 --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
cat >"$tmp/want.json" <<EOF
{"bench": {"model": {"bytes_per_token": $((q4mat + norms + 9216 + 144 + kv)), "streamed_bytes": "<any>",
 "page_cache": "<any>"}, "predicted": {"tokens_per_s": "<any>"}, "notes": "<any>"}}
EOF
if [ $rc -eq 0 ] && "$JSUBSET" "$tmp/want.json" "$tmp/out.json" >"$tmp/diff" 2>&1 &&
   grep -Eq '"tokens_per_s":[[:space:]]+[0-9]' "$tmp/out.json" && grep -q 'fits in caches' "$tmp/out.json"; then
	ok "bench MODEL: a ceiling and a note that a tiny model fits in caches"
else
	notok "bench MODEL (exit $rc)"; cat "$tmp/err" "$tmp/diff"
fi
"$NODEAUDIT" bench "$tmp/m.gguf" --seconds 0.3 --size 64K >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q "decode ceiling" "$tmp/out" && grep -q "streaming its first 64.0 KiB" "$tmp/out" \
	&& ok "text output; a model over --size is streamed in part" || { notok "text output (exit $rc)"; cat "$tmp/out" "$tmp/err"; }

### Samples: their number, their spread, the reason behind a verdict (issue 16) ###
# bench.bandwidth.reliable is true, false (a note says the machine is busy) or null
# (fewer than 3 samples: a gap and a note say so); the text never says "median of 1".
reliable_shape() { # reliable_shape NAME (reads $tmp/out.json)
	rel=$(sed -n 's/^\t\t\t"reliable":[[:space:]]*\([a-z]*\),*$/\1/p' "$tmp/out.json")
	ns=$(sed -n 's/^\t\t\t"samples":[[:space:]]*\[\(.*\)\],*$/\1/p' "$tmp/out.json" |
		awk -F, '{ print NF }')
	case $rel in
	true) ! grep -q 'figure is unreliable' "$tmp/out.json" && [ "$ns" -ge 3 ] ;;
	false) grep -q '"bandwidth: the samples range from .* to .*: the machine is busy.* and the figure is unreliable"' "$tmp/out.json" &&
	       [ "$ns" -ge 3 ] ;;
	null) [ "$ns" -lt 3 ] && grep -q '"fact":.*"bench.bandwidth.reliable"' "$tmp/out.json" &&
	      grep -q "\"bandwidth: only $ns sample.* so the spread cannot be judged" "$tmp/out.json" &&
	      { [ "$ns" -ne 1 ] || grep -q 'only 1 sample in' "$tmp/out.json"; } ;;
	*) false ;;
	esac && ok "$1: reliable $rel with $ns samples, and its reason" ||
		{ notok "$1: reliable '$rel' with $ns samples"; cat "$tmp/out.json"; }
}
"$NODEAUDIT" bench --size 16M --seconds 0.5 --format json >"$tmp/out.json" 2>"$tmp/err"
reliable_shape "bench --size 16M --seconds 0.5"
# 128 MiB in 0.1 s leaves time for one or two passes on most machines.
"$NODEAUDIT" bench --size 128M --seconds 0.1 --format json >"$tmp/out.json" 2>"$tmp/err"
reliable_shape "bench --size 128M --seconds 0.1"
"$NODEAUDIT" bench --size 128M --seconds 0.1 >"$tmp/out" 2>"$tmp/err"; rc=$?
# The notes wrap at the text width: their words are looked for with the
# lines joined (a note's continuation lines start with spaces only).
tr '\n' ' ' <"$tmp/out" | tr -s ' ' >"$tmp/flat"
if [ $rc -eq 0 ] && ! grep -q 'median of 1[,)]' "$tmp/out" && ! grep -q ' 1 samples' "$tmp/out" &&
   grep -Eq '^  bandwidth +[0-9.]+ [GM]B/s \((a single sample|median of [0-9]+, [0-9.]+ [GM]B/s to [0-9.]+ [GM]B/s)\)(, unreliable)?$' "$tmp/out" &&
   { ! grep -q '^  bandwidth .*, unreliable$' "$tmp/out" || grep -q ' note .*figure is unreliable' "$tmp/flat"; } &&
   { ! grep -q 'a single sample' "$tmp/out" || grep -q ' note .*only 1 sample in the time budget' "$tmp/flat"; }; then
	ok "text: one sample is never 'median of 1', an unreliable figure says so"
else
	notok "text: samples (exit $rc)"; cat "$tmp/out" "$tmp/err"
fi
# A model that fits in caches passes in microseconds: each sample repeats the pass
# (passes_per_sample > 1) and no sample, minimum or figure reads 0.
"$MKGGUF" llama "$tmp/m.gguf" q4_k >/dev/null
"$NODEAUDIT" bench "$tmp/m.gguf" --seconds 0.3 --format json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
pps=$(sed -n 's/^\t\t"passes_per_sample":[[:space:]]*\([0-9]*\),*$/\1/p' "$tmp/out.json")
if [ $rc -eq 0 ] && [ "${pps:-0}" -gt 1 ] && grep -Eq '"min_bytes_per_s":[[:space:]]+[1-9]' "$tmp/out.json" &&
   ! grep -Eq '"(min_)?bytes_per_s":[[:space:]]+0[,.]?' "$tmp/out.json" &&
   ! awk '/"samples": \[/ { s = 1; next } s && /\]/ { s = 0 } s && $1 + 0 <= 0 { bad = 1 } END { exit !bad }' "$tmp/out.json"; then
	ok "tiny model: $pps passes per sample, no sample of 0"
else
	notok "tiny model: passes_per_sample '$pps' (exit $rc)"; cat "$tmp/out.json" "$tmp/err"
fi
"$NODEAUDIT" bench "$tmp/m.gguf" --seconds 0.3 >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && ! grep -q ' 0\.0 GB/s' "$tmp/out" && ok "tiny model: text shows no 0.0 GB/s" ||
	{ notok "tiny model: text (exit $rc)"; cat "$tmp/out"; }
"$NODEAUDIT" bench --size 64M --dry-run --format json >"$tmp/out.json" 2>&1
grep -q '"fact":.*"bench.bandwidth.reliable",' "$tmp/out.json" && grep -q '"reliable":[[:space:]]*null' "$tmp/out.json" &&
	grep -q '"passes_per_sample":[[:space:]]*null' "$tmp/out.json" &&
	ok "--dry-run: reliable and passes_per_sample null, with a gap" || { notok "--dry-run: reliable"; cat "$tmp/out.json"; }

### check --bench: the measured figure is in the reason when the peak is unknown ###
"$NODEAUDIT" check --bench --bench-seconds 0.1 --format json >"$tmp/out.json" 2>"$tmp/err"
if grep -q 'the theoretical peak is unknown' "$tmp/out.json"; then
	grep -Eq '"[0-9.]+ [KMGT]iB/s measured, but the theoretical peak is unknown' "$tmp/out.json" &&
		ok "check --bench, peak unknown: the reason gives the measured bandwidth" ||
		{ notok "check --bench, peak unknown: no measured figure in the reason"; cat "$tmp/out.json"; }
elif grep -q '"bench.efficiency"' "$tmp/out.json"; then
	ok "check --bench: the peak is known on this machine (efficiency given) # SKIP peak known"
else
	notok "check --bench: no bench.efficiency finding"; cat "$tmp/out.json" "$tmp/err"
fi

echo "1..$n"
[ $fail -eq 0 ]
