#!/usr/bin/env bash
# pyramid-bench as users run it, with the bench/ scripts that read its output:
#   bench_tools_test.sh PYRAMID_BENCH PYRAMID_EVAL PYTHON SOURCE_DIR SHARED_DIR
set -euo pipefail
bench=$1 eval_tool=$2 python=$3 src=$4 shared=$5
source "$(dirname "$0")/../support/tool_checks.sh"

# The Hugging Face baseline builds the same shapes as pyramid-bench.
diff <("$bench" --list-shapes) <("$python" "$src/bench/hf_baseline.py" --list-shapes) ||
  fail "bench/hf_baseline.py and pyramid-bench disagree on the shapes"

"$bench" --shape tiny --device cpu --prompt-len 40 --gen-len 8 --batch 1,2 --policy full,pyramid \
  --max-batch --kv-memory 0.01 --warmup 0 --json "$tmp/r.json" >"$tmp/table.md"
grep -q '| pyramid | 2 | 40+8 |' "$tmp/table.md" || fail "no pyramid row in the table: $(cat "$tmp/table.md")"
grep -q '(max; planned' "$tmp/table.md" || fail "no max-batch row in the table"
# On the CPU the budget is the backend's blocks: the largest batch that runs is the one the
# block plan predicted (one more was tried and did not fit).
"$python" -c 'import json, sys
runs = json.load(open(sys.argv[1]))["max_batch"]
bad = [m for m in runs if not m["batch"] == m["planned_batch"] > 0]
sys.exit("largest batch is not the planned one: %s" % bad if bad else 0)' "$tmp/r.json" ||
  fail "pyramid-bench --max-batch on the CPU found another batch than the allocator predicts"

"$python" "$src/bench/paper_table.py" --from-json "$tmp/r.json" --out "$tmp/paper.json" >"$tmp/paper.md"
grep -q 'ours pyramid' "$tmp/paper.md" || fail "paper_table.py did not render our runs: $(cat "$tmp/paper.md")"

# pyramid-bench names the card with its compute capability and precision, the baseline by the
# card alone: the same card is no mismatch, another card is.
renamed() {
  "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); d["tool"] = sys.argv[2]
d["device"]["name"] = sys.argv[3]; json.dump(d, open(sys.argv[4], "w"))' "$tmp/r.json" "$@"
}
renamed pyramid-bench "Test Card (sm_90, fp16)" "$tmp/ours.json"
renamed hf_baseline "Test Card" "$tmp/same.json"
renamed hf_baseline "Another Card" "$tmp/other.json"
"$python" "$src/bench/paper_table.py" --from-json "$tmp/ours.json" "$tmp/same.json" >/dev/null 2>"$tmp/same.err"
grep -q 'different devices' "$tmp/same.err" && fail "the same card was taken for another: $(cat "$tmp/same.err")"
"$python" "$src/bench/paper_table.py" --from-json "$tmp/ours.json" "$tmp/other.json" >/dev/null 2>"$tmp/other.err"
grep -q 'different devices' "$tmp/other.err" || fail "another card was not reported: $(cat "$tmp/other.err")"

# Run by paper_table, the baseline's largest-batch search starts from our full cache's largest
# batch (a stand-in baseline records how it was called).
cat >"$tmp/fake_hf.py" <<'PY'
import json, sys
args = sys.argv[1:]
out = args[args.index("--json") + 1]
doc = json.load(open(out.replace("hf_baseline", "pyramid-bench")))
doc.update(tool="hf_baseline", command=" ".join(args), max_batch=[])
json.dump(doc, open(out, "w"))
PY
"$python" "$src/bench/paper_table.py" --pyramid-bench "$bench" --hf-script "$tmp/fake_hf.py" --shape tiny \
  --device cpu --prompt-len 40 --gen-len 8 --batch 1 --policy full,pyramid --max-batch --kv-memory 0.01 \
  --max-batch-limit 64 --max-batch-within 4 --warmup 0 --repetitions 1 --out "$tmp/both/run.json" >/dev/null ||
  fail "paper_table.py did not run both tools"
ours_max=$("$python" -c 'import json, sys
print([m["batch"] for m in json.load(open(sys.argv[1]))["max_batch"] if m["label"] == "full"][0])' \
  "$tmp/both/run.pyramid-bench.json")
grep -q -- "--max-batch-from $ours_max --max-batch-within 4" "$tmp/both/run.hf_baseline.json" ||
  fail "the baseline's search did not start from our largest batch ($ours_max): $(cat "$tmp/both/run.hf_baseline.json")"

"$eval_tool" bench-plots "$tmp/r.json" --out "$tmp/plots" >/dev/null
for f in bench_throughput.svg bench_throughput.png bench_kv_layers.svg bench_kv_layers.png; do
  [ -s "$tmp/plots/$f" ] || fail "bench-plots did not write $f"
done

# Without --device, generated weights run on CUDA where its backend starts, else on the CPU,
# saying why.
"$bench" --shape tiny --prompt-len 8 --gen-len 2 --warmup 0 --json "$tmp/auto.json" >"$tmp/auto.md" 2>"$tmp/auto.err" ||
  fail "pyramid-bench on the default device failed: $(cat "$tmp/auto.err")"
if grep -q '"backend": "cuda"' "$tmp/auto.json"; then
  grep -q 'tiny on cuda: the CUDA backend from' "$tmp/auto.err" || fail "no backend line: $(cat "$tmp/auto.err")"
else
  grep -q 'tiny on cpu: running on the CPU: ' "$tmp/auto.err" || fail "the CPU went unexplained: $(cat "$tmp/auto.err")"
  grep -q '"backend_note": "running on the CPU: ' "$tmp/auto.json" || fail "no backend note in the JSON"
fi

# --write-gguf: generated weights as a GGUF file that pyramid-bench runs like any model file, and
# bench/gpu_llamacpp.py running it beside a stand-in llama-bench that reports the tensors it was
# told to (LLAMA_FAKE_BYTES): the same as pyramid-bench read, then one byte more, which stops it.
vocab="$shared/models/ggml-vocab-llama-spm.gguf"
if [ -f "$vocab" ]; then
  mkdir -p "$tmp/models"
  "$bench" --write-gguf "$tmp/models/tiny-q8_0.gguf" --vocab "$vocab" --shape tiny --weight-type q8_0 \
    2>"$tmp/write.err" || fail "--write-gguf: $(cat "$tmp/write.err")"
  grep -q "wrote $tmp/models/tiny-q8_0.gguf: tiny in q8_0" "$tmp/write.err" || fail "no summary: $(cat "$tmp/write.err")"
  "$bench" --model "$tmp/models/tiny-q8_0.gguf" --device cpu --prompt-len 16 --gen-len 4 --policy full \
    --warmup 0 --json "$tmp/file.json" >/dev/null 2>&1 || fail "pyramid-bench did not run the file it wrote"
  stored=$("$python" -c 'import json, sys; m = json.load(open(sys.argv[1]))["model"]
assert m["weight_type"] == "q8_0" and m["n_vocab"] == 32000, m
print(m["stored_bytes"], m["parameters"])' "$tmp/file.json") || fail "the file's model is not the tiny shape in q8_0"
  read -r bytes params <<<"$stored"
  size=$(stat -c %s "$tmp/models/tiny-q8_0.gguf")
  [ "$bytes" -lt "$size" ] && [ "$bytes" -gt $((size - 2000000)) ] ||
    fail "stored_bytes $bytes is not the file's tensors (file $size bytes, 32000 tokens of vocabulary)"
  cat >"$tmp/llama-bench" <<'PY'
#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
lens = [int(n) for n in (a[a.index("-d") + 1] if "-d" in a else a[a.index("-p") + 1]).split(",")]
n_gen = int(a[a.index("-n") + 1])
out = []
for fa in (0, 1):
    for n in lens:
        out.append({"build_commit": "fake", "build_number": 1, "gpu_info": "", "cpu_info": "", "backends": "CPU",
                    "model_size": int(os.environ["LLAMA_FAKE_BYTES"]), "model_n_params": int(os.environ["LLAMA_FAKE_PARAMS"]),
                    "n_batch": 2048, "n_ubatch": 512, "n_threads": 1, "flash_attn": fa, "n_prompt": 0 if n_gen else n,
                    "n_gen": n_gen, "n_depth": n if n_gen else 0, "avg_ts": 100.0 * (1 + fa)})
print(json.dumps(out))
PY
  chmod +x "$tmp/llama-bench"
  LLAMA_FAKE_BYTES=$bytes LLAMA_FAKE_PARAMS=$params "$python" "$src/bench/gpu_llamacpp.py" --llama-bin "$tmp" \
    --pyramid-bench "$bench" --vocab "$vocab" --dir "$tmp/models" --shape tiny --types f16 --device cpu \
    --threads 1 --prompt-lens 16 --gen-len 4 --rounds 1 --repetitions 1 >/dev/null 2>"$tmp/side.err" &&
    fail "an f16 file of other bytes than llama.cpp's passed"
  grep -q "tiny-f16.gguf: llama.cpp read $bytes bytes.*not the same tensors" "$tmp/side.err" ||
    fail "the f16 file's other bytes went unnamed: $(tail -3 "$tmp/side.err")"
  [ -f "$tmp/models/tiny-f16.gguf" ] || fail "gpu_llamacpp.py did not write the f16 file"
  LLAMA_FAKE_BYTES=$bytes LLAMA_FAKE_PARAMS=$params "$python" "$src/bench/gpu_llamacpp.py" --llama-bin "$tmp" \
    --pyramid-bench "$bench" --vocab "$vocab" --dir "$tmp/models" --shape tiny --types q8_0 --device cpu \
    --threads 1 --prompt-lens 16,24 --gen-len 4 --rounds 2 --repetitions 1 --overlap off,on --json "$tmp/side.json" \
    --md "$tmp/side.md" >/dev/null 2>"$tmp/side.err" || fail "gpu_llamacpp.py: $(tail -5 "$tmp/side.err")"
  for row in '| q8_0 | llama.cpp FA off | 100.0 | 100.0 | 100.0 | 100.0 |' '| q8_0 | llama.cpp FA on | 200.0 |' \
             '| q8_0 | ours full | ' '| q8_0 | ours pyramid | ' '| q8_0 | ours full, launches overlapped | ' \
             '| q8_0 | ours pyramid, launches overlapped | '; do
    grep -qF -- "$row" "$tmp/side.md" || fail "no row '$row' in the side-by-side table: $(cat "$tmp/side.md")"
  done
  "$python" -c 'import json, sys
d = json.load(open(sys.argv[1])); r = d["results"][0]
assert d["prompt_lens"] == [16, 24] and len(r["rounds"]) == 2, d
m = r["median"]
assert d["overlap"] == ["off", "on"], d
assert set(m) == {"llama.cpp FA off", "llama.cpp FA on", "ours full", "ours pyramid", "ours full, launches overlapped",
                  "ours pyramid, launches overlapped"}, m
assert set(m["ours full"]) == {"prefill 16", "prefill 24", "decode 16", "decode 24"}, m
assert all(v > 0 for s in m.values() for v in s.values()), m
assert r["tensor_bytes"] == r["llama.cpp"]["model_size"], r' "$tmp/side.json" ||
    fail "gpu_llamacpp.py's JSON is not what was measured: $(head -c 2000 "$tmp/side.json")"
  # An overlapped run that fails leaves its rows out and is named under the table; the rest stands.
  printf '#!/usr/bin/env bash\n[ "$PYRAMID_CUDA_OVERLAP" = on ] && { echo "overlap broke" >&2; exit 3; }\nexec %q "$@"\n' \
    "$bench" >"$tmp/flaky-bench"
  chmod +x "$tmp/flaky-bench"
  LLAMA_FAKE_BYTES=$bytes LLAMA_FAKE_PARAMS=$params "$python" "$src/bench/gpu_llamacpp.py" --llama-bin "$tmp" \
    --pyramid-bench "$tmp/flaky-bench" --vocab "$vocab" --dir "$tmp/models" --shape tiny --types q8_0 --device cpu \
    --threads 1 --prompt-lens 16 --gen-len 4 --rounds 1 --repetitions 1 --overlap off,on --json "$tmp/flaky.json" \
    --md "$tmp/flaky.md" >/dev/null 2>"$tmp/flaky.err" || fail "a failed overlapped run stopped gpu_llamacpp.py: $(tail -5 "$tmp/flaky.err")"
  grep -qF '| q8_0 | ours full | ' "$tmp/flaky.md" && ! grep -q 'launches overlapped |' "$tmp/flaky.md" &&
    grep -q '^- ours with launches overlapped, tiny-q8_0.gguf, prompt 16: pyramid-bench failed' "$tmp/flaky.md" ||
    fail "the failed overlapped run is not left out and named: $(cat "$tmp/flaky.md")"
  grep -q '"failures": \[' "$tmp/flaky.json" || fail "the JSON does not list the failure"
  expect 2 "needs --vocab and no --model" "$bench" --write-gguf "$tmp/x.gguf" --shape tiny
  expect 3 "512 tokens, the model 32000" "$bench" --write-gguf "$tmp/x.gguf" --shape tiny \
    --vocab "$shared/models/stories260K.gguf"
  [ ! -e "$tmp/x.gguf" ] && [ ! -e "$tmp/x.gguf.part" ] || fail "a refused --write-gguf left a file"
else
  echo "bench tools: $vocab not found, --write-gguf and gpu_llamacpp.py not checked"
fi

# Refusals name the problem and use the documented exit codes.
expect 3 "unknown model shape 'nope'" "$bench" --shape nope --device cpu
expect 2 "needs --kv-memory" "$bench" --shape tiny --device cpu --prompt-len 8 --gen-len 2 --warmup 0 --max-batch
expect 2 "do not fit the model's context" "$bench" --shape tiny --device cpu --prompt-len 1000 --gen-len 100
expect 2 "is not the JSON of pyramid-bench" "$eval_tool" bench-plots "$src/bench/README.md" --out "$tmp/x"
expect 2 "cannot create the folder" "$eval_tool" bench-plots "$tmp/r.json" --out /proc/no/such/folder
expect 2 "batch" "$bench" --shape tiny --device cpu --batch abc
expect 2 "bogus" "$bench" --bogus
expect 2 "cannot write /proc/no/r.json" "$bench" --shape tiny --device cpu --json /proc/no/r.json
expect 2 "max-batch-limit" "$bench" --shape tiny --device cpu --max-batch-limit 0
echo "bench tools: all checks passed"
