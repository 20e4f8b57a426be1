#!/usr/bin/env python3
"""The model files both engines run in the side-by-side CPU comparison (bench/llamacpp_cpu.py).

A LLaMA-shaped GGUF with generated weights (dim 768, 12 layers, 12 heads, feed-forward 2048,
vocabulary 32,000: 134M parameters; normal(0, 0.02) matrices, unit norms, seeded) is written in
float32 with LLaMA-2's vocabulary, then llama.cpp's own llama-quantize makes the other types
from it, so the quantized blocks are the ones llama.cpp users have. Speed depends on the shape
and the storage, not on what the weights know, so generated weights measure it as a trained
model's would.

The writer and the vocabulary come from the llama.cpp peer that ../shared/tools/llamacpp-peer.sh
builds outside the repository (its gguf-py package and models/ggml-vocab-llama-spm.gguf), used
as tools, like llama-bench; nothing of them enters this repository.

    python3 bench/peer_models.py OUT_DIR [--types f32,f16,q8_0,q4_0,q4_k_m]
"""
import argparse
import os
import subprocess
import sys

SHAPE = {"dim": 768, "layers": 12, "heads": 12, "ffn": 2048, "vocab": 32000, "context": 2048}
TYPES = ("f32", "f16", "q8_0", "q4_0", "q4_k_m")


def peer_source(llama_bin):
    """The llama.cpp source folder of a peer build's bin folder (<src>/build-cpu/bin)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(llama_bin)))


def write_f32(path, llama_bin, seed=1):
    src = peer_source(llama_bin)
    sys.path.insert(0, os.path.join(src, "gguf-py"))
    try:
        import numpy as np  # gguf-py's own dependency, and the generated weights'
    except ImportError:
        sys.exit("peer_models: writing the model needs numpy (Debian: apt install python3-numpy)")
    import gguf  # the peer's writer, imported from where it was built

    vocab = gguf.GGUFReader(os.path.join(src, "models", "ggml-vocab-llama-spm.gguf"))
    s = SHAPE
    w = gguf.GGUFWriter(path, "llama")
    w.add_name(f"generated-llama-{s['dim']}x{s['layers']}")
    w.add_context_length(s["context"])
    w.add_embedding_length(s["dim"])
    w.add_block_count(s["layers"])
    w.add_feed_forward_length(s["ffn"])
    w.add_head_count(s["heads"])
    w.add_head_count_kv(s["heads"])
    w.add_rope_dimension_count(s["dim"] // s["heads"])
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(s["vocab"])
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list([vocab.fields["tokenizer.ggml.tokens"].contents(i) for i in range(s["vocab"])])
    w.add_token_scores(vocab.fields["tokenizer.ggml.scores"].contents())
    w.add_token_types(vocab.fields["tokenizer.ggml.token_type"].contents())
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    rng = np.random.default_rng(seed)

    def matrix(rows, cols):
        return (rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(0.02))

    ones = np.ones(s["dim"], dtype=np.float32)
    w.add_tensor("token_embd.weight", matrix(s["vocab"], s["dim"]))
    for layer in range(s["layers"]):
        b = f"blk.{layer}."
        w.add_tensor(b + "attn_norm.weight", ones)
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            w.add_tensor(b + name + ".weight", matrix(s["dim"], s["dim"]))
        w.add_tensor(b + "ffn_norm.weight", ones)
        w.add_tensor(b + "ffn_gate.weight", matrix(s["ffn"], s["dim"]))
        w.add_tensor(b + "ffn_up.weight", matrix(s["ffn"], s["dim"]))
        w.add_tensor(b + "ffn_down.weight", matrix(s["dim"], s["ffn"]))
    w.add_tensor("output_norm.weight", ones)
    w.add_tensor("output.weight", matrix(s["vocab"], s["dim"]))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def make(out_dir, llama_bin, types=TYPES):
    """The model file of each type in out_dir (made once; kept for later runs), in `types` order."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, "generated-llama-134m-f32.gguf")  # also the f32 model
    if not os.path.exists(base):
        print(f"peer_models: writing {base}", file=sys.stderr)
        write_f32(base + ".part", llama_bin)
        os.replace(base + ".part", base)
    paths = []
    for t in types:
        path = os.path.join(out_dir, f"generated-llama-134m-{t}.gguf")
        if t == "f32" or os.path.exists(path):
            paths.append(path)
            continue
        if t not in TYPES:
            sys.exit(f"peer_models: no type {t!r}; the types are " + ", ".join(TYPES))
        print(f"peer_models: llama-quantize {t.upper()}", file=sys.stderr)
        result = subprocess.run([os.path.join(llama_bin, "llama-quantize"), base, path + ".part", t.upper()],
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"peer_models: llama-quantize {t} failed:\n{result.stderr[-2000:]}")
        os.replace(path + ".part", path)
        paths.append(path)
    return paths


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from llamacpp_cpu import peer_bin_folder

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("--types", default=",".join(TYPES), help="comma-separated, of " + ", ".join(TYPES))
    p.add_argument("--llama-bin", help="folder with llama-quantize (default: what llamacpp-peer.sh cpu prints)")
    args = p.parse_args()
    for path in make(args.out_dir, peer_bin_folder(args.llama_bin), args.types.split(",")):
        print(path)


if __name__ == "__main__":
    main()
