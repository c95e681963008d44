#!/bin/sh
# mkckpt.sh - a Hugging Face checkpoint directory for the tests, as vLLM
# loads one: config.json and one model.safetensors (an 8-byte little-endian
# header length, the JSON header, then the data) whose data is one F32
# tensor of BYTES bytes, left sparse (truncate) so that 20 GiB cost nothing.
#   mkckpt.sh DIR HEADS KV_HEADS LAYERS HIDDEN BYTES [DTYPE]
set -eu
dir=$1 heads=$2 kv=$3 layers=$4 hidden=$5 bytes=$6 dtype=${7:-bfloat16}
mkdir -p "$dir"
printf '{"architectures":["LlamaForCausalLM"],"num_attention_heads":%s,"num_key_value_heads":%s,"num_hidden_layers":%s,"hidden_size":%s,"torch_dtype":"%s","max_position_embeddings":32768}\n' \
	"$heads" "$kv" "$layers" "$hidden" "$dtype" >"$dir/config.json"
h=$(printf '{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[%s],"data_offsets":[0,%s]}}' $((bytes / 4)) "$bytes")
n=${#h}
# shellcheck disable=SC2059
printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))\\000\\000\\000\\000" >"$dir/model.safetensors"
printf '%s' "$h" >>"$dir/model.safetensors"
truncate -s +"$bytes" "$dir/model.safetensors"
