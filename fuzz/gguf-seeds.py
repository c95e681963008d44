# gguf-seeds.py DIR - write the tiny valid GGUF models of the fuzz seed corpus
# (tests/mkgguf models are 260 KB and more: beyond the fuzzer's -max_len).
import struct, sys
def s(x): x=x.encode(); return struct.pack('<Q',len(x))+x
def kv(k,t,v):
    return s(k)+struct.pack('<I',t)+v
U32,STR,ARR,U64,F32T=4,8,9,10,6
def model(path, arch=True, tied=False, ver=3, align=None, typ=0, L=1, E=32, V=8, perlayer=False):
    kvs=[]
    if arch:
        kvs+= [kv('general.architecture',STR,s('llama')),
               kv('llama.block_count',U32,struct.pack('<I',L)),
               kv('llama.embedding_length',U32,struct.pack('<I',E)),
               kv('llama.context_length',U32,struct.pack('<I',64)),
               kv('llama.attention.head_count',U32,struct.pack('<I',2))]
        if perlayer:
            kvs.append(kv('llama.attention.head_count_kv',ARR,struct.pack('<IQ',U32,L)+b''.join(struct.pack('<I',1) for _ in range(L))))
        else:
            kvs.append(kv('llama.attention.head_count_kv',U32,struct.pack('<I',1)))
    if align:
        kvs.append(kv('general.alignment',U32,struct.pack('<I',align)))
    a=align or 32
    # (name, dims, type) type 0 F32 (blk 1, 4 bytes), 1 F16 (2 bytes), 8 Q8_0 (32, 34)
    bpe={0:(1,4),1:(1,2),8:(32,34)}
    ts=[('token_embd.weight',[E,V],typ)]
    for l in range(L):
        ts += [(f'blk.{l}.attn_norm.weight',[E],0),(f'blk.{l}.attn_q.weight',[E,E],typ),
               (f'blk.{l}.attn_k.weight',[E,16],typ),(f'blk.{l}.attn_v.weight',[E,16],typ),
               (f'blk.{l}.attn_output.weight',[E,E],typ),(f'blk.{l}.ffn_norm.weight',[E],0),
               (f'blk.{l}.ffn_up.weight',[E,E],typ),(f'blk.{l}.ffn_down.weight',[E,E],typ)]
    ts.append(('output_norm.weight',[E],0))
    if not tied: ts.append(('output.weight',[E,V],typ))
    infos=b''; off=0; sizes=[]
    for n,d,t in ts:
        cnt=1
        for x in d: cnt*=x
        b,by=bpe[t]; nb=cnt//b*by
        infos+=s(n)+struct.pack('<I',len(d))+b''.join(struct.pack('<Q',x) for x in d)+struct.pack('<IQ',t,off)
        off+= (nb+a-1)//a*a
    hdr=b'GGUF'+struct.pack('<IQQ',ver,len(ts),len(kvs))+b''.join(kvs)+infos
    hdr+= b'\0'*((-len(hdr))%a)
    open(path,'wb').write(hdr+b'\0'*off)
d=sys.argv[1]
model(d+'/tiny-llama-f32.gguf')
model(d+'/tiny-tied-f16.gguf',tied=True,typ=1)
model(d+'/tiny-v2-q8.gguf',ver=2,typ=8)
model(d+'/tiny-align64.gguf',align=64,typ=1)
model(d+'/tiny-noarch.gguf',arch=False,typ=1)
model(d+'/tiny-perlayer.gguf',L=2,perlayer=True,typ=1,E=16)
