#!/bin/sh
# hostile-files.sh - input files the readers must refuse as a whole: GGUF
# models broken in each way the reader rejects (`bench --dry-run FILE`),
# SMBIOS dumps broken in each way the parser rejects (`probe --smbios
# FILE`), and profiles with deep nesting, wrong types, self-inheritance,
# invalid UTF-8 or 5 MB of text (`check --profile FILE` and `profiles
# validate FILE`); each also as a FIFO, a directory and a symlink loop.
# Every run must end within 20 s with exit 3, no signal, no sanitizer
# report, one line on stderr naming the file, nothing on stdout, and no -o
# file (nor its temporary file) left behind: an invalid input is refused,
# never half-accepted.
set -u
: "${NODEAUDIT:?}" "${top_srcdir:?}" "${top_builddir:?}"
MKGGUF=${MKGGUF:-$top_builddir/tests/mkgguf}
MKSMBIOS=${MKSMBIOS:-$top_builddir/tests/mksmbios}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hostile-files.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
facts=$top_srcdir/tests/fixtures/check-facts/good.json
sysroot=$top_srcdir/tests/fixtures/mem-server
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fail=$((fail + 1)); }

# refused LABEL FILE WORDS CMD... : exit 3, one line naming FILE and
# matching WORDS (an extended regex), nothing on stdout, no output file.
refused() {
	label=$1 file=$2 words=$3
	shift 3
	rm -rf "$tmp/out"; mkdir "$tmp/out"
	timeout 20 "$@" -o "$tmp/out/result" >"$tmp/stdout" 2>"$tmp/err"
	rc=$?
	why=""
	if grep -Eq 'runtime error:|Sanitizer' "$tmp/err"; then why="sanitizer report"
	elif [ $rc -ne 3 ]; then why="exit $rc"
	elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then why="$(wc -l <"$tmp/err") lines on stderr"
	elif ! grep -Fq "'$file'" "$tmp/err"; then why="the message does not name '$file'"
	elif ! grep -Eq "$words" "$tmp/err"; then why="the message does not say '$words'"
	elif [ -s "$tmp/stdout" ]; then why="output on stdout"
	elif [ -n "$(ls -A "$tmp/out")" ]; then why="left $(ls -A "$tmp/out" | tr '\n' ' ')"
	fi
	if [ -z "$why" ]; then ok "$label"; else notok "$label: $why"; sed 's/^/#   /' "$tmp/err" | head -n 3; fi
}

# The kinds of file every reader refuses the same way.
special() { # special DIR: DIR/fifo, DIR/dir, DIR/loop
	mkfifo "$1/fifo"; mkdir "$1/dir"; ln -s loop "$1/loop"
}

### GGUF: each way tests/mkgguf breaks a model ###
mkdir "$tmp/g"
bench() { refused "bench: $1" "$2" "$3" "$NODEAUDIT" bench --dry-run "$2"; }
for v in v1 bigendian truncated huge-tensors huge-kv huge-string huge-array bad-align \
	align-type overlap gap misaligned past-eof dup-name dup-key empty-key nested dims5 \
	overflow unknown-type removed-type bad-block long-name bad-vtype headkv-len; do
	"$MKGGUF" "$v" "$tmp/g/$v.gguf" q4_k >/dev/null || { notok "mkgguf $v"; continue; }
	bench "$v" "$tmp/g/$v.gguf" 'offset [0-9]+: '
	rm -f "$tmp/g/$v.gguf"
done
printf 'GGUX' >"$tmp/g/magic.gguf"; bench "bad magic" "$tmp/g/magic.gguf" 'not a GGUF file'
: >"$tmp/g/empty.gguf"; bench "empty file" "$tmp/g/empty.gguf" 'empty file'
head -c 65536 /dev/urandom >"$tmp/g/noise.gguf"; bench "binary noise" "$tmp/g/noise.gguf" 'offset 0: '
special "$tmp/g"
bench "a FIFO" "$tmp/g/fifo" 'not a regular file'
bench "a directory" "$tmp/g/dir" 'not a regular file'
bench "a symlink loop" "$tmp/g/loop" 'symbolic link'

### SMBIOS: each way the parser refuses a dump ###
mkdir "$tmp/s"
"$MKSMBIOS" "$top_srcdir/tests/smbios/qemu-vm.desc" "$tmp/s/sm3.bin" &&      # _SM3_, 231-byte table
"$MKSMBIOS" "$top_srcdir/tests/smbios/vm-dangling.desc" "$tmp/s/sm.bin" ||   # _SM_ + _DMI_
	{ notok "mksmbios"; echo "1..$n"; exit 1; }
smbios() { refused "probe --smbios: $1" "$2" "$3" "$NODEAUDIT" --sysroot "$sysroot" probe --smbios "$2"; }
poke() { # poke IN OUT OFFSET BYTES (printf format)
	cp "$1" "$2"; printf "$4" | dd of="$2" bs=1 seek="$3" conv=notrunc 2>/dev/null
}
: >"$tmp/s/empty.bin"; smbios "empty file" "$tmp/s/empty.bin" 'no SMBIOS entry point'
head -c 4096 /dev/urandom | tr -d '_' >"$tmp/s/noise.bin"; smbios "binary noise" "$tmp/s/noise.bin" 'no SMBIOS entry point'
head -c 20 "$tmp/s/sm3.bin" >"$tmp/s/b.bin"; smbios "_SM3_ entry point cut short" "$tmp/s/b.bin" 'cut short'
poke "$tmp/s/sm3.bin" "$tmp/s/b.bin" 5 '\000'; smbios "_SM3_ checksum" "$tmp/s/b.bin" 'checksum is wrong'
poke "$tmp/s/sm3.bin" "$tmp/s/b.bin" 6 '\005'; smbios "_SM3_ length" "$tmp/s/b.bin" 'length 5 is invalid'
head -c 10 "$tmp/s/sm.bin" >"$tmp/s/b.bin"; smbios "_SM_ entry point cut short" "$tmp/s/b.bin" 'cut short'
poke "$tmp/s/sm.bin" "$tmp/s/b.bin" 16 'X'; smbios "_SM_ without its _DMI_ part" "$tmp/s/b.bin" 'checksum is wrong|_DMI_'
tail -c +17 "$tmp/s/sm.bin" >"$tmp/s/dmi.bin"     # the bare legacy _DMI_ entry point, table now 16 bytes short
smbios "_DMI_ table shorter than announced" "$tmp/s/dmi.bin" 'table truncated'
head -c 9 "$tmp/s/dmi.bin" >"$tmp/s/b.bin"; smbios "_DMI_ entry point cut short" "$tmp/s/b.bin" 'cut short'
poke "$tmp/s/dmi.bin" "$tmp/s/b.bin" 5 'Z'; smbios "_DMI_ checksum" "$tmp/s/b.bin" 'checksum is wrong'
poke "$tmp/s/sm3.bin" "$tmp/s/b.bin" 33 '\002'; smbios "structure length below 4" "$tmp/s/b.bin" 'has length 2'
poke "$tmp/s/sm3.bin" "$tmp/s/b.bin" 33 '\377'; smbios "structure past the end of the table" "$tmp/s/b.bin" 'runs past the end'
size=$(wc -c <"$tmp/s/sm3.bin")
poke "$tmp/s/sm3.bin" "$tmp/s/b.bin" $((size - 8)) 'AAAAAAAA'; smbios "strings without terminator" "$tmp/s/b.bin" 'no terminator'
head -c 40 "$tmp/s/sm3.bin" >"$tmp/s/b.bin"; smbios "table cut inside a structure" "$tmp/s/b.bin" 'runs past the end|truncated'
head -c 5242880 /dev/zero >"$tmp/s/b.bin"; smbios "5 MB of zeros" "$tmp/s/b.bin" 'no SMBIOS entry point'
special "$tmp/s"
smbios "a FIFO" "$tmp/s/fifo" 'not a regular file'
smbios "a directory" "$tmp/s/dir" 'not a regular file'
smbios "a symlink loop" "$tmp/s/loop" 'symbolic link'

### Profiles ###
mkdir "$tmp/p"
profile() { # profile LABEL FILE WORDS [NAMED]: NAMED is the file the message names
	refused "check --profile: $1" "${4:-$2}" "$3" "$NODEAUDIT" check --facts "$facts" --profile "$2"
	refused "profiles validate: $1" "${4:-$2}" "$3" "$NODEAUDIT" profiles validate "$2"
}
p=$tmp/p
awk 'BEGIN { for (i = 0; i < 10000; i++) printf "["; for (i = 0; i < 10000; i++) printf "]"; print "" }' >"$p/deep.json"
profile "10000 nested arrays" "$p/deep.json" 'invalid JSON'
awk 'BEGIN { printf "{\"name\": \"deep\", \"checks\": {\"cpu.smt\": {\"expect\": "; for (i = 0; i < 10000; i++) printf "{\"a\": "; printf "1"; for (i = 0; i < 10000; i++) printf "}"; print "}}}" }' >"$p/deep-obj.json"
profile "10000 nested objects in a check" "$p/deep-obj.json" 'invalid JSON|expect'
echo '{"name": 5, "checks": {}}' >"$p/t1.json"; profile "name is a number" "$p/t1.json" 'name: expected a string'
echo '{"name": "t", "checks": []}' >"$p/t2.json"; profile "checks is an array" "$p/t2.json" 'checks'
echo '{"name": "t", "checks": {"cpu.max_mhz": {"min": "fast", "severity": "warn"}}}' >"$p/t3.json"
profile "min is a string" "$p/t3.json" 'min'
echo '{"name": "t", "checks": {"cpu.max_mhz": {"min": 1, "severity": 2}}}' >"$p/t4.json"
profile "severity is a number" "$p/t4.json" 'severity'
echo '{"name": "t", "extends": ["base"], "checks": {}}' >"$p/t5.json"; profile "extends is an array" "$p/t5.json" 'extends'
echo '[1, 2, 3]' >"$p/t6.json"; profile "an array, not an object" "$p/t6.json" 'object'
echo '{"name": "self", "extends": "self.json", "checks": {}}' >"$p/self.json"
profile "extends itself" "$p/self.json" 'cycle'
echo '{"name": "loop1", "extends": "loop2.json", "checks": {}}' >"$p/loop1.json"
echo '{"name": "loop2", "extends": "loop1.json", "checks": {}}' >"$p/loop2.json"
profile "two profiles extending each other" "$p/loop1.json" 'cycle: loop1 -> loop2 -> loop1' "$p/loop2.json"
printf '{"name": "u", "description": "\377\376", "checks": {}}\n' >"$p/utf8.json"
profile "invalid UTF-8" "$p/utf8.json" 'invalid UTF-8'
printf '{"name": "u", "description": "\355\240\200", "checks": {}}\n' >"$p/surrogate.json"
profile "a UTF-16 surrogate in UTF-8" "$p/surrogate.json" 'invalid UTF-8'
printf '{"name": "u", "description": "\300\257", "checks": {}}\n' >"$p/overlong.json"
profile "an overlong UTF-8 form" "$p/overlong.json" 'invalid UTF-8'
{ printf '{"name": "big", "description": "'; head -c 5242880 /dev/zero | tr '\0' 'x'; printf '", "checks": {}}\n'; } >"$p/big.json"
profile "a 5 MB profile" "$p/big.json" 'larger than'
printf '{"name": "nul", "checks": {}}\000\n' >"$p/nul.json"; profile "a NUL byte" "$p/nul.json" 'NUL'
: >"$p/empty.json"; profile "an empty file" "$p/empty.json" 'invalid JSON|empty'
echo '{"name": "t", "checks": {}} trailing' >"$p/trail.json"; profile "text after the JSON" "$p/trail.json" 'invalid JSON'
special "$p"
profile "a FIFO" "$p/fifo" 'not a regular file'
profile "a directory" "$p/dir" 'not a regular file'
profile "a symlink loop" "$p/loop" 'symbolic link'

echo "1..$n"
[ $fail -eq 0 ]
