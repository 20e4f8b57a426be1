#!/usr/bin/env python3
"""Hugging Face transformers baseline for pyramid-bench (the paper's "Accelerate" row).

Builds LlamaForCausalLM for one of pyramid-bench's named shapes with generated
weights (no download, no tokenizer), feeds seeded random prompt ids and times
`generate` with the full KV cache: exactly prompt_len + gen_len tokens per
sequence, greedy, no early stop.  Writes JSON in pyramid-bench's layout
(tool "hf_baseline", method "hf-accelerate") and prints a small table.

Throughput is generated tokens / total generate time, as in the paper.  KV
memory is computed, not measured: 2 * layers * kv_dim * element bytes *
(prompt + gen) * batch.  The measured peak of the CUDA allocator is reported
next to it (weights, cache and activations together).

torch and transformers are imported lazily so that --list-shapes and --help
work on machines without them.
"""

import argparse
import datetime
import json
import math
import os
import shlex
import sys
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    """A LLaMA-2 architecture, as pyramid-bench's --list-shapes prints it."""

    n_vocab: int
    dim: int
    ffn_dim: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    context_length: int

    @property
    def head_dim(self):
        return self.dim // self.n_heads

    @property
    def kv_dim(self):
        return self.n_kv_heads * self.head_dim


# Must match pyramid-bench's shapes exactly, or the comparison is meaningless.
SHAPES = {
    "tiny": Shape(32000, 288, 768, 6, 6, 6, 1024),
    "small": Shape(32000, 1024, 2816, 8, 16, 16, 2048),
    "llama2-7b": Shape(32000, 4096, 11008, 32, 32, 32, 4096),
    "llama2-13b": Shape(32000, 5120, 13824, 40, 40, 40, 4096),
}
RMS_EPS = 1e-5
ROPE_THETA = 10000.0

# Names as pyramid-bench's JSON spells weight types.
DTYPE_TAGS = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4}


def list_shapes(out=sys.stdout):
    for name, s in SHAPES.items():
        print(name, s.n_vocab, s.dim, s.ffn_dim, s.n_layers, s.n_heads,
              s.n_kv_heads, s.context_length, file=out)


def kv_bytes(shape, dtype_name, tokens, batch):
    """Full-cache K and V bytes for `tokens` positions of `batch` sequences."""
    return 2 * shape.n_layers * shape.kv_dim * DTYPE_BYTES[dtype_name] * tokens * batch


def parse_batches(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--batch: expected N[,N...], found '{text}'")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"--batch: every batch must be >= 1, found '{text}'")
    return values


def build_model(shape, device, dtype_name, seed, attn):
    """LlamaForCausalLM of `shape` with seeded uniform weights, made on `device`.

    The module is constructed and cast on the meta device, then materialised
    with to_empty: no time goes to transformers' own (CPU, fp32) init of
    gigabytes of weights, and the device never holds an fp32 copy; every
    parameter is then filled on the target device.
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    dtype = getattr(torch, dtype_name)
    config = LlamaConfig(
        vocab_size=shape.n_vocab, hidden_size=shape.dim, intermediate_size=shape.ffn_dim,
        num_hidden_layers=shape.n_layers, num_attention_heads=shape.n_heads,
        num_key_value_heads=shape.n_kv_heads, max_position_embeddings=shape.context_length,
        rms_norm_eps=RMS_EPS, rope_theta=ROPE_THETA, tie_word_embeddings=False,
        bos_token_id=1, eos_token_id=None, pad_token_id=0)
    config._attn_implementation = attn
    with torch.device("meta"):
        model = LlamaForCausalLM(config).to(dtype)
    model = model.to_empty(device=device)

    generator = torch.Generator(device=device).manual_seed(seed)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if param.dim() == 1:  # RMSNorm gains
                param.fill_(1.0)
            else:
                # Scale 1/sqrt(fan-in) keeps activations bounded through 32+ layers.
                bound = 1.0 / math.sqrt(param.shape[-1])
                param.uniform_(-bound, bound, generator=generator)
        # to_empty left the rotary frequencies (a non-persistent buffer) as garbage.
        # Rebuilt under the device context: older transformers take a device
        # argument here and newer ones do not.
        with torch.device(device):
            model.model.rotary_emb = type(model.model.rotary_emb)(config=config)
    model.eval()
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    return model, weight_bytes


class _FirstTokenClock:
    """A stopping criterion that never stops: it records when the first new
    token exists, which splits generate into prefill and decode."""

    def __init__(self, sync):
        self.sync = sync
        self.first_token_at = None

    def __call__(self, input_ids, scores, **kwargs):
        import torch
        if self.first_token_at is None:
            self.sync()
            self.first_token_at = time.perf_counter()
        return torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)


class Runner:
    """Times generate for one model; all sizes and counts come from args."""

    def __init__(self, args, shape, model, weight_bytes):
        import torch
        self.torch = torch
        self.args = args
        self.shape = shape
        self.model = model
        self.weight_bytes = weight_bytes
        self.cuda = args.device == "cuda"

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def is_oom(self, error):
        oom = getattr(self.torch, "OutOfMemoryError", self.torch.cuda.OutOfMemoryError)
        # cuBLAS failing to allocate its workspace surfaces as a plain RuntimeError.
        return isinstance(error, oom) or (isinstance(error, RuntimeError) and (
            "CUBLAS_STATUS_ALLOC_FAILED" in str(error) or "out of memory" in str(error)))

    def release(self):
        import gc
        gc.collect()
        if self.cuda:
            self.torch.cuda.empty_cache()

    def prompts(self, batch):
        # Ids from 3 up skip LLaMA's <unk>, <s>, </s>; seeded per batch size so
        # a batch's prompts do not depend on which batches ran before it.
        g = self.torch.Generator().manual_seed(self.args.seed * 1000003 + batch)
        ids = self.torch.randint(3, self.shape.n_vocab, (batch, self.args.prompt_len), generator=g)
        return ids.to(self.args.device)

    def generate_once(self, ids):
        """One timed generate; returns (prefill_s, total_s)."""
        from transformers import GenerationConfig, StoppingCriteriaList
        a = self.args
        config = GenerationConfig(
            max_new_tokens=a.gen_len, min_new_tokens=a.gen_len, do_sample=False,
            use_cache=True, eos_token_id=None, pad_token_id=0, bos_token_id=1)
        clock = _FirstTokenClock(self.sync)
        mask = self.torch.ones_like(ids)
        self.sync()
        start = time.perf_counter()
        with self.torch.inference_mode():
            out = self.model.generate(input_ids=ids, attention_mask=mask, generation_config=config,
                                      stopping_criteria=StoppingCriteriaList([clock]))
        self.sync()
        end = time.perf_counter()
        expected = (ids.shape[0], a.prompt_len + a.gen_len)
        if tuple(out.shape) != expected:
            raise RuntimeError(f"generate returned shape {tuple(out.shape)}, expected {expected}: "
                               "the baseline would not do the same work as pyramid-bench")
        return clock.first_token_at - start, end - start

    def fits(self, batch):
        """One untimed generate at `batch`; False when the device runs out of memory."""
        try:
            self.generate_once(self.prompts(batch))
            return True
        except Exception as error:  # noqa: BLE001 - only OOM is swallowed
            if not self.is_oom(error):
                raise
            return False
        finally:
            self.release()

    def measure(self, batch):
        """Warm-up plus timed repetitions at `batch`; a run record in pyramid-bench's layout."""
        a, s = self.args, self.shape
        tokens = a.prompt_len + a.gen_len
        mean_tokens = a.prompt_len + (a.gen_len + 1) / 2  # cache length averaged over decode steps
        run = {"policy": "full", "label": "hf-accelerate", "method": "hf-accelerate",
               "batch": batch, "ok": True, "error": "",
               "kv_bytes_mean": int(kv_bytes(s, a.dtype, mean_tokens, batch)),
               "kv_bytes_peak": kv_bytes(s, a.dtype, tokens, batch),
               "kv_bytes_full": kv_bytes(s, a.dtype, tokens, batch),
               "kv_bytes_source": "computed", "layer_lengths": [tokens] * s.n_layers}
        self.release()
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats()
        try:
            ids = self.prompts(batch)
            for _ in range(a.warmup):
                self.generate_once(ids)
            timings = [self.generate_once(ids) for _ in range(a.repetitions)]
        except Exception as error:  # noqa: BLE001 - only OOM is recorded, others propagate
            if not self.is_oom(error):
                raise
            run.update(ok=False, error="out of memory")
            return run
        finally:
            self.release()
        prefill = sum(t[0] for t in timings) / len(timings)
        total = sum(t[1] for t in timings) / len(timings)
        decode = total - prefill
        generated = batch * a.gen_len
        run.update(
            prefill_s=prefill, decode_s=decode, total_s=total,
            # The first new token comes out of prefill; decode makes the rest.
            decode_tokens_per_s=batch * (a.gen_len - 1) / decode if decode > 0 else None,
            throughput_tokens_per_s=generated / total,
            latency_ms_per_token=1000.0 * total / a.gen_len,
            peak_device_memory=self.torch.cuda.max_memory_allocated() if self.cuda else None)
        return run

    def search_max_batch(self, known_good):
        """Largest batch whose generate fits, within --max-batch-within.

        Upward from `known_good` (0: none known) by doubling until a batch fails, or, given
        --max-batch-from (another tool's largest, say), from that guess in steps of `within`
        that double; then bisect. A good guess saves most of the probes, each a whole generate.
        """
        a = self.args
        limit, within = a.max_batch_limit, a.max_batch_within
        good, bad = min(known_good, limit), None
        guess = min(a.max_batch_from, limit) if a.max_batch_from else 0
        if guess > good:
            if self.fits(guess):
                good = guess
            else:
                bad = guess
        step = within if guess else good
        while bad is None and good < limit:
            batch = min(good + max(step, 1), limit)
            if self.fits(batch):
                good = batch
                step = 2 * step if guess else good
            else:
                bad = batch
        while bad is not None and bad - good > within:
            mid = (good + bad) // 2
            if self.fits(mid):
                good = mid
            else:
                bad = mid
        return good


def device_info(torch, device):
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        return {"backend": "cuda", "name": props.name, "memory_total": props.total_memory,
                "copy_bandwidth_gbs": None}
    import platform
    return {"backend": "cpu", "name": platform.processor() or platform.machine(),
            "memory_total": None, "copy_bandwidth_gbs": None}


def versions():
    found = {}
    for module in ("torch", "transformers", "accelerate"):
        try:
            found[module] = __import__(module).__version__
        except ImportError:
            found[module] = None
    return found


def print_table(doc, out=sys.stdout):
    print(f"hf_baseline: {doc['model']['name']} {doc['model']['weight_type']} on "
          f"{doc['device']['name']}, {doc['workload']['prompt_len']}+{doc['workload']['gen_len']}",
          file=out)
    print(f"{'bsz':>5} {'prefill s':>10} {'decode s':>10} {'total s':>10} {'thr tok/s':>10} "
          f"{'KV GB':>8} {'peak GB':>8}", file=out)
    for run in doc["runs"]:
        if not run["ok"]:
            print(f"{run['batch']:>5} {run['error']}", file=out)
            continue
        peak = run["peak_device_memory"]
        peak_text = f"{peak / 1e9:8.2f}" if peak is not None else f"{'-':>8}"
        print(f"{run['batch']:>5} {run['prefill_s']:10.3f} {run['decode_s']:10.3f} "
              f"{run['total_s']:10.3f} {run['throughput_tokens_per_s']:10.1f} "
              f"{run['kv_bytes_peak'] / 1e9:8.3f} {peak_text}", file=out)
    for entry in doc["max_batch"]:
        print(f"max batch: {entry['batch']} ({entry['throughput_tokens_per_s']:.1f} tok/s)"
              if entry["batch"] else "max batch: none fits", file=out)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", default="llama2-7b", help="one of --list-shapes (default llama2-7b)")
    p.add_argument("--batch", type=parse_batches, default=None, help="batch sizes, N[,N...]")
    p.add_argument("--max-batch", action="store_true", help="also search the largest batch that fits")
    p.add_argument("--max-batch-limit", type=int, default=4096,
                   help="stop the --max-batch search here (default 4096; keep small on cpu)")
    p.add_argument("--max-batch-from", type=int, default=0, metavar="N",
                   help="the search's first try, e.g. pyramid-bench's largest full-cache batch")
    p.add_argument("--max-batch-within", type=int, default=1, metavar="N",
                   help="stop the search once the largest batch is known within N (default 1: exactly)")
    p.add_argument("--prompt-len", type=int, default=512)
    p.add_argument("--gen-len", type=int, default=256)
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--dtype", choices=tuple(DTYPE_TAGS), default="float16")
    p.add_argument("--attn", default="sdpa", help="transformers attention implementation (default sdpa)")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--repetitions", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads (cpu device)")
    p.add_argument("--json", metavar="OUT", help="write the results here")
    p.add_argument("--list-shapes", action="store_true", help="print the shapes and exit")
    args = p.parse_args(argv)
    if args.list_shapes:
        return args
    if args.shape not in SHAPES:
        p.error(f"--shape: unknown shape '{args.shape}', expected one of {', '.join(SHAPES)}")
    if args.batch is None and not args.max_batch:
        args.batch = [1]
    for name in ("prompt_len", "gen_len", "repetitions", "max_batch_limit", "max_batch_within"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')}: must be >= 1, found {getattr(args, name)}")
    if args.warmup < 0:
        p.error(f"--warmup: must be >= 0, found {args.warmup}")
    if args.prompt_len + args.gen_len > SHAPES[args.shape].context_length:
        p.error(f"--prompt-len + --gen-len = {args.prompt_len + args.gen_len} exceeds the "
                f"{args.shape} context length {SHAPES[args.shape].context_length}")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.list_shapes:
        list_shapes()
        return 0
    try:
        import importlib
        import torch
        importlib.import_module("transformers")  # checked here for a clear message
    except ImportError as error:
        print(f"hf_baseline: needs torch and transformers ({error})", file=sys.stderr)
        return 2
    if args.device == "cuda" and not torch.cuda.is_available():
        print("hf_baseline: --device cuda but torch sees no CUDA device", file=sys.stderr)
        return 2
    if args.threads:
        torch.set_num_threads(args.threads)

    shape = SHAPES[args.shape]
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    model, weight_bytes = build_model(shape, args.device, args.dtype, args.seed, args.attn)
    build_s = time.perf_counter() - started
    runner = Runner(args, shape, model, weight_bytes)

    runs, max_batch = [], []

    def write(final):
        # Rewritten after every measurement: a run cut short still leaves what it measured.
        doc = document(args, argv, torch, shape, weight_bytes, build_s, runs, max_batch)
        if final:
            print_table(doc)
        if args.json:
            with open(args.json + ".tmp", "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")
            os.replace(args.json + ".tmp", args.json)

    for b in args.batch or []:
        runs.append(runner.measure(b))
        write(final=False)
    if args.max_batch:
        largest_ok = max((r["batch"] for r in runs if r["ok"]), default=0)
        found = runner.search_max_batch(largest_ok)
        entry = {"policy": "full", "label": "hf-accelerate", "method": "hf-accelerate",
                 "batch": found, "throughput_tokens_per_s": None}
        if found:
            run = next((r for r in runs if r["batch"] == found), None)
            if run is None:
                run = runner.measure(found)
                runs.append(run)
            entry["throughput_tokens_per_s"] = run.get("throughput_tokens_per_s")
            entry["limited"] = found >= args.max_batch_limit
            if args.max_batch_within > 1:
                entry["within"] = args.max_batch_within
        max_batch.append(entry)
    write(final=True)
    return 0


def document(args, argv, torch, shape, weight_bytes, build_s, runs, max_batch):
    return {
        "tool": "hf_baseline",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": shlex.join([sys.argv[0]] + list(argv)),
        "device": device_info(torch, args.device),
        "model": {"name": args.shape, "source": "shape", "weight_type": DTYPE_TAGS[args.dtype],
                  "weight_bytes": weight_bytes, "n_layers": shape.n_layers, "dim": shape.dim,
                  "n_heads": shape.n_heads, "n_kv_heads": shape.n_kv_heads,
                  "ffn_dim": shape.ffn_dim, "n_vocab": shape.n_vocab,
                  "context_length": shape.context_length},
        "workload": {"prompt_len": args.prompt_len, "gen_len": args.gen_len, "warmup": args.warmup,
                     "repetitions": args.repetitions, "seed": args.seed},
        "baseline": {"attn_implementation": args.attn, "cache": "transformers DynamicCache (full)",
                     "model_build_s": build_s, "versions": versions()},
        "runs": runs,
        "max_batch": max_batch,
    }


if __name__ == "__main__":
    sys.exit(main())
